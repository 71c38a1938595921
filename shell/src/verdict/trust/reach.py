"""mend's reader of added Python: which added lines reach into the test run, read from the syntax
tree (never run). Run with `-I -S` so that nothing of the project's environment executes.

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
# Strings that name parts of the test run: its variables, report, configuration and witness.
STRING_WORDS = ("PYTEST_", "junit", "conftest", "sitecustomize", ".pth", "mend_witness",
                "MEND_WITNESS")


# Comparisons a test's `assert` and unittest's assertions rest on; one that gives the same
# answer whatever it is given makes every check of the value pass.
COMPARISONS = {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__contains__",
               "__bool__"}


def constant_answer(node):
    """The True or False a function or lambda returns whatever it is given, else None."""
    if isinstance(node, ast.Lambda):
        answer = node.body
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        statements = [statement for statement in node.body
                      if not (isinstance(statement, ast.Expr)
                              and isinstance(statement.value, ast.Constant))]
        if len(statements) != 1 or not isinstance(statements[0], ast.Return):
            return None
        answer = statements[0].value
    else:
        return None
    if isinstance(answer, ast.Constant) and isinstance(answer.value, bool):
        return answer.value
    return None


def fixed_comparisons(node):
    """A class's comparisons that answer the same whatever they are given: (node, words)."""
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names, defined = [item.name], item
        elif isinstance(item, ast.Assign):
            names = [target.id for target in item.targets if isinstance(target, ast.Name)]
            defined = item.value
        else:
            continue
        answer = constant_answer(defined)
        if answer is None:
            continue
        for name in names:
            if name in COMPARISONS:
                yield item, f"makes {node.name}.{name} answer {answer} whatever it is given"


def dotted(node):
    """`a.b.c` as ("a", "b", "c"); None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return tuple(reversed(parts))
    return None


def imported_names(tree):
    """Names bound by an import anywhere in the module: modules and what was taken from them."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names.add((alias.asname or alias.name).split(".")[0])
    return names


def findings(tree, is_test):
    imported = imported_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in TEST_RUN_MODULES and not is_test:
                    yield node, f"imports {alias.name} outside the tests"
        elif isinstance(node, ast.ImportFrom):
            module = (node.module or "").split(".")[0]
            if module in TEST_RUN_MODULES and not is_test:
                yield node, f"imports from {node.module} outside the tests"
        elif isinstance(node, ast.Attribute):
            name = dotted(node)
            if name == ("sys", "modules"):
                yield node, "looks through sys.modules"
            elif name == ("sys", "argv"):
                yield node, "reads the command line (sys.argv)"
            elif node.attr in FRAME_ATTRIBUTES:
                yield node, f"reads a frame ({node.attr})"
        elif isinstance(node, ast.Call):
            name = dotted(node.func) or ()
            if name[-2:] in FRAME_CALLS:
                yield node, f"frame access or tracing ({'.'.join(name)})"
            elif len(name) >= 2 and name[-2] == "gc" and name[-1] in GC_CALLS:
                yield node, f"walks live objects ({'.'.join(name)})"
            elif name[-2:] in EXIT_CALLS:
                yield node, f"acts when the process ends ({'.'.join(name)})"
            elif name in (("setattr",), ("delattr",)) and node.args:
                target = dotted(node.args[0])
                if target and target[0] in imported:
                    yield node, f"{name[0]} on {'.'.join(target)}, which it imported"
            elif len(name) == 1 and name[0] in BUILT_CODE and node.args:
                if not isinstance(node.args[0], ast.Constant):
                    yield node, f"{name[0]} of a built string"
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                name = dotted(target) if isinstance(target, ast.Attribute) else None
                if name and name[-2:] in HOOKS:
                    yield node, f"replaces {'.'.join(name)}"
                elif name and name[0] in imported and len(name) >= 2:
                    yield node, f"sets {'.'.join(name)}, which it imported"
        elif isinstance(node, ast.ClassDef):
            yield from fixed_comparisons(node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            for word in STRING_WORDS:
                if word in node.value:
                    yield node, f"names {word} in a string"


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
    found = []
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
                found.append({"path": file["path"], "line": line, "what": what})
    found.sort(key=lambda item: (item["path"], item["line"], item["what"]))
    json.dump(found, sys.stdout)


main()
