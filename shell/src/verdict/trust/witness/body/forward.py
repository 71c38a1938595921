# What pytest hands the witness, handed on to its core: the only functions pytest holds of it.


def _canaries_off_the_terminal(canary_ids):
    """The hook that keeps mend's canaries off the terminal, which counts and lists only the
    project's tests: it holds their ids and nothing else."""
    import pytest

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(report):
        if report.nodeid in canary_ids:
            return "", "", ""
        return None

    return pytest_report_teststatus


def _kept_off_the_terminal(canary_ids):
    """The canaries' terminal hook (`_canaries_off_the_terminal`) on a plugin of its own,
    registered only while canaries run: pytest asks every implementation of the hook of every
    phase of every test, three calls a test, for what only mend's three tests need. Returns the
    plugin, its hook, `placed(ids)`, told the ids in the order pytest will run them as
    collection ends, `shown(nodeid, manager, keep)`, told as a canary starts and as each test
    starts while the plugin is registered (`showing`, the last returned, holds the manager it is
    registered with, else `None`): a canary's start registers the plugin, and the next start
    of another test unregisters it, unless another canary runs within `nearby` tests (registering and unregistering it cost about what
    fifty tests' calls of the hook do: 0.8 M instructions under pytest 9.2, 0.6 M under 8.4 on
    Python 3.9, 0.2 M under 6.2, against 14 K a test), or `keep` (pytest-xdist's controller,
    whose workers' tests start and report interleaved: once registered, it stays).
    A plugin that will not register or unregister leaves the canaries on the terminal, and
    nothing else: what mend hears goes by another hook."""
    hook = _canaries_off_the_terminal(canary_ids)

    class Canaries:
        # No dictionary of its own, and hashable, as pytest's fixture manager asks of every
        # plugin registered. A hook added to the class (Python audits no write of a method) is
        # no hook of the witness's: registered by anyone, only this function is allowed
        # (`_plugins`' `registered`), and anything else it lists is a new implementation.
        __slots__ = ()
        pytest_report_teststatus = staticmethod(hook)

        def __dir__(self):
            # What pluggy and pytest's fixture manager look through as it is registered: the
            # names `object` has besides cost pytest 9.2 a check each for a fixture.
            return ["pytest_report_teststatus"]

    plugin = Canaries()
    name = "mend_witness_canaries"
    nearby = 50
    registered_with = [None]
    lingering = [False]  # whether another canary runs soon after the last one started
    soon_followed = set()  # the canaries another one follows within `nearby` tests

    def placed(ids):
        at = []
        for nodeid in canary_ids:
            try:
                at.append((ids.index(nodeid), nodeid))
            except ValueError:
                pass
        at.sort()
        soon_followed.clear()
        soon_followed.update(nodeid for (here, nodeid), (there, _) in zip(at, at[1:])
                             if there - here <= nearby)

    def shown(nodeid, manager, keep):
        if nodeid in canary_ids:
            lingering[0] = nodeid in soon_followed
            if registered_with[0] is None:
                registered_with[0] = manager
                try:
                    manager.register(plugin, name)
                except Exception:
                    pass
        elif registered_with[0] is not None and not keep and not lingering[0]:
            try:
                registered_with[0].unregister(plugin)
            except Exception:
                pass
            registered_with[0] = None

    return plugin, hook, placed, shown, registered_with


def _forwarders(emit, key):
    """The witness's pytest hooks, as pytest registers them: each hands what pytest passed it to
    the witness's core with `emit("mend_witness", hook, key, *arguments)`, and holds nothing
    else. `key`: an object only these hooks hold, which tells the core that one of them handed
    the arguments over (a test's start, which tells nothing of an outcome, goes without it).

    Why: whatever pytest holds can be reached by the code under test (the plugin manager hangs
    off the assertion rewriter on `sys.meta_path`), and a function's closure cells can be read
    and written with no audit event. A hook that closed over the witness's channel would hand its
    key, its socket and its state to anyone who walked them. So the channel, the checks and
    every judgement live in the audit hook's closure, which no object refers to, and these
    hooks reach it through `emit`: `sys.audit`, bound as a keyword-only default, which Python
    audits a write to (as it does a write to `__code__`); the dictionary that holds it is
    reached only by reading `__kwdefaults__`, which Python audits too, and the audit hook tells
    when the code under test does (`_watched_events`). (Keyword-only: pluggy 1.7 builds a
    dictionary of a hook implementation's other defaults on every call.) The key is held the
    same way: the core takes a hook's arguments only with it, from these functions called by
    pluggy's own hook calling (`_core`). Where Python has no audit hooks, `emit` is the core's
    own entry, and the verdict says this check is not made.

    The filters here (a passed setup, a passed teardown after its call, a call that raised
    nothing) spare a passing test all but two hand-overs: its start and its call's report. What
    they hold beyond `emit` (the last test whose call was reported) can only make the witness
    hear less of a pass, never more. The one hook that answers pytest, which keeps mend's
    canaries off the terminal, is registered apart while they run (`_kept_off_the_terminal`)."""
    import pytest

    def pytest_configure(config, *, _emit=emit, _key=key):
        _emit("mend_witness", "pytest_configure", _key, config)

    def pytest_plugin_registered(plugin, manager, *, _emit=emit, _key=key):
        _emit("mend_witness", "pytest_plugin_registered", _key, plugin, manager)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(session, config, items, *, _emit=emit, _key=key):
        _emit("mend_witness", "pytest_collection_modifyitems", _key, session, config, items)

    def pytest_collection_finish(session, *, _emit=emit, _key=key):
        _emit("mend_witness", "pytest_collection_finish", _key, session)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(node, *, _emit=emit, _key=key):
        _emit("mend_witness", "pytest_configure_node", _key, node)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(node, ids, *, _emit=emit, _key=key):
        _emit("mend_witness", "pytest_xdist_node_collection_finished", _key, node, ids)

    def pytest_collectreport(report, *, _emit=emit, _key=key):
        if report.failed or report.skipped:
            _emit("mend_witness", "pytest_collectreport", _key, report)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(session, exitstatus, *, _emit=emit, _key=key):
        _emit("mend_witness", "pytest_sessionfinish", _key, session, exitstatus)

    def pytest_sessionstart(session, *, _emit=emit, _key=key):
        _emit("mend_witness", "pytest_sessionstart", _key, session)

    def pytest_runtest_logstart(nodeid, location, *, _emit=emit):
        _emit("mend_witness", "pytest_runtest_logstart", nodeid)

    # First among the first (registered after pytest's own plugins): read before pytest's
    # unittest plugin turns a unittest.SkipTest into a skip of its own.
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(item, call, *, _emit=emit, _key=key):
        if call.excinfo is not None:
            _emit("mend_witness", "pytest_runtest_makereport", _key, item, call)

    # Around every other implementation: the core sends the phase before them, and puts back the
    # counts a canary's failure changed after them. A new-style wrapper (pluggy 1.1 and later)
    # costs a report half what an old-style one does. A passed report is handed over only where
    # it tells mend more than its test's other phases do (mend keeps a test's worst phase): a
    # passed call does; a passed setup does not, since a call or teardown always follows it; a
    # passed teardown does only when its test's call was not reported (`--setup-only` runs
    # none), and then says the test ran. `_called` holds the last test whose passed call was.
    # (The filter is written out in the hook, not called: a call costs a test's three reports
    # more than the filter does.) One body serves both styles: an old-style wrapper's `yield` is given pluggy's outcome and
    # its return value is ignored; a new-style one's returns the result, and what the other
    # implementations raise comes through it.
    try:
        around_the_rest = pytest.hookimpl(wrapper=True, tryfirst=True)
    except TypeError:
        around_the_rest = pytest.hookimpl(hookwrapper=True, tryfirst=True)

    @around_the_rest
    def pytest_runtest_logreport(report, *, _emit=emit, _key=key, _called=[None]):
        if report.outcome != "passed":
            _emit("mend_witness", "pytest_runtest_logreport", _key, report)
            try:
                return (yield)
            finally:
                _emit("mend_witness", "counted", _key, report)
        when = report.when
        if when == "call":
            _called[0] = report.nodeid
            _emit("mend_witness", "pytest_runtest_logreport", _key, report)
        elif when == "teardown" and report.nodeid != _called[0]:
            _emit("mend_witness", "pytest_runtest_logreport", _key, report)
        return (yield)

    return {name: value for name, value in locals().items()
            if name.startswith("pytest_") and callable(value)}
