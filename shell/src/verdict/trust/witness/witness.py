"""mend's witness: a pytest plugin that tells mend, as things happen, what pytest saw.

mend loads it with `-p mend_witness` for the independent test runs (that module is loader.py,
which runs this file's code in itself, so pytest's assert rewriting never walks it) and listens
on the socket named by MEND_WITNESS. pytest imports `-p` plugins before any conftest.py,
entry-point plugin or module under test, so what the witness captures at import is pytest's own.

Its state is out of the reach of the code under test. The module-level functions below are
factories, called once at import by `_install`; everything the witness judges with lives in the
closures they return and in an audit hook (PEP 578), which nothing can remove. No closure looks
a name up in this module's globals (each factory imports what it needs into its own scope, and a
test holds every function here to that): once installed, the module keeps only its `pytest_*`
hooks, so rebinding a name in it changes nothing, and it leaves `sys.modules` once pytest has
registered it. What it sees is sent at once, so code that silences it later cannot take back
what was already said.

The first line is `{"event": "start", "key": HEX}`; every later line is `MAC JSON`, where MAC is
the HMAC-SHA256 (first 32 hex digits) under that key of `SEQ JSON`, SEQ counting lines from 1:
a line written to the socket by anyone else does not carry a valid MAC. The events:
  {"event": "collected", "count": N}         the tests pytest is about to run (canaries too);
                                             under pytest-xdist, those of each worker
  {"event": "canaries", "pass": ID, "fail": ID, "error": ID}
                                             mend's own tests among the project's, each with
                                             the outcome it must have; the ids are null when
                                             there is no Python test module to put them in
  {"event": "test", "id": ..., "when": ..., "outcome": ..., "xfail": bool}
                                             each phase (setup, call, teardown) of each test
  {"event": "uncollected", "id": ...}        a file it could not collect
  {"event": "alarm", "kind": ..., "what": ..., "where": "FILE:LINE" | null}
                                             something reached into the test run
  {"event": "finished", "exitstatus": N}     the session ended
  {"event": "report", "sha256": ... | null}  the digest of the JUnit report as pytest left it
Under pytest-xdist only the controller speaks: it hands its canaries' seed to the workers, which
place them, and hears the reports they send it (`_worker_hooks`).
mend compares what it heard with the report: a report changed afterwards, tests missing from
it, a canary with another outcome, an alarm, or a second voice on the socket make the run a
non-pass.

Start-up cost matters (it is paid by every verdict): nothing here loads OpenSSL (`hashlib`),
`secrets` or `sysconfig`; the SHA-256 is the interpreter's own built-in one.
"""


def _sha256_constructor():
    """The interpreter's built-in SHA-256 (no OpenSSL to load); hashlib's where it has none."""
    try:
        from _sha256 import sha256  # CPython up to 3.11
    except ImportError:
        try:
            from _sha2 import sha256  # CPython 3.12 and later
        except ImportError:
            from hashlib import sha256
    return sha256


def _channel(path, sha256):
    """Connects to mend's socket and sends the key; returns `send(**fields)`, which seals each
    line with HMAC-SHA256 (RFC 2104, the pads hashed once here) under that key, and the
    socket's file descriptor."""
    import json
    import os
    import socket
    import threading

    key = os.urandom(32)
    block = key.ljust(64, b"\0")
    inner = sha256(bytes(byte ^ 0x36 for byte in block))
    outer = sha256(bytes(byte ^ 0x5C for byte in block))
    lock = threading.Lock()
    channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    channel.connect(path)
    channel.sendall((json.dumps({"event": "start", "key": key.hex()}) + "\n").encode())
    sent = [0]

    def send(**fields):
        line = json.dumps(fields)
        with lock:
            sent[0] += 1
            digest = inner.copy()
            digest.update(f"{sent[0]} {line}".encode())
            mac = outer.copy()
            mac.update(digest.digest())
            try:
                channel.sendall(f"{mac.hexdigest()[:32]} {line}\n".encode())
            except OSError:
                pass

    return send, channel.fileno()


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

    def relative(filename):
        return filename[len(root):] if filename.startswith(root) else filename

    def place(frame):
        return f"{relative(frame.f_code.co_filename)}:{frame.f_lineno}"

    def responsible(frame, through):
        """The frame an event is owed to: walking out past frames whose kind is in `through`,
        the first other one. `None` when only such frames were left (a thread, an exit hook)."""
        while frame is not None:
            if kind(frame.f_code.co_filename) not in through:
                return frame
            frame = frame.f_back
        return None

    def defined_at(value):
        code = getattr(getattr(value, "__func__", value), "__code__", None)
        if code is None:
            return None
        return f"{relative(code.co_filename)}:{code.co_firstlineno}"

    return kind, place, responsible, defined_at, root


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
    """The versions that graded the run: pytest's, pluggy's and Python's."""
    import sys

    def version(name):
        return str(getattr(sys.modules.get(name), "__version__", None) or "unknown")

    return {"pytest": version("pytest"), "pluggy": version("pluggy"),
            "python": "%d.%d.%d" % tuple(sys.version_info[:3])}


def _ours(path, channel_fd, report_path):
    """`touches(value)`: whether a path or descriptor is mend's socket or the JUnit report
    (`report_path[0]`, known once pytest is configured); `name(value)` says which."""
    import os

    def touches(value):
        if value is None:
            return False
        if isinstance(value, int) and not isinstance(value, bool):
            return value == channel_fd
        try:
            name = os.fsdecode(value)
        except TypeError:
            return False
        report = report_path[0]
        if name == path or name == report:
            return True
        # A relative or indirect name of the report ends with its file name; anything else is
        # some other file, told without resolving it (pytest opens hundreds).
        return report is not None and name.endswith(report_path[1]) \
            and os.path.abspath(name) == report

    def name(value):
        if isinstance(value, int) or os.fsdecode(value) == path:
            return "mend's witness socket"
        return "the JUnit report"

    return touches, name


def _watched_events(touches, ours, watched_prefixes):
    """The audit events the witness watches, each with what says, in words, what one did
    (`None`: one that does not matter)."""
    frame_reads = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})

    def as_is(event, args):
        return event

    def frame_read(event, args):
        return f"a frame read ({args[1]})" if args[1] in frame_reads else None

    def attribute(event, args):
        if not (getattr(args[0], "__module__", None) or "").startswith(watched_prefixes):
            return None
        return f"{event} {getattr(args[0], '__qualname__', args[0])!r}.{args[1]}"

    def opened(event, args):
        return f"{ours(args[0])} opened" if touches(args[0]) else None

    def moved(event, args):
        touched = [arg for arg in args[:2] if touches(arg)]
        return f"{event} of {ours(touched[0])}" if touched else None

    def connected(event, args):
        return "a connection to mend's witness socket" if touches(args[1]) else None

    def dlopen(event, args):
        # ctypes opening the interpreter itself as it is imported is no reach.
        return None if args[0] is None else event

    describe = dict.fromkeys((
        "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._getframe",
        "sys._current_frames", "sys.settrace", "sys.setprofile", "sys.addaudithook",
        "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.cdata", "ctypes.string_at",
        "ctypes.wstring_at", "ctypes.addressof"), as_is)
    describe.update({
        "object.__getattr__": frame_read, "object.__setattr__": attribute,
        "object.__delattr__": attribute, "open": opened, "socket.connect": connected,
        "ctypes.dlopen": dlopen,
    })
    describe.update(dict.fromkeys(
        ("os.rename", "os.remove", "os.truncate", "os.link", "os.symlink"), moved))
    return describe


def _audit_hook(places, alarm, describe):
    """The audit hook: what project code does that reaches into the run (frames, live objects,
    tracing, ctypes, pytest's and pluggy's classes, the report and the socket), each told as an
    alarm naming the file and line it is owed to."""
    import os
    import sys

    kind, place, responsible, _, _ = places
    # Events owed to whoever called the standard library that raised them.
    through_stdlib = frozenset({"stdlib"})
    # Frame access: the standard library's own (logging, typing, namedtuple) is its business;
    # inspect only hands frames on to its caller.
    inspect_file = os.path.normcase(os.path.join(os.path.dirname(os.__file__), "inspect.py"))

    def judge_frame_access(what, caller):
        frame = caller
        while frame is not None and os.path.normcase(frame.f_code.co_filename) == inspect_file:
            frame = frame.f_back
        if frame is not None and kind(frame.f_code.co_filename) == "project":
            alarm("frame", what, place(frame))

    def judge(event, what, caller):
        if event in ("sys._getframe", "object.__getattr__"):
            return judge_frame_access(what, caller)
        frame = responsible(caller, through_stdlib)
        if frame is None:
            if event not in ("sys.settrace", "sys.setprofile"):
                alarm("audit", what, None)
            # (else threading starting a thread with the trace function it was given)
        elif kind(frame.f_code.co_filename) == "project":
            alarm("audit", what, place(frame))

    busy = [False]
    getframe = sys._getframe

    def heard(event, args):
        """One watched event, owed to the frame that called heard's caller (the audit hook, or
        a stand-in for it): judged, told if it reached in. The frame is read once busy, since
        reading it is itself an event."""
        described = describe.get(event)
        if described is None or busy[0]:
            return
        busy[0] = True
        try:
            what = described(event, args)
            if what is not None:
                judge(event, what, getframe(2))
        except Exception:
            pass
        finally:
            busy[0] = False

    def audit(event, args):
        if event in describe:
            heard(event, args)

    return audit, heard


def _stand_ins(heard, alarm, defined_at):
    """Where Python has no audit hooks (before 3.8): the calls that read frames, walk live
    objects or trace the run, replaced in `sys` and `gc` by ones that tell `heard` who called
    them, then call the original. Returns `check()`, which names one put back or replaced."""
    import builtins
    import gc
    import io
    import os
    import sys

    watched = []

    def stand_in(module, name, counts_frames=False, event=None):
        original = getattr(module, name, None)
        if original is None:
            return
        event = event or f"{module.__name__}.{name}"

        if not counts_frames:
            def watching(*args, **kwargs):
                heard(event, args)
                return original(*args, **kwargs)
        else:
            # sys._getframe(depth) counts from its caller: one more from here.
            def watching(depth=0):
                heard(event, (depth,))
                return original(depth + 1)

        watching.__name__ = watching.__qualname__ = name
        watching.__doc__ = original.__doc__
        setattr(module, name, watching)
        watched.append((module, name, watching))

    stand_in(sys, "_getframe", counts_frames=True)
    for name in ("_current_frames", "settrace", "setprofile"):
        stand_in(sys, name)
    for name in ("get_objects", "get_referrers", "get_referents"):
        stand_in(gc, name)
    # Opening the JUnit report or the socket (`open` is one function under both names).
    for module in (builtins, io, os):
        stand_in(module, "open", event="open")

    def check():
        for module, name, watching in watched:
            now = getattr(module, name, None)
            if now is not watching:
                alarm("replaced", f"{module.__name__}.{name} replaced", defined_at(now))

    return check


def _finder():
    """`find(*places)`: the first of `places` that this pytest and pluggy have, each place
    "module" or "module:attribute.attribute"; `None` when none is there. pytest moves and
    splits its private modules (`_pytest.python_api` became `_pytest.approx` and
    `_pytest.raises` in 9.2) and pluggy renamed its own (`pluggy.hooks` became `pluggy._hooks`
    in 1.0): the witness names what it watches by where each version keeps it, public names
    first, and never imports a private name bare, which would fail its load."""
    import importlib
    import sys

    def find_one(place):
        module_name, _, attributes = place.partition(":")
        value = sys.modules.get(module_name)
        try:
            if value is None:
                value = importlib.import_module(module_name)
            for attribute in filter(None, attributes.split(".")):
                value = getattr(value, attribute)
        except Exception:
            return None
        return value

    def find(*places):
        for place in places:
            found = find_one(place)
            if found is not None:
                return found
        return None

    return find


def _watched_holders(find, unchecked):
    """What decides outcomes: pytest's and pluggy's classes and modules, the builtins, and the
    assertions tests are written with (unittest's TestCase, pytest's `raises` and `approx`),
    each with its entries as they are now, split into what runs a test and makes and carries its
    report (checked as each test starts) and the rest. A module is named by what it defines, so
    that a module split in two is watched in both halves. What this pytest or pluggy does not
    have is told to mend (`unchecked`): a check not made, never a silent one."""
    import builtins
    import sys

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
            if holder is not None and id(holder) not in seen:
                seen.add(id(holder))
                kept.append((holder, dict(vars(holder))))
    return hot, cold


def _holders(alarm, defined_at, find, unchecked, check_stand_ins=None):
    """What decides outcomes, as pytest and pluggy were at import: `check_hot()` compares what
    runs a test and makes and carries its report (as each test starts), `check_cold()` the rest
    of the watched classes and modules (after collection and at the end). Each is compared as a
    whole dictionary (at C speed), entry by entry only when it differs; a replaced entry is an
    alarm, told once."""
    hot, cold = _watched_holders(find, unchecked)
    missing = object()
    scalars = (bool, int, float, str, bytes, type(None))
    # What the import system writes on a module it hands out: a meta-path importer that returns
    # an existing module under a second name (six's `six.moves.builtins`) gets that module's
    # spec and loader rewritten by importlib. None of it decides an outcome.
    import_metadata = {"__spec__", "__loader__", "__package__", "__file__", "__cached__"}

    def pytests_own(value):
        """pytest's own doing: what it sets on its classes as it runs (the legacy-path plugin's
        properties, a flag that a warning was shown); and unittest's own methods under another
        of its names (an old project's `assertItemsEqual = assertCountEqual`)."""
        if isinstance(value, scalars):
            return True
        for inner in ("fget", "__func__", "__wrapped__"):
            value = getattr(value, inner, None) or value
        return (getattr(value, "__module__", None) or "").startswith(
            ("_pytest", "pytest", "pluggy", "unittest"))

    def label_of(holder):
        if isinstance(holder, type):
            return f"{getattr(holder, '__module__', '') or ''}.{holder.__qualname__}".lstrip(".")
        return holder.__name__

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

    def check_replaced(watched):
        for index, (holder, seen) in enumerate(watched):
            now = vars(holder)
            if now != seen:
                compare(holder, seen, now)
                # Told once: later checks compare with what is there now.
                watched[index] = (holder, dict(now))

    def check_hot():
        check_replaced(hot)
        if check_stand_ins is not None:
            check_stand_ins()

    def check_cold():
        check_replaced(cold)

    return check_hot, check_cold


def _entry_points(places, alarm):
    """`shipped_by_project(pm)`: an alarm for each entry-point plugin pytest loaded from package
    metadata inside the project (a `.dist-info` beside the code): an installed package keeps its
    metadata in site-packages."""
    import os

    kind, _, _, _, root = places

    def shipped_by_project(pm):
        for plugin, dist in pm.list_plugin_distinfo():
            try:
                location = str(dist.locate_file(""))
            except Exception:
                continue
            metadata = getattr(dist, "_path", None)
            source = str(metadata) if metadata is not None else location
            if kind(os.path.join(source, "METADATA")) == "project":
                name = pm.get_name(plugin)
                alarm("plugin", f"the entry-point plugin {name!r} declared by {dist.metadata['Name']}",
                      os.path.relpath(source, root) if source.startswith(root) else source)

    return shipped_by_project


def _plugins(places, alarm, unchecked):
    """Plugins and hooks: what was registered before configuration is allowed; a plugin the
    project registers later, a new implementation of an outcome hook, or a replaced hook caller
    is an alarm. Returns `configured(pm)`, `registered(...)`, `collected(pm)` and `check()`."""
    import sys

    kind, place, responsible, defined_at, _ = places
    shipped_by_project = _entry_points(places, alarm)
    outcome_prefixes = ("pytest_runtest_", "pytest_collect", "pytest_report_", "pytest_session",
                        "pytest_pyfunc_call", "pytest_terminal_summary", "pytest_fixture_",
                        "pytest_deselected", "pytest_itemcollected", "pytest_unconfigure",
                        "pytest_make_collect_report", "pytest_pycollect_makeitem")
    through_registration = frozenset({"stdlib", "pytest", "witness"})
    watching = {}  # the plugin manager and its hook callers, as configured
    allowed_impls = set()
    callers = {}
    seen_impls = {}
    told = set()

    def outcome_hooks(pm):
        return {name: caller for name, caller in vars(pm.hook).items()
                if name.startswith(outcome_prefixes)}

    def allow(plugin, pm):
        for caller in pm.get_hookcallers(plugin) or []:
            for impl in caller.get_hookimpls():
                if impl.plugin is plugin:
                    allowed_impls.add(id(impl))

    def configured(pm):
        # pluggy's hook calling (every pluggy from 0.13 on has both; a later one may not).
        hookexec = getattr(pm, "_inner_hookexec", None)
        hook_calling = getattr(pm, "_hookexec", None)
        if hookexec is None or hook_calling is None:
            unchecked("pluggy's hook calling (PluginManager._inner_hookexec, _hookexec)",
                      "not found in this pluggy")
        watching.update(pm=pm, hookexec=hookexec, hook_calling=hook_calling)
        for plugin in pm.get_plugins():
            allow(plugin, pm)
        shipped_by_project(pm)
        callers.update(outcome_hooks(pm))

    def registered(plugin, manager):
        if manager is not watching.get("pm"):
            return
        frame = responsible(sys._getframe(2), through_registration)
        if frame is None or kind(frame.f_code.co_filename) == "project":
            name = manager.get_name(plugin)
            alarm("plugin", f"the plugin {name!r} registered after pytest was configured",
                  place(frame) if frame is not None else None)
            return
        allow(plugin, manager)

    def collected(pm):
        for name, caller in outcome_hooks(pm).items():
            callers.setdefault(name, caller)  # hooks that plugins loaded since declared

    def once(what, where=None):  # a replaced caller is told once, wherever it is seen again
        if what not in told:
            told.add(what)
            alarm("hook", what, where)

    def check_impls(name, caller):
        impls = getattr(caller, "_hookimpls", None) or caller.get_hookimpls()  # pluggy < 1.1: a copy
        if impls == seen_impls.get(name):
            return  # the same implementations as last time, compared at C speed
        seen_impls[name] = list(impls)
        for impl in impls:
            if id(impl) not in allowed_impls:
                allowed_impls.add(id(impl))
                alarm("hook", f"a new implementation of {name} ({impl.plugin_name})",
                      defined_at(impl.function))

    def check():
        pm = watching.get("pm")
        if pm is None:
            return
        hookexec = getattr(pm, "_inner_hookexec", None)
        if hookexec is not watching["hookexec"]:
            once("pluggy's hook caller (PluginManager._inner_hookexec) replaced",
                 defined_at(hookexec))
        hook_calling = watching["hook_calling"]
        for name, caller in callers.items():
            if getattr(pm.hook, name, None) is not caller \
                    or getattr(caller, "_hookexec", None) != hook_calling:
                once(f"the hook {name} replaced")
            check_impls(name, caller)

    return configured, registered, collected, check


def _canaries(send, seed):
    """mend's own tests, placed among the project's with names the change cannot predict: one
    must pass, one fail, one error. `seed` decides their names, their module and their places:
    pytest-xdist runs a collection only if every worker's is the same, so its workers place the
    canaries of their controller's seed. Returns `place(items)`, `ids` (each canary's node id
    with the outcome it must have), `hand_on(workerinput)` and `found(collected_ids)`."""
    import random

    import pytest

    ids = {}
    key = "mend_canaries"

    def chosen():
        chance = random.Random(seed)

        def name():
            return "test_" + "".join(chance.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(10))

        names = {"pass": name(), "fail": name(), "error": name()}
        return chance, names, name()[5:]

    class Canary(pytest.Function):
        """A test of mend's: its failure is not worth pytest's traceback formatting, which reads
        source and lists fixtures."""

        def repr_failure(self, excinfo):
            return "failed"

        def _repr_failure_py(self, excinfo, style=None):
            return "failed"

    Canary.__name__ = Canary.__qualname__ = "Function"

    def made(module, name, function, callspec):
        # `from_parent` came with pytest 5.4; before it, a node was made by its constructor.
        if getattr(Canary, "from_parent", None) is None:
            return Canary(name, parent=module, callobj=function, callspec=callspec)
        return Canary.from_parent(module, name=name, callobj=function, callspec=callspec)

    def parameters_of(items, module):
        """The parameters of a test of `module` that no mark skips or expects to fail: an
        autouse fixture with `params` (markupsafe's, over its two implementations) is set up
        only for a test that has them, and a canary without them would error at setup."""
        for item in items:
            callspec = getattr(item, "callspec", None)
            if (callspec is not None and item.getparent(pytest.Module) is module
                    and not list(getattr(callspec, "marks", ()))):
                return callspec
        return None

    def test_modules(items):
        modules = []
        for item in items:
            module = item.getparent(pytest.Module)
            if module is not None and module not in modules:
                modules.append(module)
        return modules

    def told(placed):
        ids.update({nodeid: expected for expected, nodeid in placed.items()})
        send(event="canaries", **placed)

    def place(items):
        modules = test_modules(items)
        if not modules:
            send(event="canaries", **{"pass": None, "fail": None, "error": None})
            return
        chance, names, missing_fixture = chosen()
        module = chance.choice(modules)
        source = (
            f"def {names['pass']}():\n    pass\n"
            f"def {names['fail']}():\n    assert 1 + 1 == 3\n"
            f"def {names['error']}({missing_fixture}):\n    pass\n"
        )
        namespace = {"__name__": module.obj.__name__}
        # `path` came with pytest 7; 6.2 has only the py.path `fspath`.
        path = getattr(module, "path", None) or module.fspath
        exec(compile(source, str(path), "exec"), namespace)
        callspec = parameters_of(items, module)
        placed = {}
        for expected, name in names.items():
            canary = made(module, name, namespace[name], callspec)
            items.insert(chance.randint(0, len(items)), canary)
            placed[expected] = canary.nodeid
        told(placed)

    def hand_on(workerinput):
        workerinput[key] = seed

    def found(collected):
        """On xdist's controller, which collects nothing: the canaries a worker collected, told
        only when each is there once (none told: a passing run is then untrusted)."""
        placed = {}
        for expected, name in chosen()[1].items():
            matches = [nodeid for nodeid in collected if nodeid.rpartition("::")[2] == name]
            if len(matches) != 1:
                return
            placed[expected] = matches[0]
        told(placed)

    return place, ids, hand_on, found


def _handed_seed():
    """In a pytest-xdist worker, the seed of its controller's canaries (`None` elsewhere), taken
    out of what the controller sent (`workerinput`, a global of xdist's remote module, which is
    importing pytest's plugins now) before any code of the project runs and could read it."""
    import sys

    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__") == "__channelexec__":
            handed = frame.f_globals.get("workerinput")
            return handed.pop("mend_canaries", None) if isinstance(handed, dict) else None
        frame = frame.f_back
    return None


def _test_hooks(send, check, canary_ids, state):
    """The hooks pytest calls around each test: the checks as it starts, each phase's outcome
    sent as it ends, and the canaries kept out of the run's counts and exit status."""
    import pytest

    def put_back(session, kept):
        session.testsfailed = kept[0]
        # pytest 8 refuses to unset these through their properties (it warns and keeps them):
        # what the properties keep is set instead.
        own = vars(session)
        for name, value in (("shouldfail", kept[1]), ("shouldstop", kept[2])):
            if "_" + name in own:
                own["_" + name] = value
            else:
                setattr(session, name, value)

    def pytest_sessionstart(session):
        if session.config is state["config"]:
            state["session"] = session
            state["dsession"] = session.config.pluginmanager.getplugin("dsession")

    def pytest_runtest_logstart(nodeid, location):
        check()

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_logreport(report):
        send(event="test", id=report.nodeid, when=report.when, outcome=report.outcome,
             xfail=hasattr(report, "wasxfail"))
        session = state["session"]
        canary = report.nodeid in canary_ids and session is not None
        if canary:
            kept = (session.testsfailed, session.shouldfail, session.shouldstop)
        yield
        if canary:
            # A canary's outcome is mend's, never the run's: the exit status and -x, --maxfail
            # and --stepwise go by the project's own tests.
            put_back(session, kept)
            if report.failed and state["dsession"] is not None:
                state["dsession"].countfailures -= 1  # xdist's controller counts it next

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(report, config):
        if report.nodeid in canary_ids:
            return "", "", ""  # the terminal counts and lists only the project's tests
        return None

    return {name: value for name, value in locals().items()
            if name.startswith("pytest_") and callable(value)}


def _pytest_hooks(send, report_path, sha256, plugins, holders, canaries, forget_module):
    """The hooks pytest calls, each handing what it sees to the parts above."""
    import os

    import pytest

    configured, registered, collected, check_hooks = plugins
    check_hot, check_cold = holders
    place_canaries, canary_ids, hand_on, found = canaries
    state = {"config": None, "session": None, "dsession": None}

    def check():
        check_hot()
        check_hooks()

    def check_all():
        check()
        check_cold()

    def pytest_configure(config):
        # A pytest-xdist worker reports to its controller, which reports to mend.
        if hasattr(config, "workerinput") or state["config"] is not None:
            return
        state["config"] = config
        xmlpath = getattr(config.option, "xmlpath", None)
        if xmlpath:
            report_path[:] = [os.path.abspath(xmlpath), os.path.basename(xmlpath)]
        configured(config.pluginmanager)
        forget_module()
        check_all()

    # Only the arguments every pytest passes: `plugin_name` came with pytest 8.
    def pytest_plugin_registered(plugin, manager):
        registered(plugin, manager)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(session, config, items):
        if config is not state["config"]:
            return
        collected(config.pluginmanager)
        check_all()
        place_canaries(items)

    def pytest_collection_finish(session):
        if session.config is state["config"]:
            send(event="collected", count=len(session.items))

    # pytest-xdist's controller collects nothing: its workers place the canaries of its seed,
    # and it hears each worker's collection (the same in every one, or xdist runs none).
    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(node):
        hand_on(node.workerinput)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(node, ids):
        collected(node.config.pluginmanager)
        check_all()
        send(event="collected", count=len(ids))
        found(ids)

    def pytest_collectreport(report):
        if report.failed:
            send(event="uncollected", id=report.nodeid)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(session, exitstatus):
        if session.config is not state["config"]:
            return
        check_all()
        send(event="finished", exitstatus=int(exitstatus))

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(config):
        if config is not state["config"]:
            return
        digest = None
        if report_path[0] and os.path.isfile(report_path[0]):
            with open(report_path[0], "rb") as report:
                digest = sha256(report.read()).hexdigest()
        # The channel stays open until the process ends: what exit hooks do is still heard.
        send(event="report", sha256=digest)

    hooks = {name: value for name, value in locals().items()
             if name.startswith("pytest_") and callable(value)}
    hooks.update(_test_hooks(send, check, canary_ids, state))
    return hooks


def _worker_hooks(canaries):
    """A pytest-xdist worker's: it places its controller's canaries and keeps them out of its
    own session's counts (-x, --maxfail). Only the controller speaks to mend: it hears every
    report the workers send it."""
    import pytest

    place_canaries, canary_ids, _, _ = canaries
    state = {"config": None, "session": None, "dsession": None}

    def pytest_configure(config):
        state["config"] = config

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(session, config, items):
        place_canaries(items)

    hooks = _test_hooks(lambda **fields: None, lambda: None, canary_ids, state)
    hooks.update(pytest_configure=pytest_configure,
                 pytest_collection_modifyitems=pytest_collection_modifyitems)
    return hooks


def _skip_hooks(send, places):
    """A skip raised by the code under test: the test did not run, and neither pytest's marks
    nor the test's own code skipped it. Told with the place it was raised, so the verdict can
    hold it against the change (a skip is no pass) and show where."""
    import os
    import unittest

    import pytest

    kind, place = places[0], places[1]
    own = ("project", "site")

    def raiser(tb):
        """The innermost frame of code that is neither pytest's nor Python's: who called skip."""
        found = None
        while tb is not None:
            if kind(tb.tb_frame.f_code.co_filename) in own:
                found = tb.tb_frame
            tb = tb.tb_next
        return found

    def tests_own(filename, item):
        module = getattr(getattr(item, "module", None), "__file__", None)
        if module is None or os.path.basename(filename) == "conftest.py":
            return True
        # The test module, and the helpers beside it, are the tests'.
        return os.path.dirname(os.path.abspath(filename)) == os.path.dirname(os.path.abspath(module))

    skips = (pytest.skip.Exception, unittest.SkipTest)

    # First among the first (registered after pytest's own plugins): read before pytest's
    # unittest plugin turns a unittest.SkipTest into a skip of its own, whose traceback starts
    # in pytest. A plain hook, not a wrapper: it costs a test a call, not a generator.
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(item, call):
        excinfo = call.excinfo
        if excinfo is None or not isinstance(excinfo.value, skips):
            return None
        frame = raiser(excinfo.tb)
        if frame is not None and not tests_own(frame.f_code.co_filename, item):
            send(event="skip_raised", id=item.nodeid, at=place(frame))
        return None

    return {"pytest_runtest_makereport": pytest_runtest_makereport}


def _imported_helpers(places, alarm):
    """The helpers the test modules import from outside the project (numpy.testing's asserts,
    pandas.testing's, any package's or Python's own), found from each test module's import
    statements as its first test starts: a function taken from an installed package must run
    that package's code, and neither the name nor the function's code may change while the tests
    run. A module the tests import whole, and the modules it holds (`np.testing` of `import
    numpy as np`), are watched for their functions the same way. Returns the hooks and the
    check made with pytest's own at the end (`check_cold`)."""
    import ast
    import sys
    import types

    from pytest import hookimpl

    kind, defined_at = places[0], places[3]
    # pytest and pluggy are installed packages too (`kind` names them apart for other checks):
    # `import pytest` in a test module takes pytest's own functions, not the project's.
    outside = ("site", "stdlib", "pytest")
    seen_modules = {}  # test module name -> (module, {name: (value, code)}, ids in `wholes`)
    wholes = {}  # id(module) -> (module, {name: (value, code)}, vars(module) as first seen)

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
            with open(module.__file__, "rb") as source:
                tree = ast.parse(source.read())
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
        if id(module) in wholes or not isinstance(name, str) or not installed(name):
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
        wholes[id(module)] = (module, helpers, dict(namespace))
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
        return module, own, [id(value) for value in modules if id(value) in wholes]

    def compare(holder, helpers, now):
        for name, (value, code) in list(helpers.items()):
            current = now.get(name)
            if current is not value or code_of(current) is not code:
                place = defined_at(current) if code_of(current) is not None else None
                alarm("replaced", f"{name} (as {holder.__name__} has it) replaced", place)
                helpers.pop(name)  # told once

    @hookimpl(tryfirst=True)
    def pytest_runtest_setup(item):
        module = getattr(item, "module", None)
        if not isinstance(module, types.ModuleType) or not getattr(module, "__file__", None):
            return
        watched = seen_modules.get(module.__name__)
        if watched is None:
            seen_modules[module.__name__] = watch(module)
            return
        compare(watched[0], watched[1], vars(watched[0]))
        for index in watched[2]:
            holder, helpers, seen = wholes[index]
            now = vars(holder)
            if now != seen:  # the whole dictionary at C speed; entry by entry when it differs
                compare(holder, helpers, now)
                wholes[index] = (holder, helpers, dict(now))

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
    that no registered profile holds (set behind the profiles' back). Returns the hooks."""
    import os
    import sys

    kind, place, responsible = places[0], places[1], places[2]
    through = frozenset({"stdlib", "site", "pytest", "witness"})
    state = {"settings": None, "variable": None}
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

    def wrap(module):
        settings = getattr(module, "settings", None)
        if not isinstance(settings, type):
            return
        for name in ("register_profile", "load_profile"):
            original = vars(settings).get(name)
            if isinstance(original, staticmethod):
                type.__setattr__(settings, name, wrapped(settings, name, original.__func__))
        state["settings"] = settings
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

    def pytest_runtest_setup(item):
        settings, variable = state["settings"], state["variable"]
        if settings is None or variable is None:
            return
        value = getattr(variable, "value", None)
        profiles = getattr(settings, "_profiles", {})
        if value is not None and value is not profiles.get(getattr(settings, "_current_profile",
                                                                    None)):
            alarm("replaced", "Hypothesis's settings in effect are no registered profile's")

    return {"pytest_runtest_setup": pytest_runtest_setup}


def _both_hooks(first, second):
    """One pytest hook that calls two (pytest knows a plugin's hook by its name only once), first
    among the hooks as the helpers' check is."""
    from pytest import hookimpl

    @hookimpl(tryfirst=True)
    def pytest_runtest_setup(item):
        first(item)
        second(item)

    return pytest_runtest_setup


def _both(first, second):
    def both():
        first()
        second()

    return both


def _install(module_name, module_file):
    """Wires the parts together, the audit hook first; returns the pytest hooks (none when mend
    did not ask for a witness)."""
    import os
    import sys

    path = os.environ.pop("MEND_WITNESS", None)
    if not path:
        seed = _handed_seed()
        return {} if seed is None else _worker_hooks(_canaries(lambda **fields: None, seed))
    sha256 = _sha256_constructor()
    send, channel_fd = _channel(path, sha256)
    runner = _runner()
    send(event="runner", **runner)
    unchecked = _told_once(send, "unchecked")
    places = _places(os.path.normcase(os.path.abspath(module_file)))
    alarm = _alarms(send)
    report_path = [None, None]  # the JUnit report: its absolute path, its file name
    touches, ours = _ours(path, channel_fd, report_path)
    watched_prefixes = ("_pytest", "pytest", "pluggy", module_name)
    describe = _watched_events(touches, ours, watched_prefixes)
    audit, heard = _audit_hook(places, alarm, describe)
    add_audit_hook = getattr(sys, "addaudithook", None)  # PEP 578: Python 3.8 and later
    if add_audit_hook is None:
        check_stand_ins = _stand_ins(heard, alarm, places[3])
        unchecked("the audit hook (frame reads through tracebacks, generators and coroutines, "
                  "ctypes, the report or the socket opened, moved or removed other than by "
                  "open, io.open or os.open)",
                  f"Python {runner['python']} has no audit hooks (they came with 3.8); "
                  "sys._getframe, sys._current_frames, sys.settrace, sys.setprofile, gc's "
                  "object walks and open, io.open and os.open are watched in their stead")
    else:
        add_audit_hook(audit)
        check_stand_ins = None
    holders = _holders(alarm, places[3], _finder(), unchecked, check_stand_ins)
    helper_hooks, check_helpers = _imported_helpers(places, alarm)
    holders = (holders[0], _both(holders[1], check_helpers))
    plugins = _plugins(places, alarm, unchecked)
    canaries = _canaries(send, int.from_bytes(os.urandom(8), "big"))

    def forget_module():
        sys.modules.pop(module_name, None)

    hooks = _pytest_hooks(send, report_path, sha256, plugins, holders, canaries, forget_module)
    hooks.update(_skip_hooks(send, places))
    hooks.update(helper_hooks)
    profile_hooks = _hypothesis_profiles(places, alarm)
    setup = hooks.get("pytest_runtest_setup")
    hooks["pytest_runtest_setup"] = (profile_hooks["pytest_runtest_setup"] if setup is None
                                     else _both_hooks(setup, profile_hooks["pytest_runtest_setup"]))
    return hooks


def _keep_only(namespace, hooks):
    """Empties the module of everything but `hooks`: no closure reads it, and what is left for
    code to rebind is what pytest already holds."""
    for name in [name for name in namespace if not name.startswith("__")]:
        del namespace[name]
    namespace.update(hooks)


_keep_only(globals(), _install(__name__, __file__))
