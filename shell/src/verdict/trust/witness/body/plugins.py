# Plugins and hooks: what the project registers, ships or replaces after pytest's own.


def _entry_points(places, alarm, own):
    """`shipped_by_project(pm)`: an alarm for each entry-point plugin pytest loaded from package
    metadata inside the project (a `.dist-info` beside the code): an installed package keeps its
    metadata in site-packages. The witness's own (`own`, the module pytest registered), whose
    metadata mend hands over beside it, is mend's."""
    import os

    kind, _, _, _, root = places

    def shipped_by_project(pm):
        for plugin, dist in pm.list_plugin_distinfo():
            if plugin is own:
                continue
            try:
                location = str(dist.locate_file(""))
            except Exception:
                continue
            metadata = getattr(dist, "_path", None)
            source = str(metadata) if metadata is not None else location
            if kind(os.path.join(source, "METADATA")) == "project":
                name = pm.get_name(plugin)
                alarm("plugin", f"the entry-point plugin {name!r} declared by {dist.metadata['Name']}",
                      os.path.relpath(source, root) if source.startswith(root) else source)

    return shipped_by_project


def _outside_the_copy(copy, alarm, unchecked):
    """`configured_from(config)` and `conftest(plugin)`: the files pytest finds by walking up
    from the tests, its configuration (`pytest.ini`, `pyproject.toml`, `tox.ini`, `setup.cfg`)
    and each `conftest.py`, must lie in the copy (`copy`: the folder mend started the command
    in, as the command sees it). One above it is none of the repository's, and anyone who can
    write there (without a sandbox, a temporary folder above every copy) shapes the run: its
    options, its hooks, a module put in place of the project's. Found by pytest's search it is an
    alarm; named with `-c` by the task's own command, a check not made. Without `copy` (a
    wrapper that passes `MEND_WITNESS` on and not `MEND_WITNESS_COPY`) nothing is compared, and
    that is told."""
    import os
    from types import ModuleType

    if not copy:
        unchecked("the files pytest read from above the copy (its configuration, conftest.py)",
                  "MEND_WITNESS_COPY did not reach pytest: a wrapper that passes variables on "
                  "must pass it too")
        return (lambda config: None), (lambda plugin: None)
    roots = tuple({os.path.join(os.path.abspath(copy), ""),
                   os.path.join(os.path.realpath(copy), "")})

    def outside(path):
        # By the name pytest gives it, under the copy's name or its real one (pytest resolves
        # some paths). Never by where a link leads: a file above the copy linked to one in it
        # still shapes the run from above.
        return not os.path.abspath(path).startswith(roots)

    def configured_from(config):
        path = getattr(config, "inipath", None) or getattr(config, "inifile", None)
        if path is None or not outside(str(path)):
            return
        if getattr(getattr(config, "option", None), "inifilename", None):
            unchecked(f"pytest's configuration {path}",
                      "the test command names it with -c, outside the copy: what it holds is "
                      "not the repository's")
        else:
            alarm("outside", f"its configuration {path}")

    def conftest(plugin):
        filename = getattr(plugin, "__file__", None) if isinstance(plugin, ModuleType) else None
        if type(filename) is str and os.path.basename(filename) == "conftest.py" \
                and outside(filename):
            alarm("outside", f"the conftest {filename}")

    return configured_from, conftest


def _plugins(places, alarm, unchecked, own, witness_plugin, outside_the_copy):
    """Plugins and hooks: what was registered before configuration is allowed; a plugin the
    project registers later, a new implementation of an outcome hook, or a replaced hook caller
    is an alarm. A plugin of the project's registered before the witness (named with `-p` by the
    project's configuration or a wrapper's command, which pytest reads before mend's) is told as
    a check not made: what it did as it loaded went unwatched. `own`: the witness's module;
    `witness_plugin`: the plugin the witness registers while its canaries run, and its one
    hook (`_kept_off_the_terminal`): an implementation of anything else it holds is a new one.
    `outside_the_copy`: what tells of configuration and conftests from outside the copy.
    Returns `configured(config)`, `registered(...)`, `collected(pm)` and `check()`."""
    import sys
    from itertools import chain
    from operator import attrgetter, is_
    from types import MethodType, ModuleType

    kind, place, responsible, defined_at, _ = places
    configured_from, conftest = outside_the_copy
    # An object's identity without `id()`, whose every call is an audit event (the audit hook's
    # cost): `object.__hash__` is made of the address, as `id` is, and no class overrides it.
    identity = object.__hash__
    shipped_by_project = _entry_points(places, alarm, own)
    outcome_prefixes = ("pytest_runtest_", "pytest_collect", "pytest_report_", "pytest_session",
                        "pytest_pyfunc_call", "pytest_terminal_summary", "pytest_fixture_",
                        "pytest_deselected", "pytest_itemcollected", "pytest_unconfigure",
                        "pytest_make_collect_report", "pytest_pycollect_makeitem")
    # The hooks that run a test and make and carry its report, checked as each test starts. The
    # rest are checked with them when collection ends and when the session finishes: those of
    # collection, the session and the summary run before or after the tests (one replaced and
    # put back between two tests never ran), and those that only tell of a test (its start and
    # end as logged, the terminal's status letter) change nothing the witness hears of it: it
    # hears each phase from its own report hook, called before every other. (Its own start hook
    # silenced is named by the reports that follow.)
    per_test_prefixes = ("pytest_runtest_", "pytest_pyfunc_call", "pytest_fixture_",
                         "pytest_report_to_serializable", "pytest_report_from_serializable")
    told_after = frozenset({"pytest_runtest_logstart", "pytest_runtest_logfinish"})
    through_registration = frozenset({"stdlib", "pytest", "witness"})
    watching = {}  # the plugin manager and its hook callers, as configured
    allowed_impls = set()
    functions = {}  # identity(impl) -> the function it was registered with
    callers = {}
    checked = {True: [], False: []}  # the callers' names each check compares: per test, all
    seen_impls = {}
    told = set()

    def relay(pm):
        """pytest's hooks by name, as pluggy finds them (`pm.hook`, whose attributes they are).
        Python reads an object's attributes from its dictionary at C level, whatever its class:
        one of another class than `dict` could answer `get`, `items` and the rest with other
        callers, so it is told, and read as Python reads it (`dict.copy`)."""
        hooks = vars(pm.hook)
        if type(hooks) is not dict:
            once(f"pytest's hooks held in a {type(hooks).__qualname__}")
            hooks = dict.copy(hooks)
        return hooks

    def held_lists(caller):
        """The lists in which pluggy keeps `caller`'s implementations: one from pluggy 1.1,
        `_nonwrappers` then `_wrappers` before it; a pluggy with neither, its `get_hookimpls()`."""
        held = getattr(caller, "_hookimpls", None)
        if held is not None:
            return (held,)
        if hasattr(caller, "_nonwrappers") and hasattr(caller, "_wrappers"):
            return (caller._nonwrappers, caller._wrappers)
        return (caller.get_hookimpls(),)

    def implementations(name, caller):
        """`caller`'s implementations, as pluggy calls them. pluggy keeps them in plain lists and
        copies them at C level (`list.copy`, `+`) to call them: a list of another class could
        answer iteration and `len` with other items than those, so it is told, and its own
        items are read as pluggy reads them."""
        found = []
        for held in held_lists(caller):
            if type(held) is not list:
                once(f"the implementations of {name} held in a {type(held).__qualname__}")
            try:
                found.extend(list.copy(held))
            except TypeError:  # no list at all
                found.extend(held)
        return found

    def outcome_hooks(pm):
        return {name: caller for name, caller in relay(pm).items()
                if name.startswith(outcome_prefixes)}

    def allow(plugin, pm):
        # (pluggy before 1.0 keeps each plugin's callers: one lookup, not a pass over all hooks.)
        for caller in pm.get_hookcallers(plugin) or []:
            for impl in implementations(getattr(caller, "name", "?"), caller):
                if impl.plugin is plugin:
                    allowed_impls.add(identity(impl))
                    functions[identity(impl)] = impl.function

    def allow_witness_plugin(pm):
        """The witness's own plugin's one hook (`witness_plugin`), looked for where it is: a
        pass over every hook caller (`get_hookcallers` from pluggy 1.0) cost each of its
        registrations more than the hook's calls it spares a test."""
        plugin, function = witness_plugin
        name = "pytest_report_teststatus"
        caller = relay(pm).get(name)
        for impl in implementations(name, caller) if caller is not None else ():
            if impl.plugin is plugin and impl.function is function:
                allowed_impls.add(identity(impl))
                functions[identity(impl)] = function

    def configured(config):
        configured_from(config)
        pm = config.pluginmanager
        # pluggy's hook calling (every pluggy from 0.13 on has both; a later one may not).
        hookexec = getattr(pm, "_inner_hookexec", None)
        hook_calling = getattr(pm, "_hookexec", None)
        if hookexec is None or hook_calling is None:
            unchecked("pluggy's hook calling (PluginManager._inner_hookexec, _hookexec)",
                      "not found in this pluggy")
        watching.update(pm=pm, hookexec=hookexec, hook_calling=hook_calling)
        # Every implementation of every plugin registered so far, in one pass over the hooks
        # (`get_hookcallers` per plugin would pass over all of them once for each).
        plugins = {identity(plugin) for plugin in pm.get_plugins()}
        for name, caller in relay(pm).items():
            for impl in implementations(name, caller):
                if identity(impl.plugin) in plugins:
                    allowed_impls.add(identity(impl))
                    functions[identity(impl)] = impl.function
        shipped_by_project(pm)
        callers.update(outcome_hooks(pm))
        name_checked()

    # Whether pytest registered the witness itself yet: pluggy first tells a plugin's hooks of
    # every plugin registered before it, then of itself.
    own_registered = [own is None]

    def loaded_before(plugin, manager):
        module = plugin if isinstance(plugin, ModuleType) \
            else sys.modules.get(getattr(type(plugin), "__module__", None) or "")
        filename = getattr(module, "__file__", None)
        if isinstance(filename, str) and kind(filename) == "project":
            unchecked(f"what the project's plugin {manager.get_name(plugin)!r} did as it loaded",
                      "it loaded before mend's witness, named with -p by the project's "
                      "configuration or a wrapper's command")

    def registered(plugin, manager, caller):
        """`caller`: the frame that called the witness's hook (pluggy's hook calling)."""
        conftest(plugin)
        if plugin is witness_plugin[0]:
            # Whoever registered it, what it may hold is the witness's hook: anything else it
            # holds now is a new implementation, told as the callers are next looked at.
            allow_witness_plugin(manager)
            return
        if not own_registered[0]:
            if plugin is own:
                own_registered[0] = True
            else:
                loaded_before(plugin, manager)
        if manager is not watching.get("pm"):
            return
        frame = responsible(caller, through_registration)
        if frame is None or kind(frame.f_code.co_filename) == "project":
            name = manager.get_name(plugin)
            alarm("plugin", f"the plugin {name!r} registered after pytest was configured",
                  place(frame) if frame is not None else None)
            return
        allow(plugin, manager)

    def collected(pm):
        for name, caller in outcome_hooks(pm).items():
            callers.setdefault(name, caller)  # hooks that plugins loaded since declared
        name_checked()

    def name_checked():
        checked[True] = [name for name in callers
                         if name.startswith(per_test_prefixes) and name not in told_after]
        checked[False] = list(callers)
        shapes = {1 if hasattr(caller, "_hookimpls") else 2 if hasattr(caller, "_nonwrappers")
                  and hasattr(caller, "_wrappers") else None for caller in callers.values()}
        lists_in_each[0] = shapes.pop() if len(shapes) == 1 else None

    def once(what, where=None):  # a replaced caller is told once, wherever it is seen again
        if what not in told:
            told.add(what)
            alarm("hook", what, where)

    def check_impls(name, caller):
        impls = implementations(name, caller)
        seen = seen_impls.get(name)
        # The same implementations as last time, compared at C speed by identity: `==` would ask
        # a stand-in's own `__eq__`, which can answer yes to anything.
        if seen is not None and len(impls) == len(seen[0]) and all(map(is_, impls, seen[0])) \
                and all(map(is_, map(function_of, impls), seen[1])):
            return
        seen_impls[name] = (list(impls), [impl.function for impl in impls])
        for impl in impls:
            if identity(impl) not in allowed_impls:
                allowed_impls.add(identity(impl))
                functions[identity(impl)] = impl.function
                alarm("hook", f"a new implementation of {name} ({impl.plugin_name})",
                      defined_at(impl.function))
            elif impl.function is not functions.get(identity(impl), impl.function):
                functions[identity(impl)] = impl.function  # told once
                alarm("hook", f"the implementation of {name} ({impl.plugin_name}) replaced",
                      defined_at(impl.function))

    hookexec_of = attrgetter("_hookexec")
    function_of = attrgetter("function")
    # How many lists every caller keeps its implementations in (`held_lists`): the check as each
    # test starts finds them where they are (1 from pluggy 1.1, 2 before it; `None`: callers
    # differ, or keep them otherwise, and each is looked at every time).
    lists_in_each = [None]
    # What `look` last left, for each check (`None` until then); holding the objects, so none is
    # freed and its place taken by another.
    last = {True: None, False: None}

    def seen_now(pm, names):
        """What `look` reads of the callers named, for `check` to find again by identity:
        pluggy's hook calling, the relay's dictionary, and for each caller (in the order of
        `names`) its name, the caller, its hook calling, the lists that hold its
        implementations (a caller's list, or its pair of lists before pluggy 1.1) and how many
        they hold; then every implementation and its function, in the order they are held.
        `None` where any of it is not Python's own (the relay's dictionary, a list of another
        class, callers that keep their implementations otherwise): `look` then looks at each
        every time."""
        hooks = vars(pm.hook)
        if type(hooks) is not dict or lists_in_each[0] not in (1, 2):
            return None
        entries, impls = [], []
        for name in names:
            caller = hooks[name]
            kept = held_lists(caller)
            if len(kept) != lists_in_each[0] or not all(type(one) is list for one in kept):
                return None
            impls.extend(chain.from_iterable(kept))
            entries.append((name, caller, hookexec_of(caller), *kept, sum(map(len, kept))))
        return (lists_in_each[0], getattr(pm, "_inner_hookexec", None), hooks, tuple(entries),
                tuple(impls), tuple(map(function_of, impls)))

    class Changed(Exception):
        """Something `check` compares is not what `seen_now` saw."""

    def check(per_test=True):
        """What `look` compares (as each test starts, of the hooks called while tests run;
        otherwise of all), compared at once, and looked at one by one only when something
        changed.

        Compared with what `seen_now` saw, each object by identity (no `__eq__` of theirs asked,
        no `id()`, which is an audit event), without building what it built. The relay's
        dictionary and the lists are the very objects seen, which Python lets no code give
        another class: their lookups, `len` and iteration are then Python's own. Written out
        here, plain loops, one per layout of pluggy's, rather than in functions of their own: a
        call costs each test more than a loop's turn, Python 3.11 and later specialize the
        loops' attribute reads (which then cost less than `map` with `attrgetter` and `is_`
        does, and as much before 3.11), and an index into what was seen costs less than a `zip`
        with it."""
        pm = watching.get("pm")
        if pm is None:
            return
        try:
            lists, inner, hooks, entries, impls, functions_seen = last[per_test]
            if getattr(pm, "_inner_hookexec", None) is not inner or vars(pm.hook) is not hooks:
                raise Changed
            at = 0
            if lists == 2:
                for name, caller, hookexec, nonwrappers, wrappers, count in entries:
                    if hooks[name] is not caller or caller._hookexec is not hookexec \
                            or caller._nonwrappers is not nonwrappers \
                            or caller._wrappers is not wrappers \
                            or len(nonwrappers) + len(wrappers) != count:
                        raise Changed
                    for impl in nonwrappers:
                        if impl is not impls[at] or impl.function is not functions_seen[at]:
                            raise Changed
                        at += 1
                    for impl in wrappers:
                        if impl is not impls[at] or impl.function is not functions_seen[at]:
                            raise Changed
                        at += 1
            else:
                for name, caller, hookexec, held, count in entries:
                    if hooks[name] is not caller or caller._hookexec is not hookexec \
                            or caller._hookimpls is not held or len(held) != count:
                        raise Changed
                    for impl in held:
                        if impl is not impls[at] or impl.function is not functions_seen[at]:
                            raise Changed
                        at += 1
            return
        except Exception:  # (`Changed`, nothing seen yet, or a stand-in that raises)
            pass
        look(pm)
        for kind_of_check in last:
            try:
                last[kind_of_check] = seen_now(pm, checked[kind_of_check])
            except Exception:
                last[kind_of_check] = None

    def calls_through(caller, hook_calling):
        """Whether `caller` calls its implementations through pluggy's hook calling, by identity:
        pluggy gives each caller a bound method of its own (so `is` alone would always differ),
        and `!=` would ask a stand-in's own `__ne__`."""
        method = getattr(caller, "_hookexec", None)
        if type(hook_calling) is not MethodType:
            return method is hook_calling
        return type(method) is MethodType and method.__self__ is hook_calling.__self__ \
            and method.__func__ is hook_calling.__func__

    def look(pm):
        hookexec = getattr(pm, "_inner_hookexec", None)
        if hookexec is not watching["hookexec"]:
            once("pluggy's hook caller (PluginManager._inner_hookexec) replaced",
                 defined_at(hookexec))
        hook_calling = watching["hook_calling"]
        relay(pm)  # (tells a dictionary of another class)
        for name, caller in callers.items():
            if getattr(pm.hook, name, None) is not caller \
                    or not calls_through(caller, hook_calling):
                once(f"the hook {name} replaced")
            check_impls(name, caller)

    return configured, registered, collected, check


