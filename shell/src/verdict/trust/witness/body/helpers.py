# The helpers test modules import from outside the project, held to what they were.


def _imported_helpers(places, alarm, snapshots, profiles):
    """The helpers the test modules import from outside the project (numpy.testing's asserts,
    pandas.testing's, any package's or Python's own), found from each test module's import
    statements as its first test starts: a function taken from an installed package must run
    that package's code, and neither the name nor the function's code may change while the tests
    run. A module the tests import whole, and the modules it holds (`np.testing` of `import
    numpy as np`), are watched for their functions the same way. `profiles`: Hypothesis's
    watch (`_hypothesis_profiles`), whose check as each test starts is made here, once
    Hypothesis's settings are known (a call costs each test more than asking whether to make
    it). Returns the hooks and the check made with pytest's own at the end (`check_cold`)."""
    import ast
    import sys
    import types

    kind, defined_at = places[0], places[3]
    take, unchanged, _ = snapshots
    # An object's identity without `id()`, whose every call is an audit event (the audit hook's
    # cost): `object.__hash__` is made of the address, as `id` is, and no class overrides it.
    identity = object.__hash__
    # pytest and pluggy are installed packages too (`kind` names them apart for other checks):
    # `import pytest` in a test module takes pytest's own functions, not the project's.
    outside = ("site", "stdlib", "pytest")
    seen_modules = {}  # test module name -> (module, {name: (value, code)}, ids in `wholes`)
    wholes = {}  # identity(module) -> (module, {name: (value, code)}, its namespace as last seen)

    def code_of(value):
        """A function's code, or a method's; `None` for anything else. By exact type: a mock
        (`unittest.mock.call`) answers any attribute, and can claim any class."""
        if type(value) is types.MethodType:
            value = value.__func__
        return value.__code__ if type(value) is types.FunctionType else None

    def installed(name):
        """Python's own (compiled in, or in its library) or an installed package's."""
        if name in sys.builtin_module_names:
            return True
        filename = getattr(sys.modules.get(name), "__file__", None)
        return isinstance(filename, str) and kind(filename) in outside

    def imported(module):
        """The names the module's import statements take from installed packages, and the
        names it gives the modules it imports whole."""
        try:
            with open(module.__file__, "rb") as file:
                source = file.read()
            # Every import statement has the word: a module without it is not parsed.
            if b"import" not in source:
                return set(), set()
            tree = ast.parse(source)
        except (OSError, SyntaxError, ValueError, TypeError):
            return set(), set()
        names, whole = set(), set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and not node.level and installed(node.module):
                names.update(alias.asname or alias.name for alias in node.names)
            elif isinstance(node, ast.Import):
                whole.update(alias.asname or alias.name.partition(".")[0] for alias in node.names)
        return names, whole

    def functions(namespace, names):
        found = {}
        for name in names:
            value = namespace.get(name)
            code = code_of(value)
            if code is not None:
                found[name] = (value, code)
        return found

    def check_origin(holder, helpers):
        for name, (value, code) in helpers.items():
            if kind(code.co_filename) not in outside:
                alarm("replaced", f"{name} (as {holder.__name__} has it) runs the project's code",
                      defined_at(value))

    def watch_whole(module, depth):
        name = getattr(module, "__name__", None)
        if identity(module) in wholes or not isinstance(name, str) or not installed(name):
            return
        namespace = vars(module)
        public = [name for name in namespace if not name.startswith("_")]
        found = functions(namespace, public)
        check_origin(module, found)
        # Watched for change: the package's own functions. A slot holding another package's
        # function is runtime state that its owner swaps (pytest sets sys.unraisablehook and
        # threading.excepthook around each test phase).
        package = name.partition(".")[0]
        helpers = {key: (value, code) for key, (value, code) in found.items()
                   if str(getattr(value, "__module__", "")).partition(".")[0] == package}
        wholes[identity(module)] = (module, helpers, take((namespace,)))
        if depth:
            for name in public:
                if isinstance(namespace[name], types.ModuleType):
                    watch_whole(namespace[name], depth - 1)

    def watch(module):
        names, whole = imported(module)
        namespace = vars(module)
        own = functions(namespace, names)
        check_origin(module, own)
        modules = [namespace[name] for name in whole
                   if isinstance(namespace.get(name), types.ModuleType)]
        for imported_whole in modules:
            watch_whole(imported_whole, 1)
        # As each test starts, only what its module imports itself (the modules those hold are
        # compared at the end): a test pays for its own imports, not the suite's.
        return module, own, [identity(value) for value in modules if identity(value) in wholes]

    def compare(holder, helpers, now):
        for name, (value, code) in list(helpers.items()):
            current = now.get(name)
            if current is not value or code_of(current) is not code:
                place = defined_at(current) if code_of(current) is not None else None
                alarm("replaced", f"{name} (as {holder.__name__} has it) replaced", place)
                helpers.pop(name)  # told once

    # identity(parent) -> (parent, what its tests' module is watched for, or None): found once
    # for the items that share a parent, as pytest finds the module walking up the item's
    # parents each time it is asked.
    by_parent = {}

    def watched_for(module):
        if not isinstance(module, types.ModuleType) or not getattr(module, "__file__", None):
            return None
        watched = seen_modules.get(module.__name__)
        if watched is None:
            watched = seen_modules[module.__name__] = watch(module)
        return watched

    hypothesis, check_profiles = profiles

    def pytest_runtest_setup(item):
        if hypothesis["variable"] is not None:
            check_profiles()
        parent = getattr(item, "parent", None)
        known = by_parent.get(identity(parent))
        if known is None:
            known = by_parent[identity(parent)] = (parent,
                                                   watched_for(getattr(item, "module", None)))
        watched = known[1]
        if watched is None:
            return
        holder, helpers, wholes_held = watched
        if helpers:
            compare(holder, helpers, vars(holder))
        for index in wholes_held:
            holder, helpers, seen = wholes[index]
            if not unchanged(seen):  # entry by entry only when it differs
                now = vars(holder)
                compare(holder, helpers, now)
                wholes[index] = (holder, helpers, take((now,)))

    def check_cold():
        """Each watched function still runs the code it ran when first seen."""
        for holder, helpers, *_ in [*seen_modules.values(), *wholes.values()]:
            compare(holder, helpers, vars(holder))

    return {"pytest_runtest_setup": pytest_runtest_setup}, check_cold


def _hypothesis_profiles(places, alarm):
    """Hypothesis's settings in effect are the tests': a profile registered or loaded by the code
    under test (`max_examples=1`, `phases` without generate, `derandomize`) would let a property
    pass on one friendly example. Hypothesis is watched from the moment it is imported (a
    one-time finder first on `sys.meta_path`, gone once it has wrapped `settings`'
    `register_profile` and `load_profile`): a call owed to project code that is not a test
    module, a helper beside one or a conftest is an alarm naming where; so is a profile the code
    under test registered when anyone loads it, and, as each test starts, settings in effect
    that no registered profile holds (set behind the profiles' back), and profiles that are not
    what `register_profile` left (written into them behind its back: the settings in effect
    are then a "registered" profile's). Returns what it knows of Hypothesis (its `settings` and
    `default_variable`, `None` until it is imported) and that check (`check()`)."""
    import os
    import sys

    kind, place, responsible = places[0], places[1], places[2]
    through = frozenset({"stdlib", "site", "pytest", "witness"})
    # `profiles`: the profiles as `register_profile` last left them (a copy), compared entry by
    # entry, by identity; `contents`: each of those settings objects with a copy of its
    # attributes then.
    state = {"settings": None, "variable": None, "profiles": None, "contents": ()}
    made_by_code = {}  # profile name -> where the code under test registered it

    def tests_own(filename):
        name = os.path.basename(filename)
        parts = os.path.normcase(os.path.abspath(filename)).split(os.sep)
        return (name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py")
                or any(part in ("tests", "test", "testing") for part in parts[:-1]))

    def by_the_code(frame):
        """Where project code that is not the tests' made the call; `None` otherwise."""
        frame = responsible(frame, through)
        if frame is None or kind(frame.f_code.co_filename) != "project":
            return None
        return None if tests_own(frame.f_code.co_filename) else place(frame)

    def wrapped(settings, name, original):
        def call(profile, *args, **kwargs):
            where = by_the_code(sys._getframe(1))
            result = original(profile, *args, **kwargs)
            if name == "register_profile":
                state["profiles"] = profiles_of(settings)
                if where is not None:
                    made_by_code[profile] = where
                    alarm("replaced", f"Hypothesis profile '{profile}' registered by the code "
                                      "under test", where)
            elif where is not None:
                alarm("replaced", f"Hypothesis profile '{profile}' loaded by the code under "
                                  "test", where)
            elif profile in made_by_code:
                alarm("replaced", f"Hypothesis profile '{profile}', loaded, was registered by "
                                  "the code under test", made_by_code[profile])
            return result

        call.__name__ = call.__qualname__ = name
        return staticmethod(call)

    def profiles_of(settings):
        profiles = getattr(settings, "_profiles", None)
        if type(profiles) is not dict:
            return None
        contents = []
        for value in profiles.values():
            try:
                contents.append((value, dict(vars(value))))
            except TypeError:  # (no attributes of its own to change)
                pass
        state["contents"] = tuple(contents)
        return dict(profiles)

    def changed_in_place(value):
        """The attributes of `value`, a registered profile's settings, that are not what they
        were as it was registered: each setting is an attribute of its own (with or without a
        leading underscore, by Hypothesis's version), which `object.__setattr__` rewrites past
        the settings' refusal. What Hypothesis caches on them as they are used (its example
        database, 6.170 and later) is its own."""
        for held, attributes in state["contents"]:
            if held is value:
                now = vars(value)
                return sorted(name for name, was in attributes.items()
                              if "cache" not in name and now.get(name, attributes) is not was)
        return []

    def wrap(module):
        settings = getattr(module, "settings", None)
        if not isinstance(settings, type):
            return
        wrapped_names = []
        for name in ("register_profile", "load_profile"):
            original = vars(settings).get(name)
            if isinstance(original, staticmethod):
                type.__setattr__(settings, name, wrapped(settings, name, original.__func__))
                wrapped_names.append(name)
        state["settings"] = settings
        # Compared only where every registration goes through the wrapper, which updates it.
        if "register_profile" in wrapped_names:
            state["profiles"] = profiles_of(settings)
        state["variable"] = getattr(module, "default_variable", None)

    class Finder:
        """First on `sys.meta_path` until Hypothesis's settings module is imported."""

        @staticmethod
        def find_spec(fullname, path=None, target=None):
            if fullname != "hypothesis._settings":
                return None
            sys.meta_path[:] = [finder for finder in sys.meta_path if finder is not Finder]
            from importlib.util import find_spec

            spec = find_spec(fullname)
            if spec is None or spec.loader is None:
                return spec
            loader = spec.loader
            exec_module = loader.exec_module

            class Wrapping:
                """The found loader's, then the wrap: Hypothesis runs its own code first."""

                def __getattr__(self, name):
                    return getattr(loader, name)

                def create_module(self, spec):
                    return loader.create_module(spec)

                def exec_module(self, module):
                    exec_module(module)
                    wrap(module)

            spec.loader = Wrapping()
            return spec

    if "hypothesis._settings" in sys.modules:
        wrap(sys.modules["hypothesis._settings"])
    else:
        sys.meta_path.insert(0, Finder)

    def check():
        settings, variable = state["settings"], state["variable"]
        if settings is None or variable is None:
            return
        value = getattr(variable, "value", None)
        profiles = getattr(settings, "_profiles", {})
        if type(profiles) is not dict:  # whose `get` could answer anything
            alarm("replaced", "Hypothesis's profiles held in a "
                              f"{type(profiles).__qualname__}")
            profiles = {}
        seen = state["profiles"]
        if seen is not None and type(profiles) is dict and (
                len(profiles) != len(seen)
                or any(profiles.get(name, seen) is not held for name, held in seen.items())):
            try:  # (a name written in could be any object, whose hash or text raises)
                written = sorted(str(name) for name in set(profiles) | set(seen)
                                 if profiles.get(name, seen) is not seen.get(name, profiles))
            except Exception:
                written = ["names that cannot be read"]
            alarm("replaced", "Hypothesis's profiles were written behind register_profile: "
                              + ", ".join(written))
            state["profiles"] = dict(profiles)  # told once
        if value is not None and value is not profiles.get(getattr(settings, "_current_profile",
                                                                    None)):
            alarm("replaced", "Hypothesis's settings in effect are no registered profile's")
        elif value is not None:
            changed = changed_in_place(value)
            if changed:
                alarm("replaced", "Hypothesis's settings in effect were changed in place: "
                                  + ", ".join(changed))
                state["contents"] = tuple((held, dict(vars(held)) if held is value else kept)
                                          for held, kept in state["contents"])  # told once

    return state, check
