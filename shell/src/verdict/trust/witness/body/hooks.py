# The pytest hooks that hear each test, the xdist workers and skips raised by the code under test.


def _test_hooks(send, hold, check, canary_ids, state):
    """The hooks pytest calls around each test: the checks as it starts, each phase's outcome
    sent as it ends (a passed one held back, to go with the next lines), and the canaries kept
    out of the run's counts and exit status."""
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

    told = set()  # the tests in progress that a line was sent for

    def heard(report):
        """Sends the report's phase; for a failed or skipped canary's, returns the session's
        counts as they are before pytest counts it (`None` for any other: a passed phase
        changes none of them)."""
        when, outcome = report.when, report.outcome
        # A passed phase changes no test's outcome (mend keeps a test's worst phase): a passed
        # setup is left to the call or teardown after it, which pytest always reports, and a
        # passed teardown is sent only when nothing was sent for its test yet (`--setup-only`
        # runs no call). A passing test costs one sealed line, not three, and its passed setup
        # not even its node id (a property that builds its string in pytest 9).
        if outcome == "passed":
            if when == "setup":
                return None
            nodeid = report.nodeid
            if when == "teardown" and nodeid in told:
                told.discard(nodeid)
                return None
        else:
            nodeid = report.nodeid
        (hold if outcome == "passed" else send)(event="test", id=nodeid, when=when,
                                                  outcome=outcome,
                                                  xfail=hasattr(report, "wasxfail"))
        if when == "teardown":
            told.discard(nodeid)
        else:
            told.add(nodeid)
        session = state["session"]
        if outcome == "passed" or session is None or nodeid not in canary_ids:
            return None
        return session, (session.testsfailed, session.shouldfail, session.shouldstop)

    def counted(report, kept):
        # A canary's outcome is mend's, never the run's: the exit status and -x, --maxfail
        # and --stepwise go by the project's own tests.
        put_back(*kept)
        if report.failed and state["dsession"] is not None:
            state["dsession"].countfailures -= 1  # xdist's controller counts it next

    # Around every other implementation: the counts a canary's report changes are put back
    # after all of them. A new-style wrapper (pluggy 1.1 and later) costs a report half what an
    # old-style one does.
    try:
        new_style = pytest.hookimpl(wrapper=True, tryfirst=True)
    except TypeError:
        new_style = None

    if new_style is not None:
        @new_style
        def pytest_runtest_logreport(report):
            kept = heard(report)
            try:
                return (yield)
            finally:
                if kept is not None:
                    counted(report, kept)
    else:
        @pytest.hookimpl(hookwrapper=True, tryfirst=True)
        def pytest_runtest_logreport(report):
            kept = heard(report)
            yield
            if kept is not None:
                counted(report, kept)

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(report, config):
        if report.nodeid in canary_ids:
            return "", "", ""  # the terminal counts and lists only the project's tests
        return None

    return {name: value for name, value in locals().items()
            if name.startswith("pytest_") and callable(value)}


def _pytest_hooks(channel, plugins, holders, canaries, forget_module):
    """The hooks pytest calls, each handing what it sees to the parts above."""
    import pytest

    send, hold = channel
    configured, registered, collected, check_hooks = plugins
    check_hot, check_cold = holders
    place_canaries, canary_ids, hand_on, found = canaries
    state = {"config": None, "session": None, "dsession": None}

    def check():
        check_hot()
        check_hooks()

    def check_all():
        check_hot()
        check_hooks(per_test=False)
        check_cold()

    def pytest_configure(config):
        # A pytest-xdist worker reports to its controller, which reports to mend.
        if hasattr(config, "workerinput") or state["config"] is not None:
            return
        state["config"] = config
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
        elif report.skipped:
            # A module skipped whole (`importorskip`, a module-level skip): pytest counts it
            # as one skipped, and so does mend.
            send(event="test", id=report.nodeid, when="collect", outcome="skipped", xfail=False)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(session, exitstatus):
        if session.config is not state["config"]:
            return
        check_all()
        send(event="finished", exitstatus=int(exitstatus))

    hooks = {name: value for name, value in locals().items()
             if name.startswith("pytest_") and callable(value)}
    hooks.update(_test_hooks(send, hold, check, canary_ids, state))
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

    def silent(**fields):
        return None

    hooks = _test_hooks(silent, silent, lambda: None, canary_ids, state)
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


