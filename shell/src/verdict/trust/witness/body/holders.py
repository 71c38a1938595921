# What decides outcomes (pytest's and pluggy's classes, the builtins, assertions), as at import.


def _finder():
    """`find(*places)`: the first of `places` that this pytest and pluggy have, each place
    "module" or "module:attribute.attribute"; `None` when none is there. pytest moves and
    splits its private modules (`_pytest.python_api` became `_pytest.approx` and
    `_pytest.raises` in 9.2) and pluggy renamed its own (`pluggy.hooks` became `pluggy._hooks`
    in 1.0): the witness names what it watches by where each version keeps it, public names
    first, and never imports a private name bare, which would fail its load."""
    import importlib
    import sys

    def find_one(place, imported_only):
        module_name, _, attributes = place.partition(":")
        value = sys.modules.get(module_name)
        if value is None and imported_only:
            return None
        try:
            if value is None:
                value = importlib.import_module(module_name)
            for attribute in filter(None, attributes.split(".")):
                value = getattr(value, attribute)
        except Exception:
            return None
        return value

    def find(*places):
        # What is imported already first (pytest and pluggy import most of their own modules):
        # another version's place is then never imported, an import that would search the
        # whole path to fail. The places are names of one thing in different versions.
        for imported_only in (True, False):
            for place in places:
                found = find_one(place, imported_only)
                if found is not None:
                    return found
        return None

    return find


def _dict_versions():
    """`versions(namespaces)`: where in memory CPython keeps the version of the dictionary
    behind each of `namespaces` (a module's dictionary, a class's mapping proxy), and
    `reader(places)`, what reads the versions kept at those places. Every write to a dictionary changes its
    version (PEP 509). `None` for namespaces of another kind, and `None` instead of both where
    this Python keeps no such version, or not where it is looked for: it is tried first on a
    class and a module of its own, each written twice, and must change with each write and with
    nothing else. CPython 3.6 to 3.13 keep it; 3.14 dropped it, and other Pythons have no
    addresses to read.

    What it is for: reading a version costs a few hundred instructions, where comparing a
    namespace entry by entry costs that for each entry (a class of pytest's holds dozens). A
    version that has not changed says that nothing was written since; one that has is no alarm,
    but the reason to compare the entries. Changing a dictionary while putting its version back
    needs ctypes or a compiled module of the project's own, and the audit hook tells ctypes."""
    import sys
    from functools import partial
    from operator import itemgetter
    from types import MappingProxyType

    try:
        from _ctypes import _SimpleCData
    except ImportError:
        return None
    if sys.implementation.name != "cpython" or sys.maxsize != 2 ** 63 - 1:
        return None

    class Word(_SimpleCData):  # 64 bits
        _type_ = "Q"

    # The process's memory as words, from address 0: one object made once, since Python audits
    # each ctypes object made at an address. Nothing is read but the words named below.
    memory = (Word * (sys.maxsize // 8)).from_address(0)
    read_word = memory.__getitem__
    # A dictionary is its object header, its number of entries and then its version; a mapping
    # proxy is its header and then the mapping it shows.
    header = object.__basicsize__

    def version_at(namespace):
        """The word where the version of `namespace`'s dictionary is kept; `None` when its
        number of entries is not where it is looked for."""
        if type(namespace) is dict:
            address = id(namespace)
        elif type(namespace) is MappingProxyType:
            address = read_word((id(namespace) + header) // 8)
        else:
            return None
        if read_word((address + header) // 8) != len(namespace):
            return None
        return (address + header + 8) // 8

    def kept(namespace, write):
        word = version_at(namespace)
        if word is None:
            return False
        before = read_word(word)
        write(1)
        once = read_word(word)
        write(2)
        twice = read_word(word)
        namespace.get("probe")
        return len({before, once, twice}) == 3 and read_word(word) == twice \
            and version_at(namespace) == word

    class Probe:
        pass

    module = type(sys)("probe")
    try:
        if not (kept(vars(Probe), lambda value: setattr(Probe, "probe", value))
                and kept(vars(module), lambda value: setattr(module, "probe", value))):
            return None
    except Exception:
        return None

    def versions(namespaces):
        try:
            words = tuple(map(version_at, namespaces))
        except Exception:
            return None
        return None if None in words else words

    def reader(words):
        """What reads the versions at `words`, all at once and at C level (no Python function
        runs for it: each call of one costs a test more than the reading), as a sequence of
        them in that order."""
        if not words:
            return tuple
        if len(words) == 1:  # (an item getter of one index hands back the item alone)
            return partial(itemgetter(slice(words[0], words[0] + 1)), memory)
        return partial(itemgetter(*words), memory)

    return versions, reader


def _snapshots():
    """`take(namespaces)`, `unchanged(taken)` and `suspects(taken)`: what several namespaces
    (modules' dictionaries, classes' mapping proxies) hold, and whether they hold exactly that
    still: as many entries in each, the same names in the same order and the same values, in one
    pass at C speed over all of them. What is taken keeps each namespace's views of its names and values
    (a class's mapping proxy hands out its live dictionary's), so a check makes none. Where this
    Python keeps a version in each dictionary (`_dict_versions`), the entries are compared only
    when a version changed since they were last found unchanged.

    Values are compared by identity: `==` would ask a stand-in's own `__eq__`, which can answer
    yes to anything. Names are compared with `==`, which costs a test far less than `is` does (a
    tuple's `==` runs in C, and asks nothing of a name that is the very same string). A name
    that is not that string but answers `==` as if it were stands beside the very value that was
    there, where every lookup of the old name finds it: it changes nothing a test runs."""
    from itertools import chain
    from operator import is_not, methodcaller

    values_of, names_of = methodcaller("values"), methodcaller("keys")
    versions, reader = _dict_versions() or (lambda namespaces: None, None)

    def take(namespaces):
        """What `namespaces` hold, and `read()`, which reads their versions (`None` where there
        are none), with the versions as the entries were last found as taken (a list of one:
        the check updates it), at `[5]` and `[6]`: a check whose versions read the same needs
        nothing else (`_holders`' `check_hot` asks so itself)."""
        values, names = tuple(map(values_of, namespaces)), tuple(map(names_of, namespaces))
        words = versions(namespaces)
        read = None if words is None else reader(words)
        seen = [None if read is None else read()]
        return (values, names, tuple(map(len, values)), tuple(chain.from_iterable(names)),
                tuple(chain.from_iterable(values)), read, seen)

    def unchanged(taken):
        values_now, names_now, counts, names, values, read, seen = taken
        if read is not None:
            # Read before the entries: a write while they are compared changes it again.
            now = read()
            if now == seen[0]:
                return True
        try:
            same = tuple(map(len, values_now)) == counts \
                and not any(map(is_not, chain.from_iterable(values_now), values)) \
                and tuple(chain.from_iterable(names_now)) == names
        except RuntimeError:  # changed while it was read
            return False
        if same and read is not None:
            seen[0] = now
        return same

    def suspects(taken):
        """The positions of the namespaces that may have changed since `taken` was last found
        unchanged: those whose version changed, or all of them where there are no versions."""
        read, seen = taken[5], taken[6][0]
        if read is None:
            return range(len(taken[0]))
        return [index for index, (now, then) in enumerate(zip(read(), seen)) if now != then]

    return take, unchanged, suspects


def _watched_holders(find, unchecked):
    """What decides outcomes: pytest's and pluggy's classes and modules, the builtins, and the
    assertions tests are written with (unittest's TestCase, pytest's `raises` and `approx`),
    each with its entries as they are now, split into what runs a test and makes and carries its
    report (checked as each test starts) and the rest. A module is named by what it defines, so
    that a module split in two is watched in both halves. What this pytest or pluggy does not
    have is told to mend (`unchecked`): a check not made, never a silent one."""
    import builtins
    import sys

    # An object's identity without `id()`, whose every call is an audit event (the audit hook's
    # cost): `object.__hash__` is made of the address, as `id` is, and no class overrides it.
    identity = object.__hash__

    def module_of(value):
        return None if value is None else sys.modules.get(getattr(value, "__module__", None))

    def found(label, value):
        if value is None:
            unchecked(label, "not found in this pytest and pluggy")
        return value

    def watched(label, *places):
        return found(label, find(*places))

    def module_found(label, value):
        """The module defining `value` (told as unchecked only when `value` itself was found)."""
        return None if value is None else found(f"the module of {label}", module_of(value))

    def defining(label, *places):
        return module_found(label, watched(label, *places))

    function = watched("pytest.Function", "pytest:Function", "_pytest.python:Function")
    report = watched("pytest.TestReport", "pytest:TestReport", "_pytest.reports:TestReport")
    call_info = watched("pytest.CallInfo", "pytest:CallInfo", "_pytest.runner:CallInfo")
    session = watched("pytest.Session", "pytest:Session", "_pytest.main:Session")
    log_xml = watched("_pytest.junitxml.LogXML", "_pytest.junitxml:LogXML")
    hook_caller = watched("pluggy.HookCaller", "pluggy:HookCaller", "pluggy._hooks:_HookCaller",
                          "pluggy.hooks:_HookCaller")
    hook_impl = watched("pluggy.HookImpl", "pluggy:HookImpl", "pluggy._hooks:HookImpl",
                        "pluggy.hooks:HookImpl")
    plugin_manager = watched("pluggy.PluginManager", "pluggy:PluginManager")
    test_case = watched("unittest.TestCase", "unittest.case:TestCase")
    classes = [
        function, watched("pytest.Module", "pytest:Module", "_pytest.python:Module"),
        watched("_pytest.nodes.Node", "_pytest.nodes:Node"),
        watched("pytest.Item", "pytest:Item", "_pytest.nodes:Item"),
        watched("_pytest.reports.BaseReport", "_pytest.reports:BaseReport"), report,
        watched("pytest.CollectReport", "pytest:CollectReport", "_pytest.reports:CollectReport"),
        call_info, watched("_pytest.runner.SetupState", "_pytest.runner:SetupState"), session,
        log_xml,
        watched("pytest.TerminalReporter", "pytest:TerminalReporter",
                "_pytest.terminal:TerminalReporter"),
        watched("pytest.Config", "pytest:Config", "_pytest.config:Config"),
        watched("pytest.PytestPluginManager", "pytest:PytestPluginManager",
                "_pytest.config:PytestPluginManager"),
        plugin_manager, hook_caller, hook_impl,
        watched("_pytest.outcomes.OutcomeException", "_pytest.outcomes:OutcomeException"),
        test_case,
    ]
    per_test = [function, report, call_info, hook_caller, hook_impl,
                module_found("pytest.CallInfo", call_info),
                # pluggy's `_multicall`, which runs every hook implementation
                defining("pluggy's hook calling", "pluggy._callers:_multicall",
                         "pluggy.callers:_multicall")]
    modules = [
        builtins, module_found("pytest.Function", function),
        watched("_pytest.skipping", "_pytest.skipping"),
        defining("pytest.fail", "pytest:fail", "_pytest.outcomes:fail"),
        module_found("pytest.TestReport", report),
        module_found("pytest.Session", session),
        module_found("_pytest.junitxml.LogXML", log_xml),
        module_found("pluggy.HookCaller", hook_caller),
        module_found("pluggy.PluginManager", plugin_manager),
        sys.modules.get("pytest"),
        defining("pytest.approx", "pytest:approx"), defining("pytest.raises", "pytest:raises"),
        module_found("unittest.TestCase", test_case),
    ]
    hot, cold, seen = [], [], set()
    for holders, kept in ((per_test, hot), (classes + modules, cold)):
        for holder in holders:
            if holder is not None and identity(holder) not in seen:
                seen.add(identity(holder))
                kept.append((holder, dict(vars(holder))))
    return hot, cold


def _made_by_runner():
    """`made_by_runner(value)`: whether pytest, pluggy or unittest made `value` in one of their
    own modules: a function whose globals are that module's namespace and whose code was
    compiled from that module's file, or a class that module holds under its own name. What a
    value says of itself (`__module__`, `__qualname__`) is only where to look for a class; a
    function is found by its globals, which Python gives it from where it was made: pytest
    makes functions in one module that name another (its fixture decorator before pytest 8
    wraps a function with `functools.wraps`, so the fixtures it puts on a unittest class, the
    collected `TestCase` itself where a test module imports it, say `_pytest.unittest`)."""
    import os
    import sys
    from types import FunctionType

    runners = ("_pytest", "pytest", "pluggy", "unittest")
    # A runner's module by its whole name, or a module of its package: a project's own
    # `pytest_helpers` or `unittest_extras` is no runner's.
    inside = tuple(runner + "." for runner in runners)

    def runners_module(name):
        if not isinstance(name, str) or not (name in runners or name.startswith(inside)):
            return None
        return sys.modules.get(name)

    def module_named_by(value):
        return runners_module(getattr(value, "__module__", None))

    def same_file(one, other):
        return isinstance(one, str) and isinstance(other, str) \
            and os.path.normcase(one) == os.path.normcase(other)

    def made_by_runner(value):
        module = module_named_by(value)
        if module is None:
            return False
        if isinstance(value, type):
            held = module
            for part in getattr(value, "__qualname__", "").split("."):
                held = getattr(held, part, None)
            return held is value
        # A function by its exact type: anything else can answer `__code__` and `__globals__`
        # with a real function's (a class's `__getattr__`).
        if type(value) is not FunctionType:
            return False
        made_in = value.__globals__
        module = runners_module(made_in.get("__name__") if type(made_in) is dict else None)
        return module is not None and made_in is vars(module) \
            and same_file(value.__code__.co_filename, getattr(module, "__file__", None))

    return made_by_runner


def _label_of(holder):
    """A watched class or module as the witness names it."""
    if isinstance(holder, type):
        return f"{getattr(holder, '__module__', '') or ''}.{holder.__qualname__}".lstrip(".")
    return holder.__name__


def _holders(alarm, defined_at, find, snapshots, unchecked, check_stand_ins=None, first=None):
    """What decides outcomes, as pytest and pluggy were at import: `check_hot()` compares what
    runs a test and makes and carries its report (as each test starts), `check_cold()` the rest
    of the watched classes and modules (after collection and at the end). Each check compares all
    its holders at once (`_snapshots`), and entry by entry only when something differs; a
    replaced entry is an alarm, told once. The audit hook is no stand-in for these checks: Python audits a write to
    a class's special attributes (`__name__`, `__bases__`, `__doc__`), not to its methods."""
    hot, cold = _watched_holders(find, unchecked)
    if first is not None:
        first(hot + cold)
    take, unchanged, suspects = snapshots
    made_by_runner = _made_by_runner()
    missing = object()
    scalars = (bool, int, float, str, bytes, type(None))
    # What the import system writes on a module it hands out: a meta-path importer that returns
    # an existing module under a second name (six's `six.moves.builtins`) gets that module's
    # spec and loader rewritten by importlib. None of it decides an outcome.
    import_metadata = {"__spec__", "__loader__", "__package__", "__file__", "__cached__"}

    def pytests_own(value):
        """pytest's own doing: what it sets on its classes as it runs (the legacy-path plugin's
        properties, a flag that a warning was shown); and unittest's own methods under another
        of its names (an old project's `assertItemsEqual = assertCountEqual`). Judged by where
        the value was made (`made_by_runner`), never by the `__module__` it states, which any
        stand-in can set (`functools.wraps` copies it, and `__wrapped__` too)."""
        if isinstance(value, scalars):
            return True
        for inner in ("fget", "__func__"):
            value = getattr(value, inner, None) or value
        return made_by_runner(value)

    label_of = _label_of

    def compare(holder, seen, now):
        label = label_of(holder)
        for name, value in seen.items():
            current = now.get(name, missing)
            if name in import_metadata and not isinstance(holder, type):
                continue
            if current is not value and not (current is not missing and pytests_own(current)):
                alarm("replaced", f"{label}.{name} replaced", defined_at(current))
        if isinstance(holder, type):  # names added to a module (gettext's `_`) are not counted
            added = sorted(name for name, value in now.items()
                           if name not in seen and not pytests_own(value))
            if added:
                alarm("replaced", f"{label}: {', '.join(added)} added")

    def checked(watched):
        """One check's holders (each with its entries as last seen, for naming what changed),
        their namespaces, and what all of those hold, taken at once."""
        namespaces = tuple(vars(holder) for holder, _ in watched)
        return [watched, namespaces, take(namespaces)]

    hot, cold = checked(hot), checked(cold)

    def check_replaced(check):
        watched, namespaces, taken = check
        if unchanged(taken):
            return
        # Entry by entry, only where something may have changed: pytest sets properties on a few
        # of its classes as it is configured, and the rest are as they were.
        for index in suspects(taken):
            holder, seen = watched[index]
            now = vars(holder)
            compare(holder, seen, now)
            # Told once: later checks compare with what is there now.
            watched[index] = (holder, dict(now))
        check[2] = take(namespaces)

    def check_hot():
        # Where the versions read as they were last found, nothing was written (`take`): read
        # here, not in a call, as a call costs each test more than the reading.
        taken = hot[2]
        read = taken[5]
        if read is None or read() != taken[6][0]:
            check_replaced(hot)
        if check_stand_ins is not None:
            check_stand_ins()

    def check_cold():
        check_replaced(cold)

    return check_hot, check_cold


