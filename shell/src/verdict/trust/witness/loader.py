"""mend's witness, as pytest imports it (the `mend_witness` plugin): it runs the witness's code
(`mend_witness.body`, beside mend's archive) in this module. The import system compiles the
module it reads from the archive on every run; the witness is far larger, and this small loader
is all it compiles, or less: where it can, mend hands the loader over compiled by the
interpreter behind a smaller stub (`stub.py`), which runs it in the module, and the witness's
code compiled too (`verdict/read/witness_code.rs`); the loader compiles that code only when it
was not.

A witness that cannot load in the pytest, pluggy or Python at hand (one newer than mend knows)
tells mend which versions it met and what failed, on a line of its own, before pytest shows the
error: mend then says so, instead of pytest's traceback alone. That line is not sealed: all it
can do is make a run fail, which any code can."""


def _renamed(code, filename):
    """`code` and every function's code in it, as compiled in `filename`."""
    consts = tuple(_renamed(const, filename) if isinstance(const, type(code)) else const
                   for const in code.co_consts)
    if hasattr(code, "replace"):
        return code.replace(co_filename=filename, co_consts=consts)
    # Before Python 3.8 (no `replace`) a code object is made by its constructor, whose
    # arguments are the same in 3.6 and 3.7.
    return type(code)(code.co_argcount, code.co_kwonlyargcount, code.co_nlocals,
                      code.co_stacksize, code.co_flags, code.co_code, consts, code.co_names,
                      code.co_varnames, filename, code.co_name, code.co_firstlineno,
                      code.co_lnotab, code.co_freevars, code.co_cellvars)


def _cached_code(folder):
    """The code mend compiled with this interpreter (`mend_witness.code`, its first line naming
    the interpreter), under this file's name (mend names it so as it hands it over; the loader
    renames it otherwise); `None` when there is none for this interpreter, or its code objects
    cannot be renamed (a code object of a Python the loader does not know)."""
    import marshal
    import os
    import sys

    try:
        with open(os.path.join(folder, "mend_witness.code"), "rb") as cached:
            tag, _, data = cached.read().partition(b"\n")
        if tag != ("%s %x" % (sys.implementation.cache_tag, sys.hexversion)).encode():
            return None
        code = marshal.loads(data)
        return code if code.co_filename == __file__ else _renamed(code, __file__)
    except (OSError, ValueError, EOFError, TypeError):
        return None


def _code():
    import os

    folder = os.path.dirname(__file__)
    if folder.endswith(".zip"):  # imported from mend's archive: the files are beside it
        folder = os.path.dirname(folder)
    # Compiled under this file's name: the witness tells its own frames by it.
    code = _cached_code(folder)
    if code is not None:
        return code
    with open(os.path.join(folder, "mend_witness.body"), "rb") as body:
        return compile(body.read(), __file__, "exec", 0, True, 2)


def _tell_mend(path, error):
    import json
    import socket
    import sys
    import traceback

    def version(name):
        return str(getattr(sys.modules.get(name), "__version__", None) or "unknown")

    own = [frame for frame in traceback.extract_tb(error.__traceback__)
           if frame.filename == __file__]
    notice = {
        "event": "broken",
        "pytest": version("pytest"), "pluggy": version("pluggy"),
        "python": "%d.%d.%d" % tuple(sys.version_info[:3]),
        "error": "".join(traceback.format_exception_only(type(error), error)).strip(),
        "where": "%s, line %d" % (own[-1].name, own[-1].lineno) if own else None,
    }
    channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        channel.connect(path)
        channel.sendall((json.dumps(notice) + "\n").encode())
    except OSError:
        pass
    finally:
        channel.close()


def _load(tell_mend=_tell_mend):
    import os

    path = os.environ.get("MEND_WITNESS")  # the witness takes it out of the environment
    try:
        exec(_code(), globals())
    except Exception as error:
        if path:
            tell_mend(path, error)
        raise


_load()
