# mend's own tests among the project's, one to pass, one to fail, one to error.


def _canaries(send, seed):
    """mend's own tests, placed among the project's with names the change cannot predict: one
    must pass, one fail, one error. `seed` decides their names, their module and their places:
    pytest-xdist runs a collection only if every worker's is the same, so its workers place the
    canaries of their controller's seed. Returns `place(items)`, `ids` (each canary's node id
    with the outcome it must have), `hand_on(workerinput)` and `found(collected_ids)`."""
    import random

    import pytest

    ids = {}
    key = "mend_canaries"

    def chosen():
        chance = random.Random(seed)

        def name():
            return "test_" + "".join(chance.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(10))

        names = {"pass": name(), "fail": name(), "error": name()}
        return chance, names, name()[5:]

    class Canary(pytest.Function):
        """A test of mend's: its failure is not worth pytest's traceback formatting, which reads
        source and lists fixtures."""

        def repr_failure(self, excinfo):
            return "failed"

        def _repr_failure_py(self, excinfo, style=None):
            return "failed"

    Canary.__name__ = Canary.__qualname__ = "Function"

    def made(module, name, function, callspec):
        # `from_parent` came with pytest 5.4; before it, a node was made by its constructor.
        if getattr(Canary, "from_parent", None) is None:
            return Canary(name, parent=module, callobj=function, callspec=callspec)
        return Canary.from_parent(module, name=name, callobj=function, callspec=callspec)

    def parameters_of(items, module):
        """The parameters of a test of `module` that no mark skips or expects to fail: an
        autouse fixture with `params` (markupsafe's, over its two implementations) is set up
        only for a test that has them, and a canary without them would error at setup."""
        for item in items:
            callspec = getattr(item, "callspec", None)
            if (callspec is not None and item.getparent(pytest.Module) is module
                    and not list(getattr(callspec, "marks", ()))):
                return callspec
        return None

    def test_modules(items):
        modules = []
        for item in items:
            module = item.getparent(pytest.Module)
            if module is not None and module not in modules:
                modules.append(module)
        return modules

    def told(placed):
        ids.update({nodeid: expected for expected, nodeid in placed.items()})
        send(event="canaries", **placed)

    def place(items):
        modules = test_modules(items)
        if not modules:
            send(event="canaries", **{"pass": None, "fail": None, "error": None})
            return
        chance, names, missing_fixture = chosen()
        module = chance.choice(modules)
        source = (
            f"def {names['pass']}():\n    pass\n"
            f"def {names['fail']}():\n    assert 1 + 1 == 3\n"
            f"def {names['error']}({missing_fixture}):\n    pass\n"
        )
        namespace = {"__name__": module.obj.__name__}
        # `path` came with pytest 7; 6.2 has only the py.path `fspath`.
        path = getattr(module, "path", None) or module.fspath
        exec(compile(source, str(path), "exec"), namespace)
        callspec = parameters_of(items, module)
        placed = {}
        for expected, name in names.items():
            canary = made(module, name, namespace[name], callspec)
            items.insert(chance.randint(0, len(items)), canary)
            placed[expected] = canary.nodeid
        told(placed)

    def hand_on(workerinput):
        workerinput[key] = seed

    def found(collected):
        """On xdist's controller, which collects nothing: the canaries a worker collected, told
        only when each is there once (none told: a passing run is then untrusted)."""
        placed = {}
        for expected, name in chosen()[1].items():
            # A canary placed beside a parametrized test carries its parameters (`name[...]`).
            matches = [nodeid for nodeid in collected
                       if nodeid.rpartition("::")[2].partition("[")[0] == name]
            if len(matches) != 1:
                return
            placed[expected] = matches[0]
        told(placed)

    return place, ids, hand_on, found


def _handed_seed():
    """In a pytest-xdist worker, the seed of its controller's canaries (`None` elsewhere), taken
    out of what the controller sent (`workerinput`, a global of xdist's remote module, which is
    importing pytest's plugins now) before any code of the project runs and could read it."""
    import sys

    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__") == "__channelexec__":
            handed = frame.f_globals.get("workerinput")
            return handed.pop("mend_canaries", None) if isinstance(handed, dict) else None
        frame = frame.f_back
    return None


