# The parts wired together at import; the module then keeps only its pytest hooks.


def _code_of_module(module):
    """Every code object of the functions `module` defines (nested ones too), by identity."""
    import types

    identity = object.__hash__
    found = set()
    todo = [value.__code__ for value in vars(module).values()
            if type(value) is types.FunctionType and value.__globals__ is vars(module)]
    while todo:
        code = todo.pop()
        if identity(code) not in found:
            found.add(identity(code))
            todo.extend(const for const in code.co_consts if type(const) is types.CodeType)
    return found


def _taken_from_anyone():
    """The hand-overs the core takes from anyone, without reading who handed them over (which
    costs a test several audited frame reads): an alarm handed on (it can only fail a run), and a
    test's start, which tells nothing of its outcome. Handed over by the code under test, a start
    only runs the checks made as each test starts once more."""
    return frozenset({"alarm", "pytest_runtest_logstart"})


def _core(handlers, places, alarm, find, unchecked, key):
    """`handed(args, frame)`: what one of the witness's pytest hooks (`_forwarders`) handed on
    from `frame`, done by its handler. A hand-over counts only when it is owed to pytest calling
    the witness: it carries `key`, which only those hooks hold (reading where they hold it is
    told, `_watched_events`), and `frame`, the hook that handed it over, was called by pluggy's
    own hook calling (its code, by identity), called by code that is not the project's. Anything
    else is an alarm: a hand-over without the key (`sys.audit` called by the code under test) is
    not done; the witness's hooks called by the code under test, through pluggy or around it (a
    hook implementation replaced by a wrapper), are. An alarm handed on (from the witness's
    watch on Hypothesis, which Hypothesis holds) and a test's start are taken from anyone, with
    no key and no frame (`_taken_from_anyone`).

    Why a key and not the hook's code: reading a frame's code is an audit event, which costs a
    passing test the audit hook's call once more; the key is compared by identity."""
    import sys
    import types

    kind, place = places[0], places[1]
    identity = object.__hash__
    multicall = find("pluggy._callers:_multicall", "pluggy.callers:_multicall")
    multicall_code = multicall.__code__ if type(multicall) is types.FunctionType else None
    calling = sys.modules.get(getattr(multicall, "__module__", None) or "")
    hook_calling = _code_of_module(calling) if type(multicall) is types.FunctionType \
        and calling is not None else None
    if hook_calling is None:
        unchecked("who calls mend's witness (pluggy's _multicall)", "not found in this pluggy")
    pluggy_namespaces = {identity(vars(module)) for name, module in list(sys.modules.items())
                         if module is not None and (name == "pluggy" or name.startswith("pluggy."))}
    from_anyone = _taken_from_anyone()

    def handed(args, frame):
        hook = args[0] if args and type(args[0]) is str else None
        if hook == "alarm":
            alarm(*(None if value is None else str(value) for value in args[1:4]))
            return
        handler = handlers.get(hook)
        if handler is None:
            return
        if hook in from_anyone:
            handler(*args[1:])
            return
        if len(args) < 2 or args[1] is not key:
            alarm("witness", f"{hook} handed to mend's witness by code that is not its hook",
                  place(frame))
            return
        # Owed to pluggy's hook calling for pytest? Told as an alarm if not, and done all the
        # same: the run is no pass by then, and the account of it stays whole. (Written out
        # here, not called: a call costs each passing test more than the asking.)
        caller = frame.f_back
        if hook_calling is not None:
            code = None if caller is None else caller.f_code
            if code is None or (code is not multicall_code and identity(code) not in hook_calling):
                alarm("witness", f"mend's witness's {hook} called by code other than pluggy's "
                                 "hook calling", None if caller is None else place(caller))
            else:
                outer = caller.f_back  # past pluggy's hook calling, whose code it runs
                while outer is not None and identity(outer.f_globals) in pluggy_namespaces:
                    outer = outer.f_back
                if outer is not None and kind(outer.f_code.co_filename) == "project":
                    alarm("hook", f"{hook} called by the code under test", place(outer))
        if hook == "pytest_plugin_registered":
            handler(args[2], args[3], caller)
        else:
            handler(*args[2:])

    return handed


def _emitter(core):
    """How the witness's hooks reach its core: `sys.audit` where the audit hook is installed,
    else (Python before 3.8) a function that calls the core with the frame that called it."""
    import sys

    if core is None:
        # Python's own, taken before the stand-ins replace it (`_stand_ins`): the witness's
        # reading of the frame that handed something over is not one to judge.
        getframe = sys._getframe

        def emit(event, *args):
            handled = handle[0]
            if handled is not None:
                handled(args, getframe(1))

        handle = [None]
        return emit, handle
    # Looked up by name, as `addaudithook` is: `sys.audit` came with it, in 3.8.
    return getattr(sys, "audit"), core


def _unnamed(module_name):
    """Takes the witness's name out of `PYTEST_PLUGINS`, where mend adds it for a pytest that
    loads no installed plugin on its own: a pytest the tests run in this process
    (`pytester`) or start would import it again, from a path entry no longer there."""
    import os

    named = os.environ.get("PYTEST_PLUGINS")
    if named is None:
        return
    rest = [name for name in named.split(",") if name.strip() != module_name]
    if rest:
        os.environ["PYTEST_PLUGINS"] = ",".join(rest)
    else:
        del os.environ["PYTEST_PLUGINS"]


def _install(module_name, module_file):
    """Wires the parts together, the audit hook first; returns the pytest hooks (none when mend
    did not ask for a witness)."""
    import os
    import sys

    path = os.environ.pop("MEND_WITNESS", None)
    copy = os.environ.pop("MEND_WITNESS_COPY", None)
    _unnamed(module_name)
    if not path:
        seed = _handed_seed()
        return {} if seed is None else _worker_hooks(_canaries(lambda **fields: None, seed))
    sha256 = _sha256_constructor()
    send, passed, channel_fd = _channel(path, sha256)
    runner = _runner()
    send(event="runner", **runner)
    unchecked = _told_once(send, "unchecked")
    loaded_first = _loaded_first(copy, os.path.normcase(os.path.abspath(module_file)))
    if loaded_first:
        send(event="loaded_first", files=sorted(loaded_first),
             runner=sorted(name for name, (_, runners) in loaded_first.items() if runners))
    places = _places(os.path.normcase(os.path.abspath(module_file)))
    alarm = _alarms(send)
    touches, ours = _ours(path, channel_fd)
    watched_prefixes = ("_pytest", "pytest", "pluggy", module_name)
    other_name, claimed_name = _other_names(places[0])
    guarded = set()  # the identities of the witness's pytest hooks, once made
    describe = _watched_events(touches, ours, watched_prefixes, other_name, guarded)
    audit, heard, core = _audit_hook(places, alarm, describe, claimed_name, guarded)
    add_audit_hook = getattr(sys, "addaudithook", None)  # PEP 578: Python 3.8 and later
    if add_audit_hook is None:
        emit, core = _emitter(None)  # (before the stand-ins: see `_emitter`)
        check_stand_ins = _stand_ins(heard, alarm, places[3])
        unchecked("the audit hook (frame reads through tracebacks, generators and coroutines, "
                  "ctypes, the socket opened, moved or removed other than by "
                  "open, io.open or os.open; code and functions made with types.CodeType and "
                  "types.FunctionType under another file's name; the witness's own state kept "
                  "out of reach)",
                  f"Python {runner['python']} has no audit hooks (they came with 3.8); "
                  "sys._getframe, sys._current_frames, sys.settrace, sys.setprofile, gc's "
                  "object walks, open, io.open and os.open, compile, exec and marshal.loads "
                  "are watched in their stead")
    else:
        add_audit_hook(audit)
        check_stand_ins = None
        emit, core = _emitter(core)

    def alarm_handed_on(kind_, what, where=None):
        emit("mend_witness", "alarm", kind_, what, where)

    # Hypothesis holds the watch's wrappers, and `sys.meta_path` its finder until then: they
    # get places of their own (whose cache of each file's kind is theirs) and alarms handed on
    # through `emit`, so that nothing they hold is the core's.
    hypothesis_places = _places(os.path.normcase(os.path.abspath(module_file)))
    profiles = _hypothesis_profiles(hypothesis_places, alarm_handed_on)
    snapshots = _snapshots()
    find = _finder()
    ran_first = [path for path, runners in loaded_first.values() if not runners]
    first = _replaced_first(places[3], alarm, _label_of, ran_first) if ran_first else None
    holders = _holders(alarm, places[3], find, snapshots, unchecked, check_stand_ins, first)
    helper_setup, check_helpers = _imported_helpers(places, alarm, snapshots, profiles)
    holders = (holders[0], _both(holders[1], check_helpers))
    canaries = _canaries(send, int.from_bytes(os.urandom(8), "big"))
    off_the_terminal, its_hook, placed, shown, showing = _kept_off_the_terminal(canaries[1])
    plugins = _plugins(places, alarm, unchecked, sys.modules.get(module_name),
                       (off_the_terminal, its_hook), _outside_the_copy(copy, alarm, unchecked))
    canaries = (*canaries, placed, shown, showing)

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

    setup = helper_setup["pytest_runtest_setup"]
    tests = _collected_items(alarm, places[3])

    def finished():
        # Nothing pytest hands over later changes what mend heard: the checks, the session's
        # items and what was taken of pytest are let go, for Python to free as the session's
        # own objects are freed, not last, as it clears the interpreter (what the audit hook
        # holds lives until then). The audit hook itself still judges what code does.
        core[0] = None

    handlers = _pytest_hooks((send, passed), plugins, holders, tests, canaries, forget_module,
                             alarm, setup, finished, _in_place_of_others(copy, send))
    handlers.update(_skip_hooks(send, places))
    key = object()
    hooks = _forwarders(emit, key)
    guarded.update(object.__hash__(hook) for hook in hooks.values())
    core[0] = _core(handlers, places, alarm, find, unchecked, key)
    return hooks


def _both(first, second):
    """One call that makes two, with the same arguments."""
    def both(*args):
        first(*args)
        second(*args)

    return both


def _keep_only(namespace, hooks):
    """Empties the module of everything but `hooks`: no closure reads it, and what is left for
    code to rebind is what pytest already holds."""
    for name in [name for name in namespace if not name.startswith("__")]:
        del namespace[name]
    namespace.update(hooks)


_keep_only(globals(), _install(__name__, __file__))
