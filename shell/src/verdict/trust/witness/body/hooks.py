# The pytest hooks that hear each test, the xdist workers and skips raised by the code under test.


def _test_hooks(send, passed, started, check_call, canary_ids, state, alarm):
    """What the witness does as each test's phases end, by the pytest hook it answers: each
    phase's outcome sent (a passed one held back to go with the next lines, `passed(nodeid)`),
    after `check_call(nodeid)` of what ran a call (`None`: no check), and the canaries kept out
    of the run's counts and exit status (`counted`, after every other implementation of the
    report hook). `started`: the tests whose checks ran as they started, kept for the session
    (a plugin that runs a test again, pytest-rerunfailures, starts it once and reports each
    attempt)."""
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

    identity = object.__hash__
    told = set()  # the tests in progress that a line was sent for
    kept_counts = {}  # report identity -> the session's counts before pytest counted a canary's

    def pytest_runtest_logreport(report):
        """Sends the report's phase; for a failed or skipped canary's, keeps the session's
        counts as they are before pytest counts it (a passed phase changes none of them)."""
        when, outcome, nodeid = report.when, report.outcome, report.nodeid
        if when == "call" and check_call is not None:
            # What ran the call, checked again before its outcome is told: a swap made while
            # the test's fixtures were set up is seen too.
            check_call(nodeid)
        # A passed phase changes no test's outcome (mend keeps a test's worst phase): a passed
        # setup is left to the call or teardown after it, which pytest always reports, and a
        # passed teardown is sent only when nothing was sent for its test yet (`--setup-only`
        # runs no call). A passing test costs one id on a line of passes, not three lines. (The
        # witness's report hook hands over neither of them, `_forwarders`; a hook called
        # otherwise may.)
        if nodeid not in started:
            alarm("witness", f"the report of {nodeid} reached mend's witness, but not the "
                             "checks as the test started", None)
        if outcome == "passed":
            if when == "setup":
                return
            if when == "teardown" and nodeid in told:
                told.discard(nodeid)
                return
        if outcome == "passed":
            passed(nodeid)
        else:
            send(event="test", id=nodeid, when=when, outcome=outcome,
                 xfail=hasattr(report, "wasxfail"))
        if when == "teardown":
            told.discard(nodeid)
        else:
            told.add(nodeid)
        session = state["session"]
        if outcome != "passed" and session is not None and nodeid in canary_ids:
            kept_counts[identity(report)] = (
                session, (session.testsfailed, session.shouldfail, session.shouldstop))

    def counted(report):
        # A canary's outcome is mend's, never the run's: the exit status and -x, --maxfail
        # and --stepwise go by the project's own tests.
        kept = kept_counts.pop(identity(report), None)
        if kept is None:
            return
        put_back(*kept)
        if report.failed and state["dsession"] is not None:
            state["dsession"].countfailures -= 1  # xdist's controller counts it next

    return {"pytest_sessionstart": pytest_sessionstart,
            "pytest_runtest_logreport": pytest_runtest_logreport, "counted": counted}


def _pytest_hooks(channel, plugins, holders, tests, canaries, forget_module, alarm, setup,
                  finished, tell_shadowing):
    """What the witness does when pytest calls each of its hooks (`_forwarders` hand each call
    on), handing what it sees to the parts above. `setup(item)`: the checks of what a test's
    own module holds, as it starts; `tests`: the collected items and their check
    (`_collected_items`), as each test starts and as its call ends; `canaries`: what places
    them and keeps them off the terminal (`_canaries`, then `_kept_off_the_terminal`'s
    `placed`, `shown` and `showing`); `finished()`, once the session's end is told;
    `tell_shadowing()`, just before (`_in_place_of_others`)."""
    send, passed = channel
    configured, registered, collected, check_hooks = plugins
    check_hot, check_cold = holders
    hold_items, check_item = tests
    place_canaries, canary_ids, hand_on, found, placed, shown, showing = canaries
    state = {"config": None, "session": None, "dsession": None}
    # The items collected, by id: the start of a test names only its id. (pytest calls no setup
    # hook where a test's start is reported but the test runs elsewhere: pytest-xdist's
    # controller, pytest-forked's parent. There the id is not found, and only what this process
    # holds is checked.)
    items = {}
    started = set()  # the tests whose checks ran as they started (`_test_hooks`)

    # Every call here costs each test: what one check needs is asked of it alone, and the
    # canaries' plugin only around a canary (`showing`: whether it is registered).
    def starting(nodeid):
        check_hot()
        check_hooks()
        check_item(nodeid)
        item = items.get(nodeid)
        if item is not None:
            setup(item)
        if nodeid in canary_ids or showing[0] is not None:
            config = state["config"]
            if config is not None:
                shown(nodeid, config.pluginmanager, state["dsession"] is not None)
        started.add(nodeid)

    def check_all():
        check_hot()
        check_hooks(per_test=False)
        check_cold()

    def pytest_configure(config):
        # A pytest-xdist worker reports to its controller, which reports to mend.
        if hasattr(config, "workerinput") or state["config"] is not None:
            return
        state["config"] = config
        configured(config)
        forget_module()
        check_all()

    def pytest_collection_modifyitems(session, config, items):
        if config is not state["config"]:
            return
        collected(config.pluginmanager)
        check_all()
        place_canaries(items)

    def pytest_collection_finish(session):
        if session.config is state["config"]:
            hold_items(session.items, items)
            placed(list(items))
            send(event="collected", count=len(session.items))

    # pytest-xdist's controller collects nothing: its workers place the canaries of its seed,
    # and it hears each worker's collection (the same in every one, or xdist runs none).
    def pytest_configure_node(node):
        hand_on(node.workerinput)

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

    def pytest_sessionfinish(session, exitstatus):
        if session.config is not state["config"]:
            return
        check_all()
        tell_shadowing()
        send(event="finished", exitstatus=int(exitstatus))
        finished()

    handlers = {name: value for name, value in locals().items()
                if name.startswith("pytest_") and callable(value)}
    handlers["pytest_plugin_registered"] = registered
    handlers["pytest_runtest_logstart"] = starting
    handlers.update(_test_hooks(send, passed, started, check_item, canary_ids, state, alarm))
    return handlers


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

    def silent(*args, **fields):
        return None

    handlers = _test_hooks(silent, silent, set(), None, canary_ids, state, lambda *told: None)
    sessionstart, heard, counted = (handlers["pytest_sessionstart"],
                                    handlers["pytest_runtest_logreport"], handlers["counted"])

    def pytest_sessionstart(session):
        sessionstart(session)

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_logreport(report):
        heard(report)
        yield
        counted(report)

    pytest_report_teststatus = _canaries_off_the_terminal(canary_ids)

    return {name: value for name, value in locals().items()
            if name.startswith("pytest_") and callable(value)}


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

    # Called first among the first (`_forwarders`): read before pytest's unittest plugin turns
    # a unittest.SkipTest into a skip of its own, whose traceback starts in pytest.
    def pytest_runtest_makereport(item, call):
        excinfo = call.excinfo
        if excinfo is None or not isinstance(excinfo.value, skips):
            return None
        frame = raiser(excinfo.tb)
        if frame is not None and not tests_own(frame.f_code.co_filename, item):
            send(event="skip_raised", id=item.nodeid, at=place(frame))
        return None

    return {"pytest_runtest_makereport": pytest_runtest_makereport}


