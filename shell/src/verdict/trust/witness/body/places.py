# Where code comes from and what is mend's own: the places the witness names in what it tells.


def _places(own_file):
    """Where code comes from: `kind(filename)` (stdlib, pytest, site, witness or project),
    `place(frame)` (FILE:LINE, relative to the run's folder), `responsible(frame, through)` and
    `defined_at(function)`."""
    import os

    import _pytest  # pytest's own package (the `pytest` module is its public face): always there
    import pluggy  # pytest's hook machinery, which every pytest requires

    stdlib_dir = os.path.dirname(os.__file__)
    stdlib = tuple({os.path.normcase(os.path.realpath(stdlib_dir)) + os.sep,
                    os.path.normcase(os.path.abspath(stdlib_dir)) + os.sep})
    pytest_dirs = tuple(
        os.path.normcase(os.path.dirname(os.path.abspath(module.__file__))) + os.sep
        for module in (_pytest, pluggy)
    )
    installed = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)
    kinds = {}

    def classify(name):
        if name.startswith("<frozen"):
            return "stdlib"
        if name == own_file:
            return "witness"
        if name.startswith(pytest_dirs):
            return "pytest"
        if installed[0] in name or installed[1] in name:
            return "site"
        if name.startswith(stdlib):
            return "stdlib"
        if os.sep + "bin" + os.sep in name and not name.endswith(".py"):
            return "site"  # a console script (bin/pytest) of an installed package
        return "project"

    def kind(filename):
        found = kinds.get(filename)
        if found is None:
            found = kinds[filename] = classify(os.path.normcase(filename))
        return found

    root = os.getcwd() + os.sep
    entry = _runners_entry(kind)

    def relative(filename):
        return filename[len(root):] if filename.startswith(root) else filename

    def place(frame):
        return f"{relative(frame.f_code.co_filename)}:{frame.f_lineno}"

    def responsible(frame, through):
        """The frame an event is owed to: walking out past frames whose kind is in `through`,
        the first other one; pytest's own entry (`_runners_entry`), where the walk reaches it,
        since what called pytest is not what pytest does. `None` when only such frames were
        left (a thread, an exit hook)."""
        while frame is not None:
            if frame is entry or kind(frame.f_code.co_filename) not in through:
                return frame
            frame = frame.f_back
        return None

    def defined_at(value):
        code = getattr(getattr(value, "__func__", value), "__code__", None)
        if code is None:
            return None
        return f"{relative(code.co_filename)}:{code.co_firstlineno}"

    return kind, place, responsible, defined_at, root


def _runners_entry(kind):
    """pytest's entry into this run: the outermost of pytest's frames as the witness loads, which
    pytest loads inside its `main` (or, under pytest-xdist, a worker's configuration). What is
    outside it called pytest (a task's `runtests.py` calling `pytest.main()`, `python -c`), and
    waits for it: what pytest does inside, as it registers its own plugins, is not that code's
    doing. A thread's frames or an exit hook's never pass through this frame."""
    import sys

    frame, entry = sys._getframe(1), None
    while frame is not None:
        if kind(frame.f_code.co_filename) == "pytest":
            entry = frame
        frame = frame.f_back
    return entry


def _alarms(send):
    """`alarm(kind, what, where)`: sent once each, so a loop cannot flood the socket."""
    told = set()

    def alarm(kind_, what, where=None):
        if (kind_, what, where) not in told:
            told.add((kind_, what, where))
            send(event="alarm", kind=kind_, what=what, where=where)

    return alarm


def _told_once(send, event):
    """`tell(what, why)`: a check this pytest, pluggy or Python does not let the witness make,
    sent once each as `event`, so the verdict names it."""
    told = set()

    def tell(what, why):
        if what not in told:
            told.add(what)
            send(event=event, what=what, why=why)

    return tell


def _runner():
    """The versions that graded the run: pytest's, pluggy's and Python's. A module's own
    `__version__` where it keeps one; pluggy 1.7 computes it on demand through
    `importlib.metadata`, which searches every path entry and parses the package's metadata
    (more than every check of a run together): its `.dist-info` folder beside it, named
    `pluggy-VERSION.dist-info`, tells the same, and that lookup is used first."""
    import os
    import sys

    def installed_version(module, name):
        package = os.path.dirname(os.path.abspath(getattr(module, "__file__", None) or "."))
        prefix = name + "-"
        try:
            entries = os.listdir(os.path.dirname(package))
        except OSError:
            return None
        found = [entry[len(prefix):-len(".dist-info")] for entry in entries
                 if entry.startswith(prefix) and entry.endswith(".dist-info")]
        return found[0] if len(found) == 1 else None

    def version(name):
        module = sys.modules.get(name)
        own = vars(module).get("__version__") if module is not None else None
        if own is None and module is not None:
            own = installed_version(module, name)
        if own is None:
            own = getattr(module, "__version__", None)
        return str(own or "unknown")

    return {"pytest": version("pytest"), "pluggy": version("pluggy"),
            "python": "%d.%d.%d" % tuple(sys.version_info[:3])}


def _ours(path, channel_fd):
    """`touches(value)`: whether a path or descriptor is mend's socket; `name(value)` names it."""
    import os

    def touches(value):
        if type(value) is str:  # (what `open` is given nearly always: no call to tell it)
            return value == path
        if value is None:
            return False
        if isinstance(value, int) and not isinstance(value, bool):
            return value == channel_fd
        try:
            name = os.fsdecode(value)
        except TypeError:
            return False
        return name == path

    def name(value):
        return "mend's witness socket"

    return touches, name


