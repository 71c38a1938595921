"""What names and expressions of a module stand for, read from its syntax tree alone: the dotted
path a name reaches through imports, aliases, `getattr` and copies, and the text a string is built
to, whatever it is built from. Part of mend's reader of added Python (see reach.py)."""

import ast
import base64
import binascii
import codecs

# Calls that give a copy of their one argument, which reads the same keys.
COPIES = {"dict", "copy.copy", "copy.deepcopy", "types.MappingProxyType"}
PATH_JOINS = {"pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "os.path.join",
              "posixpath.join"}
IMPORTERS = {"__import__", "importlib.import_module", "importlib.__import__"}


class Names:
    """Where each name of a module comes from: its imports, the names assigned from them (an
    alias, a copy), its top-level functions, and the strings a loop gives a name."""

    def __init__(self, tree, nodes):
        """`nodes`: every node of `tree`, walked once for every rule."""
        self.origins = {}
        self.functions = {}
        self.strings = {}
        self.loop_strings = {}
        for node in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    self.origins[local] = alias.name if alias.asname else local
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    self.origins[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        # What the imports bound, before any assignment adds an alias.
        self.imported = set(self.origins)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[node.name] = node
        self._follow_assignments(nodes)

    def _follow_assignments(self, nodes):
        """Names assigned once from a path, a copy, a function or a string; a name assigned from
        one of these after an other is followed too (`e = os.environ; f = dict(e)`)."""
        assigned = [node for node in nodes if isinstance(node, ast.Assign)]
        loops = [node for node in nodes if isinstance(node, (ast.For, ast.comprehension))]
        for _ in range(3):
            for node in assigned:
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self._bind(target.id, node.value)
            for loop in loops:
                if isinstance(loop.target, ast.Name) and isinstance(loop.iter, (ast.Tuple, ast.List)):
                    texts = [self.text(item) for item in loop.iter.elts]
                    if all(text is not None for text in texts):
                        self.loop_strings[loop.target.id] = texts

    def _bind(self, name, value):
        if isinstance(value, ast.Lambda):
            self.functions.setdefault(name, value)
            return
        text = self.text(value)
        if text is not None:
            self.strings.setdefault(name, text)
            return
        path = self.path(value)
        if path and path != name:
            self.origins.setdefault(name, path)

    def path(self, node):
        """`a.b.c` as "a.b.c" with imported names replaced by where they come from; getattr with
        a known name, `__import__`/`import_module` of a known module, `sys.modules[KNOWN]` and
        copies (`dict(x)`, `x.copy()`, `{**x}`) read through. None for anything else."""
        if isinstance(node, ast.Name):
            return self.origins.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self.path(node.value)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Subscript):
            key = self.text(subscript_index(node))
            if key is None:
                return None
            if self.path(node.value) == "sys.modules":
                return key
            # `vars(x)[KEY]` and `x.__dict__[KEY]` are x.KEY.
            value = node.value
            if isinstance(value, ast.Call) and self.path(value.func) == "vars" and value.args:
                base = self.path(value.args[0])
            elif isinstance(value, ast.Attribute) and value.attr == "__dict__":
                base = self.path(value.value)
            else:
                base = None
            return f"{base}.{key}" if base else None
        if isinstance(node, ast.Dict) and node.keys and all(key is None for key in node.keys):
            return self.path(node.values[0]) if len(node.values) == 1 else None
        if not isinstance(node, ast.Call):
            return None
        called = self.path(node.func)
        if called == "getattr" and len(node.args) >= 2:
            name = self.text(node.args[1])
            base = self.path(node.args[0])
            return f"{base}.{name}" if base and name else None
        if called in IMPORTERS and node.args:
            return self.text(node.args[0])
        if called in COPIES and len(node.args) == 1:
            return self.path(node.args[0])
        if called and called.endswith(".copy") and not node.args:
            return called[: -len(".copy")]
        return None

    def text(self, node):
        """The string `node` is built to when every part of it is known, else None."""
        shape = self.shape(node)
        if shape is None or any(part is None for part in shape):
            return None
        return "".join(shape)

    def shape(self, node):
        """A string as its parts: known text, or None for a part only known when it runs. None
        when `node` is not built as a string at all."""
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                return [node.value]
            if isinstance(node.value, bytes):
                return [node.value.decode("latin-1")]
            return None
        if isinstance(node, ast.Name):
            if node.id in self.strings:
                return [self.strings[node.id]]
            return None
        if isinstance(node, ast.JoinedStr):
            parts = []
            for value in node.values:
                if isinstance(value, ast.FormattedValue):
                    inner = self.text(value.value)
                    parts.append(inner if value.format_spec is None else None)
                else:
                    parts.extend(self.shape(value) or [None])
            return parts
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.shape(node.left), self.shape(node.right)
            if left is None and right is None:
                return None
            return (left or [None]) + (right or [None])
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            left, right = self.shape(node.left), self.shape(node.right)
            return None if left is None or right is None else left + ["/"] + right
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return self._formatted(node)
        if isinstance(node, ast.Subscript):
            return self._sliced(node)
        if isinstance(node, ast.Call):
            return self._called(node)
        return None

    def _formatted(self, node):
        left = self.text(node.left)
        items = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        values = [self.text(item) for item in items]
        if left is None or any(value is None for value in values):
            return [None] if left is not None or self.shape(node.left) else None
        try:
            return [left % tuple(values)]
        except (TypeError, ValueError):
            return None

    def _sliced(self, node):
        text = self.text(node.value)
        index = subscript_index(node)
        if text is None or not isinstance(index, ast.Slice):
            return None
        bounds = [constant_int(part) for part in (index.lower, index.upper, index.step)]
        if any(bound is False for bound in bounds):
            return None
        try:
            return [text[slice(*bounds)]]
        except ValueError:
            return None

    def _called(self, node):
        """Strings built by a call: methods of a known string, joins, decoders, `chr`."""
        func = node.func
        called = self.path(func) or ""
        args = [self.text(arg) for arg in node.args]
        if isinstance(func, ast.Attribute):
            owner = self.text(func.value)
            if owner is not None:
                return string_method(owner, func.attr, node.args, args, self)
            inner = self.shape(func.value)
            if func.attr == "decode" and inner is not None:
                return inner
        if called in ("str", "bytes.fromhex", "bytearray.fromhex") and len(args) == 1:
            if args[0] is None:
                return None
            return [bytes.fromhex(args[0]).decode("latin-1")] if "fromhex" in called else args
        if called.startswith("base64.") and called.endswith("decode") and args and args[0]:
            try:
                return [getattr(base64, called.split(".")[1])(args[0]).decode("latin-1")]
            except (binascii.Error, ValueError, AttributeError):
                return None
        if called == "codecs.decode" and len(args) == 2 and args[0] is not None and args[1]:
            try:
                return [codecs.decode(args[0], args[1])]
            except (LookupError, ValueError, TypeError):
                return None
        if called in PATH_JOINS and node.args:
            shapes = [self.shape(arg) or [None] for arg in node.args]
            return [part for index, shape in enumerate(shapes)
                    for part in (["/"] if index else []) + shape]
        if called == "chr" and len(node.args) == 1 and constant_int(node.args[0]) not in (None, False):
            return [chr(constant_int(node.args[0]))]
        if called in ("reversed", "sorted") and args and args[0] is not None:
            return [args[0][::-1]] if called == "reversed" else [''.join(sorted(args[0]))]
        return None


def string_method(owner, method, nodes, args, names):
    """`owner.method(args)` for the methods of a known string that build another."""
    if method == "join" and len(nodes) == 1:
        items = nodes[0]
        if isinstance(items, (ast.List, ast.Tuple)):
            texts = [names.text(item) for item in items.elts]
            return None if None in texts else [owner.join(texts)]
        if isinstance(items, ast.Call) and names.path(items.func) == "map" and len(items.args) == 2:
            mapped, over = items.args
            if names.path(mapped) == "chr" and isinstance(over, (ast.List, ast.Tuple)):
                codes = [constant_int(item) for item in over.elts]
                if all(isinstance(code, int) and code is not False for code in codes):
                    return [owner.join(chr(code) for code in codes)]
        inner = names.text(items)
        return [owner.join(inner)] if inner is not None else [None]
    if any(arg is None for arg in args):
        return [None]
    if method in ("upper", "lower", "strip", "lstrip", "rstrip", "title", "capitalize",
                  "swapcase", "replace", "format", "removeprefix", "removesuffix", "casefold"):
        try:
            return [getattr(owner, method)(*args)]
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            return None
    if method in ("encode", "decode"):
        return [owner]
    return None


def subscript_index(node):
    """The index of a subscript across Python versions (3.8 wraps it in ast.Index)."""
    index = node.slice
    return getattr(index, "value", index) if type(index).__name__ == "Index" else index


def constant_int(node):
    """An integer constant (or -constant), None for a missing part, False for anything else."""
    if node is None:
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = constant_int(node.operand)
        return -inner if isinstance(inner, int) and inner is not False else False
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return False
