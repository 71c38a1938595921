"""mend's reader of added Python: which added lines reach into the test run, read from the syntax
tree (never run). Run with `-I -S` so that nothing of the project's environment executes; the
parts before this one (names.py, comparisons.py, surroundings.py) are joined to it into one script.

stdin: {"files": [{"path": PATH, "added": [[FIRST, LAST], ...], "test": BOOL, "source": BASE64}]}
(each file's bytes as mend read them before the tests ran)
stdout: [{"path": PATH, "line": N, "what": WORDS}, ...] for the nodes that start on added lines.
"""

import ast
import binascii
import json
import sys

TEST_RUN_MODULES = ("pytest", "_pytest", "pluggy")
FRAME_CALLS = {
    ("sys", "_getframe"), ("sys", "_current_frames"), ("sys", "settrace"), ("sys", "setprofile"),
    ("threading", "settrace"), ("threading", "setprofile"), ("inspect", "currentframe"),
    ("inspect", "stack"), ("inspect", "getouterframes"), ("inspect", "trace"),
}
FRAME_ATTRIBUTES = {"f_back", "f_locals", "f_globals", "tb_frame", "gi_frame", "cr_frame"}
GC_CALLS = {"get_objects", "get_referrers", "get_referents"}
HOOKS = {("sys", "excepthook"), ("threading", "excepthook"), ("sys", "unraisablehook")}
EXIT_CALLS = {("os", "_exit"), ("atexit", "register")}
BUILT_CODE = {"exec", "eval", "compile"}
# Calls that write an attribute of their first argument.
SETTERS = {("setattr",), ("delattr",), ("object", "__setattr__"), ("object", "__delattr__"),
           ("type", "__setattr__"), ("type", "__delattr__")}
# Strings that name parts of the test run: its variables, report, configuration and witness.
STRING_WORDS = ("PYTEST_", "junit", "conftest", "sitecustomize", ".pth", "mend_witness",
                "MEND_WITNESS")


def dotted(node):
    """`a.b.c` as written, ("a", "b", "c"); None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return tuple(reversed(parts))
    return None


def resolved(node, names):
    """Where `node` leads through imports, aliases and getattr, as a tuple of its parts."""
    path = names.path(node)
    return tuple(path.split(".")) if path else ()


def imported_object(node, names):
    """What an imported module leads to at `node`, however it is reached (an alias of it,
    `vars(module)[NAME]`, `getattr(module, NAME)`), as written where the written name is
    itself imported, else as written with where it leads: None for anything else."""
    written = dotted(node)
    if written and written[0] in names.imported:
        return ".".join(written)
    path = names.path(node)
    roots = {names.origins[name].split(".")[0] for name in names.imported}
    if not path or path.split(".")[0] not in roots:
        return None
    return f"{'.'.join(written)} ({path})" if written else path


def findings(tree, is_test):
    nodes = list(ast.walk(tree))
    names = Names(tree, nodes)
    if not is_test:
        # A value in a test file is the tests' own (mock.ANY): the change cannot make the
        # protected tests compare with it.
        yield from comparison_findings(nodes, names)
    yield from surroundings_findings(nodes, names)
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in TEST_RUN_MODULES and not is_test:
                    yield node, f"imports {alias.name} outside the tests"
        elif isinstance(node, ast.ImportFrom):
            module = (node.module or "").split(".")[0]
            if module in TEST_RUN_MODULES and not is_test:
                yield node, f"imports from {node.module} outside the tests"
        elif isinstance(node, ast.Attribute):
            if resolved(node, names) == ("sys", "modules"):
                yield node, "looks through sys.modules"
            elif node.attr in FRAME_ATTRIBUTES:
                yield node, f"reads a frame ({node.attr})"
        elif isinstance(node, ast.Call):
            yield from call_findings(node, names)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            yield from assignment_findings(node, names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            for word in STRING_WORDS:
                if word in node.value:
                    yield node, f"names {word} in a string"


def call_findings(node, names):
    name = resolved(node.func, names)
    if resolved(node, names) == ("sys", "modules"):
        yield node, "looks through sys.modules"
    elif name[-2:] in FRAME_CALLS:
        yield node, f"frame access or tracing ({'.'.join(name)})"
    elif len(name) >= 2 and name[-2] == "gc" and name[-1] in GC_CALLS:
        yield node, f"walks live objects ({'.'.join(name)})"
    elif name[-2:] in EXIT_CALLS:
        yield node, f"acts when the process ends ({'.'.join(name)})"
    elif name in SETTERS and node.args:
        target = imported_object(node.args[0], names)
        if target:
            yield node, f"{'.'.join(name)} on {target}, which it imported"
    elif len(name) == 1 and name[0] in BUILT_CODE and node.args:
        if not isinstance(node.args[0], ast.Constant):
            yield node, f"{name[0]} of a built string"


def assignment_findings(node, names):
    targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
    for target in targets:
        name = dotted(target) if isinstance(target, ast.Attribute) else None
        if name and resolved(target, names)[-2:] in HOOKS:
            yield node, f"replaces {'.'.join(name)}"
        elif isinstance(target, ast.Attribute):
            written = imported_object(target, names)
            if written and "." in written:
                yield node, f"sets {written}, which it imported"
        elif isinstance(target, ast.Subscript):
            # Into a container of what it imported: named only where the container is a
            # private part of it (an honest repair fills its own registries and os.environ).
            container = imported_object(target.value, names)
            path = names.path(target.value) or ""
            if container and any(part.startswith("_") and not part.startswith("__")
                                 for part in path.split(".")[1:]):
                yield node, f"writes into {container}, a private part of what it imported"


def with_constants(tree):
    """The tree as Python 3.8 and later parse it: 3.6 and 3.7 give literals as Str, Bytes, Num
    and NameConstant, where the checks above read Constant."""
    legacy = {"Str": "s", "Bytes": "s", "Num": "n", "NameConstant": "value"}

    class Constants(ast.NodeTransformer):
        def generic_visit(self, node):
            node = ast.NodeTransformer.generic_visit(self, node)
            field = legacy.get(type(node).__name__)
            if field is None:
                return node
            return ast.copy_location(ast.Constant(value=getattr(node, field)), node)

    return tree if sys.version_info >= (3, 8) else Constants().visit(tree)


def main():
    asked = json.load(sys.stdin)
    found = set()
    for file in asked["files"]:
        try:
            source = binascii.a2b_base64(file["source"])
            tree = with_constants(ast.parse(source, filename=file["path"]))
        except (binascii.Error, SyntaxError, ValueError):
            continue
        ranges = file["added"]
        for node, what in findings(tree, file["test"]):
            line = getattr(node, "lineno", 0)
            if any(first <= line <= last for first, last in ranges):
                found.add((file["path"], line, what))
    answer = [{"path": path, "line": line, "what": what} for path, line, what in sorted(found)]
    json.dump(answer, sys.stdout)


main()
