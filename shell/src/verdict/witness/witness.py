"""mend's witness: a pytest plugin that tells mend, as each test finishes, what pytest saw.

mend loads it with `-p mend_witness` for the independent test runs and listens on the socket
named by MEND_WITNESS. One JSON object per line:
  {"event": "start"}                         pytest is configured
  {"event": "collected", "count": N}         the tests it is about to run
  {"event": "test", "id": ..., "when": ..., "outcome": ..., "xfail": bool}
                                             each phase (setup, call, teardown) of each test
  {"event": "uncollected", "id": ...}        a file it could not collect
  {"event": "tampered", "names": [...]}      what of pytest and the builtins changed since
                                             the plugin was loaded (before any conftest)
  {"event": "finished", "exitstatus": N}     the session ended
  {"event": "report", "sha256": ... | null}  the digest of the JUnit report as pytest left it
mend compares what it heard with the report: a report changed afterwards, tests missing from
it, or a second voice on the socket make the run a non-pass.
"""

import builtins
import hashlib
import json
import os
import socket

import _pytest.junitxml
import _pytest.main
import _pytest.outcomes
import _pytest.python
import _pytest.reports
import _pytest.runner
import _pytest.skipping
import pytest

_channel = None

# What decides a test's outcome and how it is written down. This module is imported by `-p`
# before any conftest.py or the code under test, so these are pytest's own.
_WATCHED = {
    "builtins": builtins,
    "_pytest.python.Function": _pytest.python.Function,
    "_pytest.runner": _pytest.runner,
    "_pytest.reports.TestReport": _pytest.reports.TestReport,
    "_pytest.main.Session": _pytest.main.Session,
    "_pytest.skipping": _pytest.skipping,
    "_pytest.outcomes": _pytest.outcomes,
    "_pytest.junitxml.LogXML": _pytest.junitxml.LogXML,
}


def _snapshot():
    return {
        (label, name): id(value)
        for label, holder in _WATCHED.items()
        for name, value in list(vars(holder).items())
    }


_LOADED = _snapshot()


def _tampered():
    now = _snapshot()
    # Names added since are not counted (gettext installs `_` into builtins); names changed or
    # removed are.
    return sorted(
        f"{label}.{name}"
        for (label, name), seen in _LOADED.items()
        if now.get((label, name)) != seen
    )


def _send(**fields):
    if _channel is None:
        return
    try:
        _channel.sendall((json.dumps(fields) + "\n").encode("utf-8"))
    except OSError:
        pass


def pytest_configure(config):
    global _channel
    # A pytest-xdist worker reports to its controller, which reports to mend.
    if hasattr(config, "workerinput"):
        return
    path = os.environ.pop("MEND_WITNESS", None)
    if not path:
        return
    channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    channel.connect(path)
    _channel = channel
    _send(event="start")


def pytest_collection_finish(session):
    _send(event="collected", count=len(session.items))


def pytest_collectreport(report):
    if report.failed:
        _send(event="uncollected", id=report.nodeid)


def pytest_runtest_logreport(report):
    _send(
        event="test",
        id=report.nodeid,
        when=report.when,
        outcome=report.outcome,
        xfail=hasattr(report, "wasxfail"),
    )


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    tampered = _tampered()
    if tampered:
        _send(event="tampered", names=tampered)
    _send(event="finished", exitstatus=int(exitstatus))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    global _channel
    path = getattr(config.option, "xmlpath", None)
    digest = None
    if path and os.path.isfile(path):
        with open(path, "rb") as report:
            digest = hashlib.sha256(report.read()).hexdigest()
    _send(event="report", sha256=digest)
    if _channel is not None:
        _channel.close()
        _channel = None
