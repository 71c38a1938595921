# mend's witness as pytest imports it (the `mend_witness` plugin, from mend's archive), kept this
# small because the import system compiles it from source on every run: it runs the loader
# (`loader.py`, `mend_witness.loader` beside the archive) in this module, compiled by mend for
# this very interpreter where it could be (`mend_witness.loader.code`), else from its source.


def _run(scope):
    import marshal
    import os
    import sys

    folder = os.path.dirname(scope["__file__"])
    if folder.endswith(".zip"):  # imported from mend's archive: the files are beside it
        folder = os.path.dirname(folder)
    tag = ("%s %x" % (sys.implementation.cache_tag, sys.hexversion)).encode()
    try:
        with open(os.path.join(folder, "mend_witness.loader.code"), "rb") as compiled:
            head, _, data = compiled.read().partition(b"\n")
        code = marshal.loads(data) if head == tag else None
    except (OSError, ValueError, EOFError, TypeError):
        code = None
    if code is None:
        with open(os.path.join(folder, "mend_witness.loader"), "rb") as source:
            code = compile(source.read(), scope["__file__"], "exec", 0, True, 2)
    exec(code, scope)


_run(globals())
