"""mend's unittest watcher: unittest's own account of each outcome, sent to mend over a sealed
channel, for the runners mend reads from their output (`python -m unittest -v`, django's
runtests.py, anything that records outcomes in a `unittest.TestResult`).

mend puts the folder of this file first on PYTHONPATH, so Python's start-up (`site`) runs it as
`sitecustomize` before any code of the project; it then hands over to the project's or the
environment's own `sitecustomize`, if there is one, and leaves `sys.path` as it found it.

At start-up it takes MEND_UNITTEST (the socket mend listens on) out of the environment, so the
processes the tests start do not connect too, and connects at once, before any project code can
run: the first line is `{"event": "start", "key": HEX}`, every later line `MAC JSON`, MAC being
the HMAC-SHA256 (first 32 hex digits) under that key of `SEQ JSON`, SEQ counting lines from 1.
When `unittest` is first imported (not before: most processes never import it) it wraps
`unittest.TestResult`'s recording methods, found by name, whichever of them this Python has;
every result class unittest and django use reaches them through `super()`. The events:
  {"event": "watching", "python": "3.11.7"}    unittest's results are watched from here on
  {"event": "broken", "error": ...}           they could not be (this Python is not known)
  {"event": "run", "step": "started" | "finished"}
  {"event": "outcome", "outcome": "passed" | "failed" | "error" | "skipped" | "xfailed" |
   "xpassed", "names": [str(test), its docstring's first line, its method's name]}
  {"event": "alarm", "kind": "replaced", "what": ..., "where": "FILE:LINE" | null}
                                              a method of unittest's own classes was replaced
Only the process that connected speaks (a forked worker's results are replayed in its parent).
What a test prints never reaches this channel; mend confirms each printed outcome against it.
"""


def _mend_watch_unittest():
    import os
    import sys

    path = os.environ.pop("MEND_UNITTEST", None)
    if not path:
        return
    try:
        send = _mend_channel(path)
    except OSError:
        return
    wrap, picture = _mend_wrap, _mend_guard

    def watch(unittest):
        # The picture is taken once the methods are wrapped: the wrappers are what must stay.
        guard = [lambda: None]
        wrap(unittest, send, lambda: guard[0]())
        guard[0] = picture(unittest, send)

    finder = _mend_finder(send, watch)
    if "unittest" in sys.modules:
        finder.watch(sys.modules["unittest"])
    else:
        sys.meta_path.insert(0, finder)


def _mend_channel(path):
    """Connects to mend and sends the key; returns `send(**fields)`, which seals each line.
    Every Python process of the test command pays for what this imports: the C modules alone
    (`_socket`, `_thread`), and `json` only once there is something to say."""
    import _socket
    import _thread
    import os

    try:
        from _sha256 import sha256  # CPython up to 3.11
    except ImportError:
        try:
            from _sha2 import sha256  # CPython 3.12 and later
        except ImportError:
            from hashlib import sha256
    key = os.urandom(32)
    padded = key + b"\0" * (64 - len(key))
    inner_pad = sha256(bytes(byte ^ 0x36 for byte in padded))
    outer_pad = sha256(bytes(byte ^ 0x5C for byte in padded))
    channel = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        channel.connect(path)
        channel.sendall(('{"event": "start", "key": "%s"}\n' % key.hex()).encode())
    except OSError:
        channel.close()
        raise
    owner = os.getpid()
    lock = _thread.allocate_lock()
    count = [0]

    def send(**fields):
        if os.getpid() != owner:
            return
        import json

        text = json.dumps(fields)
        with lock:
            count[0] += 1
            inner = inner_pad.copy()
            inner.update(("%d %s" % (count[0], text)).encode())
            outer = outer_pad.copy()
            outer.update(inner.digest())
            try:
                channel.sendall(("%s %s\n" % (outer.hexdigest()[:32], text)).encode())
            except OSError:
                pass

    return send


def _mend_finder(send, watch_unittest):
    """A meta-path finder that watches `unittest` (`watch_unittest`) once it has been imported."""
    import sys

    class Finder(object):
        def find_spec(self, name, path=None, target=None):
            # runpy (`-m unittest`) finds the package before it imports it: the finder stays
            # until unittest has been run.
            if name != "unittest":
                return None
            spec = None
            for finder in [finder for finder in sys.meta_path if finder is not self]:
                find = getattr(finder, "find_spec", None)
                spec = find(name, path, target) if find else None
                if spec is not None:
                    break
            if spec is None:
                return None
            loader = getattr(spec, "loader", None)
            run = getattr(loader, "exec_module", None)
            if run is None:
                send(event="broken", error="no finder gives unittest a loader with exec_module")
                return spec
            watch = self.watch

            def exec_module(module):
                run(module)
                if self in sys.meta_path:
                    sys.meta_path.remove(self)
                    watch(module)

            loader.exec_module = exec_module
            return spec

        def watch(self, unittest):
            try:
                watch_unittest(unittest)
            except Exception as error:  # a Python whose unittest is not known
                send(event="broken", error="%s: %s" % (type(error).__name__, error))
            else:
                send(event="watching", python="%d.%d.%d" % tuple(sys.version_info[:3]))

    return Finder()


def _mend_wrap(unittest, send, guard):
    """Wraps TestResult's recording methods; `guard` is called first each time (it checks that
    unittest's own classes are as they were once wrapped)."""
    import functools

    result = unittest.TestResult

    def names(test):
        """What the runner prints a test (or a subtest) by."""
        found = [str(test)]
        case = getattr(test, "test_case", None)  # a subtest names its test's method
        if case is None:
            describe = getattr(test, "shortDescription", None)
            doc = describe() if describe else None
            if doc:
                found.append(doc)
        method = getattr(case if case is not None else test, "_testMethodName", None)
        if method:
            found.append(method)
        return found

    def recorder(name, outcome_of):
        original = result.__dict__[name]

        @functools.wraps(original)
        def recorded(self, test, *rest, **named):
            try:
                guard()
                outcome = outcome_of(test, *rest, **named)
                if outcome:
                    subject = rest[0] if name == "addSubTest" else test
                    send(event="outcome", outcome=outcome, names=names(subject))
            except Exception:
                pass
            return original(self, test, *rest, **named)

        return recorded

    def run_step(name, step):
        original = result.__dict__[name]

        @functools.wraps(original)
        def stepped(self, *rest, **named):
            try:
                guard()
                send(event="run", step=step)
            except Exception:
                pass
            return original(self, *rest, **named)

        return stepped

    def subtest_outcome(test, subtest, err):
        if err is None:
            return None
        return "failed" if issubclass(err[0], test.failureException) else "error"

    outcomes = {
        "addSuccess": lambda test: "passed",
        "addFailure": lambda test, err: "failed",
        "addError": lambda test, err: "error",
        "addSkip": lambda test, reason: "skipped",
        "addExpectedFailure": lambda test, err: "xfailed",
        "addUnexpectedSuccess": lambda test: "xpassed",
        "addSubTest": subtest_outcome,
    }
    for name, outcome_of in outcomes.items():
        if name in result.__dict__:
            setattr(result, name, recorder(name, outcome_of))
    for name, step in (("startTestRun", "started"), ("stopTestRun", "finished")):
        if name in result.__dict__:
            setattr(result, name, run_step(name, step))


def _mend_guard(unittest, send):
    """A picture of the methods of unittest's own classes as they are now, and the check that
    sends an alarm for each one replaced or removed since (once each)."""
    import os
    import sys

    case = sys.modules.get("unittest.case")
    suite = sys.modules.get("unittest.suite")
    watched = [unittest.TestResult, unittest.TextTestResult, unittest.TextTestRunner,
               unittest.TestCase, unittest.FunctionTestCase, unittest.TestSuite,
               unittest.BaseTestSuite]
    for module, name in ((case, "_SubTest"), (case, "_Outcome"), (suite, "_ErrorHolder")):
        if getattr(module, name, None) is not None:
            watched.append(getattr(module, name))
    picture = {}
    for cls in watched:
        for name, value in cls.__dict__.items():
            if callable(value) or isinstance(value, (classmethod, staticmethod, property)):
                picture[(cls, name)] = value
    alarmed = set()

    def where(value):
        code = getattr(getattr(value, "__func__", value), "__code__", None)
        if code is None:
            return None
        file = code.co_filename
        try:
            relative = os.path.relpath(file)
            if not relative.startswith(".."):
                file = relative
        except ValueError:
            pass
        return "%s:%d" % (file, code.co_firstlineno)

    def guard():
        for (cls, name), value in picture.items():
            now = cls.__dict__.get(name)
            if now is not value and (cls, name) not in alarmed:
                alarmed.add((cls, name))
                what = "%s.%s.%s" % (cls.__module__, cls.__name__, name)
                send(event="alarm", kind="replaced", what=what,
                     where=where(now) if now is not None else None)

    return guard


def _mend_next_sitecustomize():
    """The project's or the environment's own `sitecustomize`, as Python would have run it."""
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or ".") != here]
    # The import that runs this file takes its module back out of sys.modules when it ends:
    # the next one's, when there is one, else this one's.
    this = sys.modules.pop("sitecustomize")
    try:
        import sitecustomize  # noqa: F401
    except ImportError as error:
        sys.modules["sitecustomize"] = this
        if error.name != "sitecustomize":
            raise


_mend_watch_unittest()
del _mend_watch_unittest, _mend_channel, _mend_finder, _mend_wrap, _mend_guard
_mend_next_sitecustomize()
