# Code of the copy that ran before the witness loaded, or in place of a module of the same name
# outside it: which files, and what it left in pytest.


def _in_the_copy(copy):
    """`relative(filename)`: the path of `filename` relative to the copy (`copy`, as
    `_outside_the_copy` has it), `/`-separated, or `None` when it is outside; and the whole path.
    It is asked of each of hundreds of modules: a name is made whole only where it may name a
    file of the copy otherwise than plainly (relative, or through `.` and `..`)."""
    import os

    roots = tuple({os.path.join(os.path.abspath(copy), ""),
                   os.path.join(os.path.realpath(copy), "")})
    dots = (os.sep + "." + os.sep, os.sep + ".." + os.sep)

    def relative(filename):
        # (The copy's folder itself, named without a separator at its end, is "".)
        if not (filename + os.sep).startswith(roots) and filename.startswith(os.sep) \
                and dots[0] not in filename and dots[1] not in filename:
            return None, None
        path = os.path.abspath(filename)
        for root in roots:
            if (path + os.sep).startswith(root):
                return path[len(root):].replace(os.sep, "/"), path
        return None, None

    return relative


def _module_files():
    """`(name, filename)` of every module in `sys.modules` that names its file. Read from the
    module object's own dictionary at C level: a module's class may make `__dict__` a property
    that loads it whole (the `py` library's lazy `apipkg` modules import everything they
    declare), and its `__getattr__` is its code. What is no module is passed over."""
    import sys
    from types import ModuleType

    own_dictionary = ModuleType.__dict__["__dict__"].__get__
    for name, module in list(sys.modules.items()):
        if not issubclass(type(module), ModuleType):
            continue
        filename = own_dictionary(module).get("__file__")
        if type(filename) is str:
            yield name, filename


def _loaded_first(copy, own_file):
    """The files of the copy (`copy`, as `_outside_the_copy` has it) whose code ran before the
    witness loaded, relative to it and sorted: the script the command ran, and every module
    imported from the copy. In a run of pytest itself there are none, but where the copy holds
    a module of a name Python or pytest imports first (a `pytest.py` that `python -m pytest`
    runs in place of pytest, an `argparse.py`, a `_pytest` package), or a wrapper imports the
    project before it calls pytest. What such code did to pytest then is what the witness took
    as pytest's own: mend weighs each file against the change (an added one is no pass).
    Returns each file's path relative to the copy, with the path Python loaded it by and
    whether it is one of the runner's own (pytest's or pluggy's sources, where the project is
    one of them and runs from its copy). The witness's own file (`own_file`, as `_places`
    has it), which mend hands over outside the copy, is never counted."""
    import os
    import sys

    if not copy:
        return {}
    relative = _in_the_copy(copy)
    runners = tuple(os.path.join(os.path.dirname(os.path.abspath(module.__file__)), "")
                    for module in map(sys.modules.get, ("_pytest", "pytest", "pluggy"))
                    if type(getattr(module, "__file__", None)) is str)
    found = {}
    for _, filename in _module_files():
        name, path = relative(filename)
        if name is not None and os.path.normcase(path) != own_file:
            found[name] = (path, path.startswith(runners))
    return found


def _replaced_first(defined_at, alarm, label_of, files):
    """`judge(watched)`, for a run where code of the copy ran before the witness loaded
    (`files`: the paths `_loaded_first` found, pytest's and pluggy's own sources left out): the
    entries of what decides outcomes, as the witness first took them, that hold code from one
    of those files: a function, one a method, property or `functools.partial` holds, a class or
    an object whose methods are such code. Each is an alarm, since the witness's later checks
    compare with what it took then. Code made before the witness under another file's name goes
    unseen: no audit hook watched it (mend weighs the files themselves against the change)."""
    import os
    from types import FunctionType

    scalars = (bool, int, float, str, bytes, type(None))
    ran_first = set(map(os.path.normcase, files))
    made_by_runner = _made_by_runner()

    def project_code(function):
        return type(function) is FunctionType and os.path.normcase(
            os.path.abspath(function.__code__.co_filename)) in ran_first

    def found_in(value):
        """The project function `value` is or holds, one level deep; `None` if none."""
        if isinstance(value, scalars):
            return None
        inner = [value]
        for name in ("__func__", "fget", "fset", "fdel", "func"):
            try:
                inner.append(getattr(value, name, None))
            except Exception:
                pass
        # A stand-in class, or the class of a stand-in object: its methods (pytest's own
        # classes are judged entry by entry, as holders).
        owner = value if isinstance(value, type) else type(value)
        if not made_by_runner(owner):
            try:
                inner.extend(vars(owner).values())
            except TypeError:
                pass
        for candidate in inner:
            if project_code(candidate):
                return candidate
            held = getattr(candidate, "__func__", None) if isinstance(
                candidate, (staticmethod, classmethod)) else None
            if project_code(held):
                return held
        return None

    def judge(watched):
        for holder, entries in watched:
            label = label_of(holder)
            for name, value in entries.items():
                function = found_in(value)
                if function is not None:
                    alarm("first", f"{label}.{name}", defined_at(function))

    return judge


def _in_place_of_others(copy, send):
    """`tell()`, as the session ends: the copy's modules that Python imported in place of one of
    the same name it would have found outside the copy (the standard library's, an installed
    package's), relative to the copy and sorted, sent as `shadowing` when there are any. The
    folder a run starts in comes first on the import path (`python -m pytest`), so a
    `fractions.py` or a `hypothesis` package of the copy is what a test that imports that name
    gets, and what it runs is no longer what the test was written against: mend weighs each
    against the change (an added one is no pass). Asked once, of the top-level modules only."""
    import os
    import sys

    if not copy:
        return lambda: None
    relative, module_files = _in_the_copy(copy), _module_files

    def tell():
        from importlib.machinery import PathFinder

        outside = [entry for entry in sys.path
                   if type(entry) is str and relative(entry or os.curdir)[0] is None]
        found = set()
        for name, filename in module_files():
            if "." in name or name == "__main__":
                continue
            file = relative(filename)[0]
            if file is None:
                continue
            try:
                elsewhere = name in sys.builtin_module_names \
                    or PathFinder.find_spec(name, outside) is not None
            except Exception:
                elsewhere = False
            if elsewhere:
                found.add(file)
        if found:
            send(event="shadowing", files=sorted(found))

    return tell
