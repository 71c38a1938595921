# What project code does that reaches into the run: the audit hook, and its stand-ins before 3.8.


def _frame_attributes():
    """The attributes that hand out a frame (`object.__getattr__` audits them)."""
    return frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})


def _watched_events(touches, ours, watched_prefixes):
    """The audit events the witness watches, each with what says, in words, what one did
    (`None`: one that does not matter)."""
    frame_reads = _frame_attributes()

    def as_is(event, args):
        return event

    def frame_read(event, args):
        return f"a frame read ({args[1]})" if args[1] in frame_reads else None

    def attribute(event, args):
        if not (getattr(args[0], "__module__", None) or "").startswith(watched_prefixes):
            return None
        return f"{event} {getattr(args[0], '__qualname__', args[0])!r}.{args[1]}"

    def opened(event, args):
        return f"{ours(args[0])} opened" if touches(args[0]) else None

    def moved(event, args):
        touched = [arg for arg in args[:2] if touches(arg)]
        return f"{event} of {ours(touched[0])}" if touched else None

    def connected(event, args):
        return "a connection to mend's witness socket" if touches(args[1]) else None

    def dlopen(event, args):
        # ctypes opening the interpreter itself as it is imported is no reach.
        return None if args[0] is None else event

    describe = dict.fromkeys((
        "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._getframe",
        "sys._current_frames", "sys.settrace", "sys.setprofile", "sys.addaudithook",
        "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.cdata", "ctypes.string_at",
        "ctypes.wstring_at", "ctypes.addressof"), as_is)
    describe.update({
        "object.__getattr__": frame_read, "object.__setattr__": attribute,
        "object.__delattr__": attribute, "open": opened, "socket.connect": connected,
        "ctypes.dlopen": dlopen,
    })
    describe.update(dict.fromkeys(
        ("os.rename", "os.remove", "os.truncate", "os.link", "os.symlink"), moved))
    return describe


def _audit_hook(places, alarm, describe):
    """The audit hook: what project code does that reaches into the run (frames, live objects,
    tracing, ctypes, pytest's and pluggy's classes, the report and the socket), each told as an
    alarm naming the file and line it is owed to."""
    import os
    import sys

    kind, place, responsible, _, _ = places
    # Events owed to whoever called the standard library that raised them.
    through_stdlib = frozenset({"stdlib"})
    # Frame access: the standard library's own (logging, typing, namedtuple) is its business;
    # inspect only hands frames on to its caller.
    inspect_file = os.path.normcase(os.path.join(os.path.dirname(os.__file__), "inspect.py"))

    def judge_frame_access(what, caller):
        frame = caller
        while frame is not None and os.path.normcase(frame.f_code.co_filename) == inspect_file:
            frame = frame.f_back
        if frame is not None and kind(frame.f_code.co_filename) == "project":
            alarm("frame", what, place(frame))

    def judge(event, what, caller):
        if event in ("sys._getframe", "object.__getattr__"):
            return judge_frame_access(what, caller)
        frame = responsible(caller, through_stdlib)
        if frame is None:
            if event not in ("sys.settrace", "sys.setprofile"):
                alarm("audit", what, None)
            # (else threading starting a thread with the trace function it was given)
        elif kind(frame.f_code.co_filename) == "project":
            alarm("audit", what, place(frame))

    busy = [False]
    getframe = sys._getframe

    def heard(event, args):
        """One watched event, owed to the frame that called heard's caller (the audit hook, or
        a stand-in for it): judged, told if it reached in. The frame is read once busy, since
        reading it is itself an event."""
        described = describe.get(event)
        if described is None or busy[0]:
            return
        busy[0] = True
        try:
            what = described(event, args)
            if what is not None:
                judge(event, what, getframe(2))
        except Exception:
            pass
        finally:
            busy[0] = False

    frame_reads = _frame_attributes()
    # What the witness's own pytest hooks hand on (`_forwarders`), given to the core (`_core`)
    # with the frame that handed it over; set once the core is made.
    core = [None]

    def audit(event, args):
        # pytest reads `__code__` and `__defaults__` of every test function (several
        # `object.__getattr__` events a test): those are passed over here, before a call.
        if event in describe and (event != "object.__getattr__" or args[1] in frame_reads):
            heard(event, args)
        elif event == "mend_witness" and core[0] is not None:
            busy[0] = True  # reading the frame that handed it over is itself an event
            try:
                frame = getframe(1)
            finally:
                busy[0] = False
            core[0](args, frame)

    return audit, heard, core


def _stand_ins(heard, alarm, defined_at):
    """Where Python has no audit hooks (before 3.8): the calls that read frames, walk live
    objects or trace the run, replaced in `sys` and `gc` by ones that tell `heard` who called
    them, then call the original. Returns `check()`, which names one put back or replaced."""
    import builtins
    import gc
    import io
    import os
    import sys

    watched = []

    def stand_in(module, name, counts_frames=False, event=None):
        original = getattr(module, name, None)
        if original is None:
            return
        event = event or f"{module.__name__}.{name}"

        if not counts_frames:
            def watching(*args, **kwargs):
                heard(event, args)
                return original(*args, **kwargs)
        else:
            # sys._getframe(depth) counts from its caller: one more from here.
            def watching(depth=0):
                heard(event, (depth,))
                return original(depth + 1)

        watching.__name__ = watching.__qualname__ = name
        watching.__doc__ = original.__doc__
        setattr(module, name, watching)
        watched.append((module, name, watching))

    stand_in(sys, "_getframe", counts_frames=True)
    for name in ("_current_frames", "settrace", "setprofile"):
        stand_in(sys, name)
    for name in ("get_objects", "get_referrers", "get_referents"):
        stand_in(gc, name)
    # Opening the socket (`open` is one function under both names).
    for module in (builtins, io, os):
        stand_in(module, "open", event="open")

    def check():
        for module, name, watching in watched:
            now = getattr(module, name, None)
            if now is not watching:
                alarm("replaced", f"{module.__name__}.{name} replaced", defined_at(now))

    return check


