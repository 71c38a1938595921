"""mend's witness: a pytest plugin that tells mend, as things happen, what pytest saw.

mend loads it with `-p mend_witness` for the independent test runs and listens on the socket
named by MEND_WITNESS. pytest imports `-p` plugins before any conftest.py, entry-point plugin or
module under test, so what the witness captures at import is pytest's own.

Its state is out of the reach of the code under test: everything it judges with lives in the
closures of `_witness()` and in an audit hook (PEP 578), which nothing can remove; the module
leaves `sys.modules` once pytest has registered it; and what it sees is sent at once, so code
that silences it later cannot take back what was already said.

The first line is `{"event": "start", "key": HEX}`; every later line is `MAC JSON`, where MAC is
the HMAC-SHA256 (first 32 hex digits) under that key of `SEQ JSON`, SEQ counting lines from 1:
a line written to the socket by anyone else does not carry a valid MAC. The events:
  {"event": "collected", "count": N}         the tests pytest is about to run (canaries too)
  {"event": "canaries", "pass": ID, "fail": ID, "error": ID}
                                             mend's own tests among the project's, each with
                                             the outcome it must have; the ids are null when
                                             there is no Python test module to put them in
  {"event": "test", "id": ..., "when": ..., "outcome": ..., "xfail": bool}
                                             each phase (setup, call, teardown) of each test
  {"event": "uncollected", "id": ...}        a file it could not collect
  {"event": "alarm", "kind": ..., "what": ..., "where": "FILE:LINE" | null}
                                             something reached into the test run (see KINDS)
  {"event": "finished", "exitstatus": N}     the session ended
  {"event": "report", "sha256": ... | null}  the digest of the JUnit report as pytest left it
mend compares what it heard with the report: a report changed afterwards, tests missing from
it, a canary with another outcome, an alarm, or a second voice on the socket make the run a
non-pass.
"""


def _witness():
    import builtins
    import hashlib
    import hmac
    import json
    import os
    import random
    import secrets
    import socket
    import sys
    import sysconfig
    import threading

    import _pytest.config
    import _pytest.junitxml
    import _pytest.main
    import _pytest.nodes
    import _pytest.outcomes
    import _pytest.python
    import _pytest.reports
    import _pytest.runner
    import _pytest.skipping
    import _pytest.terminal
    import pluggy
    import pluggy._callers
    import pluggy._hooks
    import pluggy._manager
    import pytest

    path = os.environ.pop("MEND_WITNESS", None)
    if not path:
        return {}

    module_name = __name__
    own_file = os.path.normcase(os.path.abspath(__file__))
    key = secrets.token_bytes(32)
    lock = threading.Lock()
    channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    channel.connect(path)
    channel_fd = channel.fileno()
    channel.sendall((json.dumps({"event": "start", "key": key.hex()}) + "\n").encode())
    sent = [0]

    def send(**fields):
        line = json.dumps(fields)
        with lock:
            sent[0] += 1
            mac = hmac.new(key, f"{sent[0]} {line}".encode(), hashlib.sha256).hexdigest()
            try:
                channel.sendall(f"{mac[:32]} {line}\n".encode())
            except OSError:
                pass

    # ----- where code comes from -------------------------------------------------------------

    def prefixes(*names):
        found = set()
        for name in names:
            value = sysconfig.get_paths().get(name)
            if value:
                found.add(os.path.normcase(os.path.realpath(value)) + os.sep)
                found.add(os.path.normcase(os.path.abspath(value)) + os.sep)
        return tuple(found)

    stdlib = prefixes("stdlib", "platstdlib")
    pytest_dirs = tuple(
        os.path.normcase(os.path.dirname(os.path.abspath(module.__file__))) + os.sep
        for module in (_pytest, pluggy)
    )
    config_file = os.path.normcase(os.path.abspath(_pytest.config.__file__))
    kinds = {}

    def kind(filename):
        """stdlib, pytest (pytest and pluggy), site (installed packages), witness or project."""
        found = kinds.get(filename)
        if found is None:
            name = os.path.normcase(filename)
            if name.startswith("<frozen"):
                found = "stdlib"
            elif name == own_file:
                found = "witness"
            elif name.startswith(pytest_dirs) or name == config_file:
                found = "pytest"
            elif os.sep + "site-packages" + os.sep in name or os.sep + "dist-packages" + os.sep in name:
                found = "site"
            elif name.startswith(stdlib):
                found = "stdlib"
            elif os.sep + "bin" + os.sep in name and not name.endswith(".py"):
                found = "site"  # a console script (bin/pytest) of an installed package
            else:
                found = "project"
            kinds[filename] = found
        return found

    root = os.getcwd() + os.sep

    def place(frame):
        filename = frame.f_code.co_filename
        if filename.startswith(root):
            filename = filename[len(root):]
        return f"{filename}:{frame.f_lineno}"

    def responsible(frame, through):
        """The frame an event is owed to: walking out past frames whose kind is in `through`,
        the first other one. `None` when only such frames were left (a thread, an exit hook)."""
        while frame is not None:
            if kind(frame.f_code.co_filename) not in through:
                return frame
            frame = frame.f_back
        return None

    alarms = set()

    def alarm(kind_, what, where=None):
        if (kind_, what, where) not in alarms:  # once each: a loop must not flood the socket
            alarms.add((kind_, what, where))
            send(event="alarm", kind=kind_, what=what, where=where)

    # ----- the audit hook --------------------------------------------------------------------

    report_path = [None]
    watched_prefixes = ("_pytest", "pytest", "pluggy", module_name)
    frame_reads = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
    # Events owed to whoever called the standard library that raised them.
    through_stdlib = frozenset({"stdlib"})
    # Frame access: the standard library's own (logging, typing, namedtuple) is its business;
    # inspect only hands frames on to its caller.
    inspect_file = os.path.normcase(os.path.join(os.path.dirname(os.__file__), "inspect.py"))
    WATCHED = frozenset({
        "gc.get_objects", "gc.get_referrers", "gc.get_referents",
        "sys._getframe", "sys._current_frames", "sys.settrace", "sys.setprofile",
        "sys.addaudithook", "object.__getattr__", "object.__setattr__", "object.__delattr__",
        "ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.cdata",
        "ctypes.string_at", "ctypes.wstring_at", "ctypes.addressof",
        "open", "os.rename", "os.remove", "os.truncate", "os.link", "os.symlink",
        "socket.connect",
    })
    busy = [False]

    def touches_ours(value):
        if value is None:
            return False
        if isinstance(value, int) and not isinstance(value, bool):
            return value == channel_fd
        try:
            name = os.fsdecode(value)
        except TypeError:
            return False
        return name in (path, report_path[0]) or (
            report_path[0] is not None and os.path.abspath(name) == report_path[0]
        )

    def ours(value):
        if isinstance(value, int) or os.fsdecode(value) == path:
            return "mend's witness socket"
        return "the JUnit report"

    def owner_module(obj):
        return getattr(obj, "__module__", None) or ""

    def describe(event, args):
        """What a watched event did, in words; `None` for one that does not matter."""
        if event == "object.__getattr__":
            return f"a frame read ({args[1]})" if args[1] in frame_reads else None
        if event in ("object.__setattr__", "object.__delattr__"):
            if not owner_module(args[0]).startswith(watched_prefixes):
                return None
            return f"{event} {getattr(args[0], '__qualname__', args[0])!r}.{args[1]}"
        if event == "open":
            return f"{ours(args[0])} opened" if touches_ours(args[0]) else None
        if event in ("os.rename", "os.remove", "os.truncate", "os.link", "os.symlink"):
            touched = [arg for arg in args[:2] if touches_ours(arg)]
            return f"{event} of {ours(touched[0])}" if touched else None
        if event == "socket.connect":
            return "a connection to mend's witness socket" if touches_ours(args[1]) else None
        if event == "ctypes.dlopen" and args[0] is None:
            return None  # ctypes opening the interpreter itself as it is imported
        return event

    def judge(event, what, caller):
        if event in ("sys._getframe", "object.__getattr__"):
            frame = caller
            while frame is not None and os.path.normcase(frame.f_code.co_filename) == inspect_file:
                frame = frame.f_back
            if frame is not None and kind(frame.f_code.co_filename) == "project":
                alarm("frame", what, place(frame))
            return
        frame = responsible(caller, through_stdlib)
        if frame is None:
            if event in ("sys.settrace", "sys.setprofile"):
                return  # threading starting a thread with the trace function it was given
            alarm("audit", what, None)
        elif kind(frame.f_code.co_filename) == "project":
            alarm("audit", what, place(frame))

    def audit(event, args):
        if event not in WATCHED or busy[0]:
            return
        busy[0] = True
        try:
            what = describe(event, args)
            if what is not None:
                judge(event, what, sys._getframe(1))
        except Exception:
            pass
        finally:
            busy[0] = False

    sys.addaudithook(audit)

    # ----- what decides outcomes, as pytest and pluggy were at import -------------------------

    classes = [
        _pytest.python.Function, _pytest.python.Module, _pytest.nodes.Node, _pytest.nodes.Item,
        _pytest.reports.BaseReport, _pytest.reports.TestReport, _pytest.reports.CollectReport,
        _pytest.runner.CallInfo, _pytest.runner.SetupState, _pytest.main.Session,
        _pytest.junitxml.LogXML, _pytest.terminal.TerminalReporter, _pytest.config.Config,
        _pytest.config.PytestPluginManager, pluggy.PluginManager, pluggy.HookCaller,
        pluggy.HookImpl, _pytest.outcomes.OutcomeException,
    ]
    # Checked as each test starts: what runs a test and makes and carries its report. The rest
    # is checked once collection is over and when the session ends.
    per_test = [_pytest.python.Function, _pytest.reports.TestReport, _pytest.runner.CallInfo,
                pluggy.HookCaller, pluggy.HookImpl, _pytest.runner, pluggy._callers]
    modules = [builtins, _pytest.python, _pytest.skipping, _pytest.outcomes, _pytest.reports,
               _pytest.main, _pytest.junitxml, pluggy._hooks, pluggy._manager]

    # Each holder with its entries as they were at import; compared as whole dictionaries (at C
    # speed), and only when they differ entry by entry.
    hot = [(holder, dict(vars(holder))) for holder in per_test]
    cold = [(holder, dict(vars(holder))) for holder in classes + modules if holder not in per_test]
    reported = set()

    scalars = (bool, int, float, str, bytes, type(None))

    def pytests_own(value):
        """pytest's own doing: what it sets on its classes as it runs (the legacy-path plugin's
        properties, a flag that a warning was shown)."""
        if isinstance(value, scalars):
            return True
        for inner in ("fget", "__func__", "__wrapped__"):
            value = getattr(value, inner, None) or value
        return owner_module(value).startswith(("_pytest", "pytest", "pluggy"))

    def defined_at(value):
        code = getattr(getattr(value, "__func__", value), "__code__", None)
        if code is None:
            return None
        filename = code.co_filename
        if filename.startswith(root):
            filename = filename[len(root):]
        return f"{filename}:{code.co_firstlineno}"

    def check_replaced(watched):
        for index, (holder, seen) in enumerate(watched):
            now = vars(holder)
            if now == seen:
                continue
            label = f"{getattr(holder, '__module__', '') or ''}.{holder.__qualname__}" \
                if isinstance(holder, type) else holder.__name__
            for name, value in seen.items():
                current = now.get(name, reported)
                if current is not value and not (current is not reported and pytests_own(current)):
                    alarm("replaced", f"{label.lstrip('.')}.{name} replaced", defined_at(current))
            if isinstance(holder, type):  # names added to a module (gettext's `_`) are not counted
                added = sorted(name for name, value in now.items()
                               if name not in seen and not pytests_own(value))
                if added:
                    alarm("replaced", f"{label.lstrip('.')}: {', '.join(added)} added")
            # Told once: later checks compare with what is there now.
            watched[index] = (holder, dict(now))

    # ----- plugins and hooks -----------------------------------------------------------------

    state = {"config": None, "pm": None, "session": None, "canaries": {}}
    allowed_impls = set()
    allowed_plugins = set()
    outcome_prefixes = ("pytest_runtest_", "pytest_collect", "pytest_report_", "pytest_session",
                        "pytest_pyfunc_call", "pytest_terminal_summary", "pytest_fixture_",
                        "pytest_deselected", "pytest_itemcollected", "pytest_unconfigure",
                        "pytest_make_collect_report", "pytest_pycollect_makeitem")
    callers = {}
    seen_impls = {}
    through_registration = frozenset({"stdlib", "pytest", "witness"})

    def outcome_hooks(pm):
        return {name: caller for name, caller in vars(pm.hook).items()
                if name.startswith(outcome_prefixes)}

    def allow(plugin, pm):
        allowed_plugins.add(id(plugin))
        for caller in pm.get_hookcallers(plugin) or []:
            for impl in caller.get_hookimpls():
                if impl.plugin is plugin:
                    allowed_impls.add(id(impl))

    def shipped_by_project(pm):
        """Entry-point plugins pytest loaded from package metadata inside the project (a
        `.dist-info` beside the code): an installed package keeps its metadata in site-packages."""
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

    def check_hooks():
        pm = state["pm"]
        if pm is None:
            return
        if pm._inner_hookexec is not state["hookexec"]:
            what = "pluggy's hook caller (PluginManager._inner_hookexec) replaced"
            if what not in reported:
                reported.add(what)
                alarm("hook", what, defined_at(pm._inner_hookexec))
        hook_calling = state["hook_calling"]
        for name, caller in callers.items():
            if getattr(pm.hook, name, None) is not caller or caller._hookexec != hook_calling:
                what = f"the hook {name} replaced"
                if what not in reported:
                    reported.add(what)
                    alarm("hook", what)
            # pluggy's own list where it has one (1.1 and later), else a copy of it.
            impls = getattr(caller, "_hookimpls", None) or caller.get_hookimpls()
            if impls == seen_impls.get(name):
                continue  # the same implementations as last time, compared at C speed
            seen_impls[name] = list(impls)
            for impl in impls:
                if id(impl) not in allowed_impls:
                    allowed_impls.add(id(impl))
                    alarm("hook", f"a new implementation of {name} ({impl.plugin_name})",
                          defined_at(impl.function))

    def check():
        check_replaced(hot)
        check_hooks()

    def check_all():
        check()
        check_replaced(cold)

    # ----- canaries --------------------------------------------------------------------------

    chance = random.Random(secrets.randbits(64))

    def canary_name():
        return "test_" + "".join(chance.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(10))

    class Canary(pytest.Function):
        """A test of mend's: its failure is not worth pytest's traceback formatting, which reads
        source and lists fixtures."""

        def repr_failure(self, excinfo):
            return "failed"

        def _repr_failure_py(self, excinfo, style=None):
            return "failed"

    Canary.__name__ = Canary.__qualname__ = "Function"

    def place_canaries(items):
        modules = []
        for item in items:
            module = item.getparent(pytest.Module)
            if module is not None and module not in modules:
                modules.append(module)
        if not modules:
            send(event="canaries", **{"pass": None, "fail": None, "error": None})
            return
        module = chance.choice(modules)
        names = {"pass": canary_name(), "fail": canary_name(), "error": canary_name()}
        missing_fixture = canary_name()[5:]
        source = (
            f"def {names['pass']}():\n    pass\n"
            f"def {names['fail']}():\n    assert 1 + 1 == 3\n"
            f"def {names['error']}({missing_fixture}):\n    pass\n"
        )
        namespace = {"__name__": module.obj.__name__}
        exec(compile(source, str(module.path), "exec"), namespace)
        ids = {}
        for expected, name in names.items():
            canary = Canary.from_parent(module, name=name, callobj=namespace[name])
            items.insert(chance.randint(0, len(items)), canary)
            ids[expected] = canary.nodeid
        state["canaries"] = {nodeid: expected for expected, nodeid in ids.items()}
        send(event="canaries", **ids)

    # ----- the hooks -------------------------------------------------------------------------

    def pytest_configure(config):
        # A pytest-xdist worker reports to its controller, which reports to mend.
        if hasattr(config, "workerinput") or state["config"] is not None:
            return
        state["config"] = config
        pm = config.pluginmanager
        state["pm"] = pm
        state["hookexec"] = pm._inner_hookexec
        state["hook_calling"] = pm._hookexec
        xmlpath = getattr(config.option, "xmlpath", None)
        report_path[0] = os.path.abspath(xmlpath) if xmlpath else None
        for plugin in pm.get_plugins():
            allow(plugin, pm)
        shipped_by_project(pm)
        callers.update(outcome_hooks(pm))
        sys.modules.pop(module_name, None)
        check_all()

    def pytest_plugin_registered(plugin, plugin_name, manager):
        if manager is not state["pm"]:
            return
        frame = responsible(sys._getframe(1), through_registration)
        if frame is None or kind(frame.f_code.co_filename) == "project":
            alarm("plugin", f"the plugin {plugin_name!r} registered after pytest was configured",
                  place(frame) if frame is not None else None)
            return
        allow(plugin, manager)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(session, config, items):
        if config is not state["config"]:
            return
        state["session"] = session
        for name, caller in outcome_hooks(state["pm"]).items():
            callers.setdefault(name, caller)  # hooks that plugins loaded since declared
        check_all()
        place_canaries(items)

    def pytest_collection_finish(session):
        if session.config is state["config"]:
            send(event="collected", count=len(session.items))

    def pytest_collectreport(report):
        if report.failed:
            send(event="uncollected", id=report.nodeid)

    def pytest_runtest_logstart(nodeid, location):
        check()

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_logreport(report):
        send(event="test", id=report.nodeid, when=report.when, outcome=report.outcome,
             xfail=hasattr(report, "wasxfail"))
        session = state["session"]
        canary = report.nodeid in state["canaries"] and session is not None
        if canary:
            kept = (session.testsfailed, session.shouldfail, session.shouldstop)
        yield
        if canary:
            # A canary's outcome is mend's, never the run's: the exit status and -x, --maxfail
            # and --stepwise go by the project's own tests.
            session.testsfailed, session.shouldfail, session.shouldstop = kept

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(report, config):
        if report.nodeid in state["canaries"]:
            return "", "", ""  # the terminal counts and lists only the project's tests
        return None

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
                digest = hashlib.sha256(report.read()).hexdigest()
        # The channel stays open until the process ends: what exit hooks do is still heard.
        send(event="report", sha256=digest)

    return {
        name: value for name, value in locals().items()
        if name.startswith("pytest_") and callable(value)
    }


globals().update(_witness())
del _witness
