"""mend's witness: a pytest plugin that tells mend, as things happen, what pytest saw.

mend hands it to the independent test runs in an archive that also declares it an installed
pytest plugin, first on the path before the installed packages, and listens on the socket named
by MEND_WITNESS (the module pytest imports is loader.py, which runs this code in itself, so
pytest's assert rewriting never walks it). Its code is written in parts, one question each (this
file, then places, audit, holders, items, plugins, first, canaries, hooks, helpers, forward,
install), which mend joins in that order into one file, `mend_witness.body`: the parts share
one namespace, as one module's do. pytest loads it as the first installed plugin, before any other
installed one, any conftest.py or module under test (or mend names it with `-p`, where pytest
loads no installed plugin on its own or the command names plugins of its own), so what the
witness captures at import is pytest's own. A plugin of the project's that a `-p` of its
configuration or of a wrapper names comes before it: the verdict says so.

Its state is out of the reach of the code under test. The module-level functions of every part are
factories, called once at import by `_install`; everything the witness judges and speaks with
(the channel, its key, the checks and what they compare with) lives in closures that only its
audit hook (PEP 578) holds, and nothing can remove that hook or list it. What pytest holds of the
witness, which the code under test can find (the plugin manager hangs off `sys.meta_path`), is its
`pytest_*` hooks (`_forwarders`): each hands its arguments to that core with `sys.audit`, bound as
a default, and holds nothing else; a closure's cells can be read and written with no audit event,
so none of them closes over the core. The core takes a hand-over only from those hooks' code,
called by pluggy's own hook calling (`_core`): a hand-over from other code is an alarm. No
function looks a name up in this module's globals (a test holds every function here to that,
and to what the hooks can reach); the module leaves `sys.modules` once pytest has registered it.
What it sees is sent at once, so code that silences it later cannot take back what was already
said; a passed phase alone is held back a little, to go with the next lines (`_channel`).

The first line is `{"event": "start", "key": HEX}`; every later line is `MAC JSON`, where MAC is
the HMAC-SHA256 (first 32 hex digits) under that key of `SEQ JSON`, SEQ counting lines from 1:
a line written to the socket by anyone else does not carry a valid MAC. The events:
  {"event": "loaded_first", "files": [...]}  the copy's files whose code ran before the witness
                                             loaded (the command's script, modules imported
                                             from the copy), when any did
  {"event": "collected", "count": N}         the tests pytest is about to run (canaries too);
                                             under pytest-xdist, those of each worker
  {"event": "canaries", "pass": ID, "fail": ID, "error": ID}
                                             mend's own tests among the project's, each with
                                             the outcome it must have; the ids are null when
                                             there is no Python test module to put them in
  {"event": "test", "id": ..., "when": ..., "outcome": ..., "xfail": bool}
                                             a phase (setup, call, teardown) of a test that did
                                             not pass; "collect" for a module skipped whole
  {"event": "passed", "ids": [...]}          tests whose call passed (or whose teardown did,
                                             when nothing was told of them), a few dozen a line
  {"event": "uncollected", "id": ...}        a file it could not collect
  {"event": "alarm", "kind": ..., "what": ..., "where": "FILE:LINE" | null}
                                             something reached into the test run
  {"event": "shadowing", "files": [...]}     the copy's modules Python imported in place of
                                             one of the same name outside it, when any
  {"event": "finished", "exitstatus": N}     the session ended
Under pytest-xdist only the controller speaks: it hands its canaries' seed to the workers, which
place them, and hears the reports they send it (`_worker_hooks`).
What it heard is the run's report (pytest writes none for mend): a session it did not hear end,
fewer tests than collected, an exit code other than the session's, a canary with another
outcome, an alarm, or a second voice on the socket make the run a non-pass.

Start-up cost matters (it is paid by every verdict): nothing here loads OpenSSL (`hashlib`),
`secrets` or `sysconfig`, nor the `socket` module (its enumerations cost a Python 3.9 run more
than the rest of the witness's start together, where no plugin imports it): the channel is
`_socket`'s, which `socket` wraps. The SHA-256 is hashlib's where pytest has imported it already,
else the interpreter's own built-in one.
"""


def _sha256_constructor():
    """hashlib's SHA-256 where it is imported already (pytest imports it), else the
    interpreter's built-in one, whose module is loaded only then (no OpenSSL to load); hashlib's
    where it has none."""
    import sys

    imported = getattr(sys.modules.get("hashlib"), "sha256", None)
    if imported is not None:
        return imported
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
    line with HMAC-SHA256 (RFC 2104, the pads hashed once here) under that key and sends it at
    once, `passed(nodeid)`, which holds a test's passed phase back to go with the next lines, and
    the socket's file descriptor. Each write to the socket wakes mend's reader, which cost a run
    more than all the rest of the witness's work for a test together, and a seal costs a passing
    test about as much as handing its report to the core: the passes held go a few dozen at a
    time, on one sealed line (`{"event": "passed", "ids": [...]}`). Losing them (a run killed, a
    witness silenced) can only make a run incomplete, never a pass: anything else is sent at
    once, after them."""
    import _socket
    import json
    import os
    import threading
    from json.encoder import encode_basestring_ascii as quote
    from time import monotonic

    key = os.urandom(32)
    block = key.ljust(64, b"\0")
    inner = sha256(bytes(byte ^ 0x36 for byte in block))
    outer = sha256(bytes(byte ^ 0x5C for byte in block))
    lock = threading.Lock()
    channel = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    channel.connect(path)
    channel.sendall((json.dumps({"event": "start", "key": key.hex()}) + "\n").encode())
    sent = [0]
    words = {True: "true", False: "false", None: "null"}
    # Held passes go when this many wait, or the first of them has waited this long.
    most_held, longest_held = 64, 0.25
    held = []  # the ids of the tests whose passed phase waits to be sent
    held_since = [0.0]

    def as_json(fields):
        """`json.dumps(fields)`, the same text, without its encoder's calls for the flat events
        the witness sends (a few per test): strings, whole numbers, booleans and nulls, and the
        lists of ids that passed."""
        parts = []
        for key, value in fields.items():
            kind = type(value)
            if kind is str:
                text = quote(value)
            elif kind is bool or value is None:
                text = words[value]
            elif kind is int:
                text = str(value)
            elif kind is list and all(type(item) is str for item in value):
                text = "[" + ", ".join(map(quote, value)) + "]"
            else:
                return json.dumps(fields)
            parts.append(quote(key) + ": " + text)
        return "{" + ", ".join(parts) + "}"

    def sealed(fields):
        line = as_json(fields)
        sent[0] += 1
        digest = inner.copy()
        digest.update(f"{sent[0]} {line}".encode())
        mac = outer.copy()
        mac.update(digest.digest())
        return f"{mac.hexdigest()[:32]} {line}\n"

    def write(text):
        try:
            channel.sendall(text.encode())
        except OSError:
            pass

    def flushed():
        """The passes held, on one sealed line (none when none are held), and none held after."""
        if not held:
            return ""
        line = sealed({"event": "passed", "ids": held})
        held.clear()
        return line

    def send(**fields):
        with lock:
            write(flushed() + sealed(fields))

    def passed(nodeid):
        now = monotonic()
        with lock:
            if not held:
                held_since[0] = now
            held.append(nodeid)
            if len(held) >= most_held or now - held_since[0] >= longest_held:
                write(flushed())

    return send, passed, channel.fileno()
