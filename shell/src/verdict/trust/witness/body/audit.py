# What project code does that reaches into the run: the audit hook, and its stand-ins before 3.8.


def _frame_attributes():
    """The attributes that hand out a frame (`object.__getattr__` audits them)."""
    return frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})


def _other_names(kind):
    """`other_name(filename)`: the file a name gives code when that file is not the project's
    (pytest's, pluggy's, the standard library's, an installed package's), else `None`;
    `claimed_name(value)`: the first such name that code in `value` (unmarshalled: a code
    object, or containers of them) gives itself.

    Code is judged by the file its name gives (`kind`): a frame of pytest's may read frames,
    register plugins and walk live objects. So code that names itself after such a file must
    have been made from it: code the project makes under another file's name (`compile` with
    that name, `code.replace(co_filename=...)`, `types.CodeType`, `marshal.loads`), or a
    function it makes from such code (`types.FunctionType`, `exec` of a function's code), would
    let it do under pytest's name what it may not do under its own."""
    import os
    from types import CodeType

    def other_name(filename):
        # A name that is no path (`compile` of a tree, whose event names none) is told by its
        # type, not by the exception `fsdecode` raises for it, which costs as much as the rest.
        if type(filename) is not str:
            if filename is None:
                return None
            try:
                filename = os.fsdecode(filename)
            except TypeError:
                return None
        return None if kind(filename) == "project" else filename

    def claimed_name(value):
        todo, seen = [value], 0
        while todo and seen < 100000:
            value = todo.pop()
            seen += 1
            if type(value) is CodeType:
                name = other_name(value.co_filename)
                if name is not None:
                    return name
                todo.extend(value.co_consts)
            elif type(value) in (tuple, list, frozenset, set):
                todo.extend(value)
            elif type(value) is dict:
                todo.extend(value.values())
        return None

    return other_name, claimed_name


def _watched_events(touches, ours, watched_prefixes, other_name, guarded):
    """The audit events the witness watches, each with what says, in words, what one did
    (`None`: one that does not matter; a frame read may be told as an alarm of its own kind, as
    `(kind, words)`). `guarded`: the identities of the witness's pytest
    hooks, whose keyword-only defaults (`__kwdefaults__`, a dictionary that holds the core's
    door) no one but pytest and pluggy may read."""
    from types import CodeType

    frame_reads = _frame_attributes()
    identity = object.__hash__

    def as_is(event, args):
        return event

    def frame_read(event, args):
        name = args[1]
        if name in frame_reads:
            return f"a frame read ({name})"
        if name == "__kwdefaults__" and identity(args[0]) in guarded:
            return "witness", f"the defaults of mend's witness's {args[0].__name__} read"
        return None

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

    def from_the_file(source, name):
        """Whether `source` is what the file `name` holds (the import system and runpy compile
        a module from its file's own bytes)."""
        if type(source) not in (bytes, str):
            return False
        try:
            with open(name, "rb") as held:
                text = held.read()
        except OSError:
            return False
        return source == text if type(source) is bytes else source.encode("utf-8") == text

    def compiled(event, args):
        name = other_name(args[1])
        if name is None or from_the_file(args[0], name):
            return None
        return f"code compiled under the name of {name}"

    def constructed(event, args):
        name = other_name(args[1])
        return None if name is None else f"a code object made under the name of {name}"

    def marshalled(event, args):
        return event  # judged with its caller (`unmarshalled`): the import system's are many

    def from_code(event, args):
        # A module's code run again (`runpy.run_module`) came from its file; a function's code
        # taken to run elsewhere is the name without the function.
        code = args[0]
        if type(code) is not CodeType or code.co_name == "<module>":
            return None
        name = other_name(code.co_filename)
        if name is None:
            return None
        made = "a function made" if event == "function.__new__" else "code run"
        return f"{made} from {code.co_name} of {name}"

    describe = dict.fromkeys((
        "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._getframe",
        "sys._current_frames", "sys.settrace", "sys.setprofile", "sys.addaudithook",
        "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.cdata", "ctypes.string_at",
        "ctypes.wstring_at", "ctypes.addressof"), as_is)
    describe.update({
        "object.__getattr__": frame_read, "object.__setattr__": attribute,
        "object.__delattr__": attribute, "open": opened, "socket.connect": connected,
        "ctypes.dlopen": dlopen, "compile": compiled, "code.__new__": constructed,
        "marshal.loads": marshalled, "function.__new__": from_code, "exec": from_code,
    })
    describe.update(dict.fromkeys(
        ("os.rename", "os.remove", "os.truncate", "os.link", "os.symlink"), moved))
    return describe


def _audit_hook(places, alarm, describe, claimed_name, guarded):
    """The audit hook: what project code does that reaches into the run (frames, live objects,
    tracing, ctypes, pytest's and pluggy's classes, the report and the socket), each told as an
    alarm naming the file and line it is owed to."""
    import marshal
    import os
    import sys

    kind, place, responsible, _, _ = places
    # Events owed to whoever called the standard library that raised them.
    through_stdlib = frozenset({"stdlib"})
    # Frame access: the standard library's own (logging's caller lookup, typing, namedtuple) is
    # its business. What hands the frames it reads on to its caller is passed over, to judge
    # the caller: all of inspect, and the functions that return or yield frames.
    stdlib_dir = os.path.dirname(os.__file__)
    inspect_file = os.path.normcase(os.path.join(stdlib_dir, "inspect.py"))
    hand_frames_on = {
        (os.path.normcase(os.path.join(stdlib_dir, "logging", "__init__.py")), "currentframe"),
        (os.path.normcase(os.path.join(stdlib_dir, "logging", "__init__.py")), "<lambda>"),
        (os.path.normcase(os.path.join(stdlib_dir, "traceback.py")), "walk_stack"),
        (os.path.normcase(os.path.join(stdlib_dir, "traceback.py")), "walk_tb"),
    }

    def hands_frames_on(code):
        filename = os.path.normcase(code.co_filename)
        return filename == inspect_file or (filename, code.co_name) in hand_frames_on

    def judge_frame_access(what, caller):
        frame = caller
        while frame is not None and hands_frames_on(frame.f_code):
            frame = frame.f_back
        if frame is not None and kind(frame.f_code.co_filename) == "project":
            kind_, what = what if type(what) is tuple else ("frame", what)
            alarm(kind_, what, place(frame))

    quiet_without_a_caller = frozenset({"sys.settrace", "sys.setprofile", "compile",
                                        "code.__new__", "marshal.loads", "function.__new__",
                                        "exec"})

    def judge(event, what, caller):
        if event in ("sys._getframe", "object.__getattr__"):
            return judge_frame_access(what, caller)
        frame = responsible(caller, through_stdlib)
        if frame is None:
            # (threading starting a thread with the trace function it was given; the import
            # system making code as Python starts)
            if event not in quiet_without_a_caller:
                alarm("audit", what, None)
        elif kind(frame.f_code.co_filename) == "project":
            alarm("audit", what, place(frame))

    busy = [False]
    getframe = sys._getframe
    from_importlib = "<frozen importlib._bootstrap_external>"

    def file_loader(frame):
        """The loader whose `get_code` runs in `frame` (importlib's own), when it reads its files
        with importlib's own `get_data`: the bytes it unmarshals are then the file's."""
        if frame is None or frame.f_code.co_filename != from_importlib:
            return None
        loader = frame.f_locals.get("self")
        get_data = getattr(type(loader), "get_data", None)
        own = getattr(sys.modules.get("_frozen_importlib_external"), "FileLoader", None)
        return loader if get_data is not None and get_data is getattr(own, "get_data", None) \
            else None

    sourceless = getattr(sys.modules.get("_frozen_importlib_external"), "SourcelessFileLoader",
                         None)

    def claimed_in(data):
        """The file not the project's that code marshalled in `data` names itself after, if
        any (`None` too for bytes that are no such code)."""
        try:
            return claimed_name(marshal.loads(data))
        except Exception:
            return None

    def names_itself(found):
        """Whether a module's bytecode found without its source (`found`: the locals of
        importlib's `_compile_bytecode`) names no file but its own, or files of the project:
        importlib keeps the names such code gives itself, where it names a module's code after
        its source file when there is one (`_fix_co_filename`)."""
        if "data" not in found:
            return False  # not the `_compile_bytecode` known here: judged as any other
        name = claimed_in(found["data"])
        path = found.get("bytecode_path")
        return name is None or (isinstance(path, str) and
                                os.path.splitext(os.path.normcase(name))[0] ==
                                os.path.splitext(os.path.normcase(path))[0])

    def import_system_loading(caller):
        """Whether `caller` is the import system unmarshalling a module's bytecode from a file,
        under that file's name: importlib's own, for a loader that reads files with importlib's
        `get_data` (bytecode without source only when its code names its own file), or
        zipimport's, from an archive outside the project."""
        code = caller.f_code
        if code.co_filename == from_importlib:
            if code.co_name != "_compile_bytecode":
                return False
            loader = file_loader(caller.f_back)
            if loader is None:
                return False
            return sourceless is None or not issubclass(type(loader), sourceless) \
                or names_itself(caller.f_locals)
        if code.co_filename == "<frozen zipimport>" and code.co_name == "_unmarshal_code":
            archive = getattr(caller.f_locals.get("self"), "archive", None)
            return isinstance(archive, str) and kind(archive) != "project"
        return False

    def unmarshalled(args, caller):
        """What a `marshal.loads` makes under another file's name: `None` when it is the
        import system loading a module's bytecode, or when nothing it holds claims a file that
        is not the project's. The bytes are read only then, and only when project code is
        responsible (`judge`)."""
        if import_system_loading(caller):
            return None
        frame = responsible(caller, through_stdlib)
        if frame is None or kind(frame.f_code.co_filename) != "project":
            return None
        name = claimed_in(args[0])
        return None if name is None else f"code loaded by marshal under the name of {name}"

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
                caller = getframe(2)
                if event == "marshal.loads":
                    what = unmarshalled(args, caller)
                elif event == "code.__new__" and import_system_loading(caller):
                    what = None  # Python 3.8 tells each code object marshal makes
                if what is not None:
                    judge(event, what, caller)
        except Exception:
            pass
        finally:
            busy[0] = False

    frame_reads = _frame_attributes()
    identity = object.__hash__
    frameless = _taken_from_anyone()
    # What the witness's own pytest hooks hand on (`_forwarders`), given to the core (`_core`)
    # with the frame that handed it over; set once the core is made.
    core = [None]

    def audit(event, args):
        # The events pytest raises for every test come first, each passed over after as few
        # comparisons as tell it (looking a name up in `describe` hashes it: Python makes each
        # event's name anew). It reads `__code__`, `__defaults__` and `__kwdefaults__` of every
        # test function (`object.__getattr__`): passed over before a call, as are the reads of
        # any function's but the witness's hooks' `__kwdefaults__`. It calls `id()`, and sets
        # and unsets `PYTEST_CURRENT_TEST` (`os.putenv`, `os.unsetenv`), which no check watches.
        if event == "object.__getattr__":
            name = args[1]
            if name in frame_reads or (name == "__kwdefaults__" and identity(args[0]) in guarded):
                heard(event, args)
        elif event == "builtins.id" or event == "os.putenv" or event == "os.unsetenv":
            return
        elif event in describe:
            if not busy[0]:  # (else raised by the witness's own reading: `heard` passes it over)
                heard(event, args)
        elif event == "mend_witness" and core[0] is not None:
            if args and type(args[0]) is str and args[0] in frameless:
                return core[0](args, None)
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
    import marshal
    import os
    import sys

    watched = []
    # Python's own, taken before it is stood in: the stand-in for `exec` reads its caller.
    getframe = sys._getframe

    def stand_in(module, name, counts_frames=False, event=None):
        original = getattr(module, name, None)
        if original is None:
            return
        event = event or f"{module.__name__}.{name}"

        if name == "exec":
            # `exec(code)` alone runs in its caller's namespaces, not in the stand-in's (a
            # package's `exec(open("_version.py").read())`).
            def watching(*args, **kwargs):
                heard(event, args)
                if len(args) == 1 and not kwargs:
                    caller = getframe(1)
                    return original(args[0], caller.f_globals, caller.f_locals)
                return original(*args, **kwargs)
        elif not counts_frames:
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
    # Code made under another file's name (`_other_names`): what of it has a name to stand in.
    stand_in(builtins, "compile", event="compile")
    stand_in(builtins, "exec", event="exec")
    stand_in(marshal, "loads")

    def check():
        for module, name, watching in watched:
            now = getattr(module, name, None)
            if now is not watching:
                alarm("replaced", f"{module.__name__}.{name} replaced", defined_at(now))

    return check


