# The collected tests, held to what runs each of them as collection made it.


def _collected_items(alarm, defined_at):
    """`collected(items, by_id)` as collection ends, and `check(nodeid)` as a test starts and as
    its call ends: the item pytest runs for a test must still be of the class collection made
    it, run that class's methods, and call the function collected for it.

    Why: pytest holds its items where the code under test can reach them with no audit event
    (the session is a plugin registered under its name, on the configuration the assertion
    rewriter on `sys.meta_path` holds). A test's function swapped on its item (`item.obj`), a
    method set on the item itself (`item.runtest`), or the item given another class would run
    something else under the test's name, with nothing of pytest's classes or modules replaced.
    So each item is held with its class and its function; a method of its class that the item
    shadows since, another class or another function is an alarm, told once per test. A test in
    a class is compared by the function its method binds: pytest binds it again to a new
    instance for each test.

    Not seen: a swap made while the test's own fixtures are set up by a stand-in that puts the
    test's function back as it is called (only a check as the call runs would see it), and a
    fixture's function swapped on pytest's definition of it."""
    from types import FunctionType, MethodType

    held = {}  # nodeid -> (item, its class, its function or None, the methods it shadowed then)
    methods_of = {}  # class -> the names under which it has a function (its own or inherited)

    def methods(kind):
        names = methods_of.get(kind)
        if names is None:
            found = {}
            for klass in reversed(kind.__mro__):
                found.update(vars(klass))
            names = methods_of[kind] = frozenset(
                name for name, value in found.items() if type(value) is FunctionType)
        return names

    nothing = frozenset()

    def collected(items, by_id):
        """Holds each of `items`, and puts it in `by_id` under its id."""
        for item in items:
            nodeid = item.nodeid
            by_id[nodeid] = item
            kind, own = type(item), vars(item)
            # The item's function, read from its own dictionary: no code of the item's runs.
            function = own.get("_obj")
            if type(function) is MethodType:
                function = function.__func__
            names = methods_of.get(kind) or methods(kind)
            held[nodeid] = (item, kind, function if type(function) is FunctionType else None,
                            nothing if names.isdisjoint(own) else names.intersection(own))

    def tell(nodeid, what, where=None):
        del held[nodeid]  # told once
        alarm("replaced", f"{what} of the test {nodeid}", where)

    def check(nodeid):
        entry = held.get(nodeid)
        if entry is None:
            return
        item, kind, function, shadowed = entry
        if type(item) is not kind:
            return tell(nodeid, "the class of the item", defined_at(type(item)))
        own = vars(item)
        # Python reads the item's attributes from its dictionary at C level, whatever its
        # class: one of another class than `dict` could answer `get` with the function collected.
        if type(own) is not dict:
            return tell(nodeid, f"the attributes of the item, held in a {type(own).__qualname__},")
        if function is not None:
            now = own.get("_obj")
            if (now.__func__ if type(now) is MethodType else now) is not function:
                return tell(nodeid, "the function", defined_at(now))
        if not methods_of[kind].isdisjoint(own):
            added = sorted(methods_of[kind].intersection(own) - shadowed)
            if added:
                tell(nodeid, f"{', '.join(added)} set on the item", defined_at(own[added[0]]))

    return collected, check
