"""mend's witness, as pytest imports it (`-p mend_witness`): it runs the witness's code
(`mend_witness.body`, beside it) in this module. pytest rewrites the asserts of every module a
`-p` names, parsing and walking its whole syntax tree first; the witness has no assert, and this
small loader is all that pass sees (it cost more than every guard of the witness together)."""


def _code():
    import os

    with open(os.path.join(os.path.dirname(__file__), "mend_witness.body"), "rb") as body:
        # Compiled under this file's name: the witness tells its own frames by it.
        return compile(body.read(), __file__, "exec")


exec(_code())
