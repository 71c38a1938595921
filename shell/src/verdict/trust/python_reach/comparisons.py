"""Comparisons whose answer does not depend on what they are given. `assert result == expected`,
`assertEqual`, `in`, `assert value` all rest on a value's own comparison methods; one whose
answer is the same whatever the other value is makes every check of the value pass. Read as data
flow: which names the answer (or the path to it) reads, starting from the parameters it is judged
on. Part of mend's reader of added Python (see reach.py)."""

import ast

# Judged on the values after `self`: the answer must depend on one of them.
BINARY = {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__contains__"}
# Judged on `self`: the answer must depend on the value itself.
UNARY = {"__bool__", "__hash__"}
# A class's namespace given as a dict (`type(name, bases, {...})`).
NAMESPACE = "a namespace's "
WRAPPERS = {"partialmethod", "partial"}


def function_of(value, names, local):
    """The function a value assigned as a method is, and how many parameters after `self` a
    wrapper already bound: (function, bound positional, bound keywords, has self), else None."""
    if isinstance(value, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)):
        return value, 0, set(), True
    if isinstance(value, ast.Name):
        found = local.get(value.id) or names.functions.get(value.id)
        return function_of(found, names, {}) if found is not None and found is not value else None
    if not isinstance(value, ast.Call) or not value.args:
        return None
    if isinstance(value.func, ast.Call):
        # A decorator made by a call, applied: `functools.wraps(f)(g)` is g.
        return function_of(value.args[-1], names, local)
    called = (names.path(value.func) or "").rsplit(".", 1)[-1]
    inner = function_of(value.args[0], names, local)
    if inner is None:
        return None
    function, bound, keywords, has_self = inner
    if called in WRAPPERS:
        bound += len(value.args) - 1
        keywords = keywords | {keyword.arg for keyword in value.keywords if keyword.arg}
        return function, bound, keywords, has_self
    if called == "staticmethod":
        return function, bound, keywords, False
    if called == "classmethod":
        return function, bound, keywords, True
    return None


def positional(function):
    arguments = function.args
    return [arg.arg for arg in getattr(arguments, "posonlyargs", []) + arguments.args]


def watched(method, function, bound, keywords, has_self):
    """The parameters the method's answer must depend on."""
    ordered = positional(function)
    first, after = (ordered[:1], ordered[1:]) if has_self else ([], ordered)
    if method in UNARY:
        return set(first or after[:1])
    # Python's operators pass one value: the first parameter left, or `*args` when none is.
    # A parameter after it is never given one, so it is as constant as its default.
    left = [name for name in after[bound:] if name not in keywords]
    if left:
        return {left[0]}
    vararg = function.args.vararg
    return {vararg.arg} if vararg is not None else set()


def is_stub(function):
    """A body that only says the method exists (`...`, `pass`, a docstring, an abstract raise)."""
    if isinstance(function, ast.Lambda):
        return False
    decorators = {getattr(d, "attr", getattr(d, "id", "")) for d in function.decorator_list}
    if decorators & {"abstractmethod", "overload"}:
        return True
    body = [statement for statement in function.body
            if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))]
    return all(isinstance(statement, ast.Pass) for statement in body)


def uses(node, tainted):
    return any(isinstance(inner, ast.Name) and inner.id in tainted for inner in ast.walk(node))


def assigned_names(target):
    return [node.id for node in ast.walk(target) if isinstance(node, ast.Name)]


def tainted_names(function, seeds):
    """Every name whose value comes from `seeds`: assigned from them, looped over them, or an
    object a call handed one of them to (`h.update(other)`)."""
    tainted = set(seeds)
    nodes = list(ast.walk(function))
    while True:
        before = len(tainted)
        for node in nodes:
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if node.value is not None and uses(node.value, tainted):
                    for target in targets:
                        tainted.update(assigned_names(target))
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                if uses(node.iter, tainted):
                    tainted.update(assigned_names(node.target))
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                if uses(node.context_expr, tainted):
                    tainted.update(assigned_names(node.optional_vars))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                receiver = node.func.value
                arguments = node.args + [keyword.value for keyword in node.keywords]
                if isinstance(receiver, ast.Name) and any(uses(arg, tainted) for arg in arguments):
                    tainted.add(receiver.id)
        if len(tainted) == before:
            return tainted


def truth_depends(node, tainted):
    """Whether the truth of `node` can change with the tainted names (`x or True` cannot)."""
    if isinstance(node, ast.BoolOp):
        decides = isinstance(node.op, ast.Or)
        for value in node.values:
            if isinstance(value, ast.Constant) and bool(value.value) == decides:
                return False
        return any(truth_depends(value, tainted) for value in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return truth_depends(node.operand, tainted)
    return uses(node, tainted)


CONTROL = (ast.If, ast.While, ast.IfExp, ast.Assert)


def answer_depends(function, seeds):
    """Whether what `function` answers, or whether it answers at all, depends on `seeds`."""
    tainted = tainted_names(function, seeds)
    if isinstance(function, ast.Lambda):
        return truth_depends(function.body, tainted)
    returns = [node for node in ast.walk(function) if isinstance(node, ast.Return)]
    deferred = [node for node in returns
                if isinstance(node.value, ast.Name) and node.value.id == "NotImplemented"]
    if returns and len(deferred) == len(returns):
        return True  # Python asks the other value instead
    if not returns and any(isinstance(node, ast.Raise) for node in ast.walk(function)):
        return True  # it never answers
    for node in ast.walk(function):
        if isinstance(node, ast.Return) and node.value is not None:
            if node not in deferred and truth_depends(node.value, tainted):
                return True
        elif isinstance(node, CONTROL) and uses(node.test, tainted):
            return True
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and uses(node.iter, tainted):
            return True
        elif isinstance(node, ast.Raise) and node.exc is not None and uses(node.exc, tainted):
            return True
        elif isinstance(node, ast.Try) and node.handlers and any(uses(s, tainted) for s in node.body):
            return True  # which handler runs, if any, depends on the value
        elif type(node).__name__ == "Match" and uses(node.subject, tainted):
            return True
    return False


def ignoring(method, value, names, local):
    """The function set as `method` when its answer does not look at what it is judged on."""
    found = function_of(value, names, local)
    if found is None:
        return None
    function, bound, keywords, has_self = found
    if is_stub(function):
        return None
    seeds = watched(method, function, bound, keywords, has_self)
    return None if answer_depends(function, seeds) else function


ORDERING = ("__lt__", "__le__", "__gt__", "__ge__")
# An extreme value (packaging's Infinity) is above or below everything, consistently.
EXTREMES = ((False, False, True, True), (True, True, False, False))


def constant_truth(function):
    """The truth every return of `function` has when each returns a literal, else None."""
    if isinstance(function, ast.Lambda):
        answers = [function.body]
    else:
        answers = [node.value for node in ast.walk(function) if isinstance(node, ast.Return)]
    if not answers or not all(isinstance(answer, ast.Constant) for answer in answers):
        return None
    truths = {bool(answer.value) for answer in answers}
    return truths.pop() if len(truths) == 1 else None


def excused(found, bases):
    """Of one class's comparisons that ignore their argument (method -> function), the ones no
    check can be gamed with: a constant hash (equal values still compare with __eq__), a falsy
    constant truth (a sentinel for "no value"), a truthy one on a class with no base (objects
    are truthy already), and the four orderings of an extreme value."""
    excused = set()
    if "__eq__" not in found:
        excused.add("__hash__")
    truth = constant_truth(found["__bool__"]) if "__bool__" in found else None
    if truth is False or (truth is True and not bases):
        excused.add("__bool__")
    ordering = tuple(constant_truth(found.get(method)) if method in found else None
                     for method in ORDERING)
    if ordering in EXTREMES and "__eq__" not in found:
        excused.update(ORDERING)
    return excused


WHY = {
    "__hash__": "the same for every value",
    "__bool__": "answer the same for every value",
}


def comparison_findings(nodes, names):
    """Each place a comparison method is set to one that ignores its argument: in a class body,
    on a class later (`C.__eq__ = ...`, `setattr`), in a namespace (`type(...)`, a dict)."""
    for node in nodes:
        found = {}
        for place, owner, method, value, local in method_settings(node, names):
            function = ignoring(method, value, names, local)
            if function is not None:
                found[method] = (place, owner, function)
        if not found:
            continue
        bases = [base for base in getattr(node, "bases", [])
                 if not (isinstance(base, ast.Name) and base.id == "object")]
        skip = excused({method: function for method, (_, _, function) in found.items()}, bases)
        for method, (place, owner, _) in found.items():
            if method not in skip:
                why = WHY.get(method, "answer without looking at what it is compared with")
                yield place, f"makes {owner}{method} {why}"


def method_settings(node, names):
    """(where, owner, method, value, the owner's own functions) for each comparison `node`
    sets."""
    methods = BINARY | UNARY
    if isinstance(node, ast.ClassDef):
        local = {item.name: item for item in node.body
                 if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in methods:
                yield item, f"{node.name}.", item.name, item, local
            elif isinstance(item, (ast.Assign, ast.AnnAssign)) and item.value is not None:
                targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                for target in targets:
                    if isinstance(target, ast.Name) and target.id in methods:
                        yield item, f"{node.name}.", target.id, item.value, local
    elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            method = setting_name(target, names)
            if method in methods:
                yield node, owner_name(target, names), method, node.value, {}
    elif isinstance(node, ast.Call):
        called = names.path(node.func)
        if called == "setattr" and len(node.args) == 3:
            for method in possible_names(node.args[1], names):
                if method in methods:
                    yield node, owner_of(node.args[0], names), method, node.args[2], {}
        for keyword in node.keywords:
            if keyword.arg in methods and called == "dict":
                yield node, NAMESPACE, keyword.arg, keyword.value, {}
    elif isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values):
            if key is not None and names.text(key) in methods:
                yield key, NAMESPACE, names.text(key), value, {}


def setting_name(target, names):
    """The attribute an assignment sets on an object (`C.__eq__ = `, `vars(C)["__eq__"] = `);
    a plain name is a class's own only in its body, read above."""
    if isinstance(target, ast.Attribute):
        return target.attr
    if isinstance(target, ast.Subscript):
        return names.text(subscript_index(target))
    return None


def owner_name(target, names):
    if isinstance(target, ast.Attribute):
        return owner_of(target.value, names)
    return NAMESPACE


def owner_of(node, names):
    path = names.path(node)
    return f"{path}." if path else "an object's "


def possible_names(node, names):
    text = names.text(node)
    if text is not None:
        return [text]
    if isinstance(node, ast.Name):
        return names.loop_strings.get(node.id, [])
    return []

