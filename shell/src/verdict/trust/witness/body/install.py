# The parts wired together at import; the module then keeps only its pytest hooks.


def _both_hooks(first, second):
    """One pytest hook that calls two (pytest knows a plugin's hook by its name only once), first
    among the hooks as the helpers' check is."""
    from pytest import hookimpl

    @hookimpl(tryfirst=True)
    def pytest_runtest_setup(item):
        first(item)
        second(item)

    return pytest_runtest_setup


def _both(first, second):
    def both():
        first()
        second()

    return both


def _install(module_name, module_file):
    """Wires the parts together, the audit hook first; returns the pytest hooks (none when mend
    did not ask for a witness)."""
    import os
    import sys

    path = os.environ.pop("MEND_WITNESS", None)
    if not path:
        seed = _handed_seed()
        return {} if seed is None else _worker_hooks(_canaries(lambda **fields: None, seed))
    sha256 = _sha256_constructor()
    send, hold, channel_fd = _channel(path, sha256)
    runner = _runner()
    send(event="runner", **runner)
    unchecked = _told_once(send, "unchecked")
    places = _places(os.path.normcase(os.path.abspath(module_file)))
    alarm = _alarms(send)
    touches, ours = _ours(path, channel_fd)
    watched_prefixes = ("_pytest", "pytest", "pluggy", module_name)
    describe = _watched_events(touches, ours, watched_prefixes)
    audit, heard = _audit_hook(places, alarm, describe)
    add_audit_hook = getattr(sys, "addaudithook", None)  # PEP 578: Python 3.8 and later
    if add_audit_hook is None:
        check_stand_ins = _stand_ins(heard, alarm, places[3])
        unchecked("the audit hook (frame reads through tracebacks, generators and coroutines, "
                  "ctypes, the socket opened, moved or removed other than by "
                  "open, io.open or os.open)",
                  f"Python {runner['python']} has no audit hooks (they came with 3.8); "
                  "sys._getframe, sys._current_frames, sys.settrace, sys.setprofile, gc's "
                  "object walks and open, io.open and os.open are watched in their stead")
    else:
        add_audit_hook(audit)
        check_stand_ins = None
    snapshots = _snapshots()
    holders = _holders(alarm, places[3], _finder(), snapshots, unchecked, check_stand_ins)
    helper_hooks, check_helpers = _imported_helpers(places, alarm, snapshots)
    holders = (holders[0], _both(holders[1], check_helpers))
    plugins = _plugins(places, alarm, unchecked)
    canaries = _canaries(send, int.from_bytes(os.urandom(8), "big"))

    folder = os.path.dirname(os.path.abspath(module_file))

    def forget_module():
        sys.modules.pop(module_name, None)
        # Nor is its folder searched again: it comes before the installed packages (PYTHONPATH),
        # so every later import would look in it first. pytest-xdist has taken its copy of the
        # path by now, for its workers to import the witness too. (The folder the tests run in
        # stays, should it be the same.)
        if folder != os.getcwd():
            sys.path[:] = [entry for entry in sys.path
                           if not entry or os.path.abspath(entry) != folder]

    hooks = _pytest_hooks((send, hold), plugins, holders, canaries, forget_module)
    hooks.update(_skip_hooks(send, places))
    hooks.update(helper_hooks)
    profile_hooks = _hypothesis_profiles(places, alarm)
    setup = hooks.get("pytest_runtest_setup")
    hooks["pytest_runtest_setup"] = (profile_hooks["pytest_runtest_setup"] if setup is None
                                     else _both_hooks(setup, profile_hooks["pytest_runtest_setup"]))
    return hooks


def _keep_only(namespace, hooks):
    """Empties the module of everything but `hooks`: no closure reads it, and what is left for
    code to rebind is what pytest already holds."""
    for name in [name for name in namespace if not name.startswith("__")]:
        del namespace[name]
    namespace.update(hooks)


_keep_only(globals(), _install(__name__, __file__))
