"""Code that senses it is being tested or graded: the variables a test run or CI sets, mend's own,
the marks of a container, the runner's modules and command line. Each is found by what a call or
a lookup reads, with the name it reads built however it is built (see names.py). Part of mend's
reader of added Python (see reach.py)."""

import ast
import fnmatch
import re

ENVIRONMENTS = {"os.environ", "os.environb", "posix.environ", "nt.environ"}
ENVIRONMENT_CALLS = {"os.getenv", "os.getenvb", "posix.getenv"}
ENVIRONMENT_METHODS = {"get", "pop", "setdefault", "__getitem__", "__contains__"}
ENVIRONMENT_VIEWS = {"keys", "items"}
# Variables that say the process is a test run, a CI job or mend's final run.
GRADED_VARIABLES = ("PYTEST_*", "_PYTEST*", "MEND_*", "CI", "CONTINUOUS_INTEGRATION",
                    "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "TRAVIS",
                    "JENKINS_URL", "TF_BUILD", "TOX_ENV_NAME", "NOX_CURRENT_SESSION")
# Files that say the process runs in a container, or show a process's command line.
GRADED_PATHS = ("/.dockerenv", "/run/.containerenv", "/proc/*/cgroup", "/proc/*/cmdline",
                "/proc/*/environ", "/proc/*/mountinfo")
COMMAND_LINES = {"sys.argv", "sys.orig_argv"}
RUNNER_MODULES = ("pytest", "_pytest", "pluggy", "xdist", "unittest.main")
MODULE_FINDERS = {"importlib.util.find_spec", "importlib.find_loader", "pkgutil.find_loader",
                  "importlib.metadata.version", "importlib.metadata.distribution"}
# A name read with fewer known letters than this is no name at all (`os.environ[f"{x}"]`); a
# path needs more (`f"{a}/{b}/{c}"` is no path of a container).
KNOWN_ENOUGH = 2
KNOWN_PATH = 5


def matches(shape, patterns, enough=KNOWN_ENOUGH):
    """The first pattern a string's shape can be; its unknown parts can be anything."""
    if shape is None:
        return None
    known = sum(char.isalnum() for part in shape if part is not None for char in part)
    if known < enough:
        return None
    text = re.sub("/+", "/", "".join("\0" if part is None else part for part in shape))
    for pattern in patterns:
        if fnmatch.fnmatchcase(text.replace("\0", "X"), pattern) or (
                "\0" in text and fnmatch.fnmatchcase(pattern, text.replace("\0", "*"))):
            return pattern
    return None


def shown(shape):
    return re.sub("/+", "/", "".join("…" if part is None else part for part in shape))


def surroundings_findings(nodes, names):
    """(node, words) for each read of the test run's surroundings."""
    environment_keys = set()
    for node in nodes:
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and reads_environment(node.iter, names):
            environment_keys.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
    inner = parts_of_built_strings(nodes)
    for node in nodes:
        for key in variable_read(node, names, environment_keys):
            found = matches(key, GRADED_VARIABLES)
            if found:
                yield node, f"reads the environment variable {shown(key)} (set when tests run: {found})"
        if isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)) and names.path(node) in COMMAND_LINES:
            yield node, f"reads the command line ({names.path(node)})"
        elif isinstance(node, ast.Call):
            yield from runner_lookup(node, names)
        built = isinstance(node, (ast.Constant, ast.BinOp, ast.JoinedStr, ast.Call))
        shape = names.shape(node) if built and id(node) not in inner else None
        found = matches(shape, GRADED_PATHS, KNOWN_PATH) if shape and any(p and "/" in p for p in shape) else None
        if found:
            yield node, f"names {shown(shape)} (it tells where the tests run: {found})"


def parts_of_built_strings(nodes):
    """The nodes that are parts of a larger string expression: read as the whole, never alone
    (`"/proc/" + pid` is no path until `+ "/cmdline"`)."""
    inner = set()
    for node in nodes:
        if isinstance(node, ast.BinOp):
            inner.update((id(node.left), id(node.right)))
        elif isinstance(node, ast.JoinedStr):
            inner.update(id(value) for value in ast.walk(node) if value is not node)
        elif isinstance(node, ast.Call) and names_path_join(node):
            inner.update(id(arg) for arg in node.args)
    return inner


def names_path_join(node):
    return isinstance(node.func, ast.Attribute) and node.func.attr in ("join", "Path")


def reads_environment(node, names):
    """Whether `node` is the environment, a copy of it or a view of its keys."""
    path = names.path(node)
    if path in ENVIRONMENTS:
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in ENVIRONMENT_VIEWS and names.path(node.func.value) in ENVIRONMENTS
    return False


def variable_read(node, names, environment_keys):
    """The shapes of the variable names `node` reads from the environment."""
    if isinstance(node, ast.Subscript) and names.path(node.value) in ENVIRONMENTS:
        yield names.shape(subscript_index(node)) or [None]
    elif isinstance(node, ast.Call):
        called = names.path(node.func) or ""
        owner, _, method = called.rpartition(".")
        if node.args and (called in ENVIRONMENT_CALLS
                          or (owner in ENVIRONMENTS and method in ENVIRONMENT_METHODS)):
            yield names.shape(node.args[0]) or [None]
        elif isinstance(node.func, ast.Attribute) and node.func.attr in ("startswith", "endswith"):
            if uses_any(node.func.value, environment_keys) and node.args:
                yield from prefixes(node.args[0], names, node.func.attr)
    elif isinstance(node, ast.Compare):
        for operator, right in zip(node.ops, node.comparators):
            left = node.left
            if isinstance(operator, (ast.In, ast.NotIn)) and mentions_environment(right, names):
                # `"X" in os.environ`, or a text of the whole environment searched for a word.
                whole = names.path(right) in ENVIRONMENTS
                yield (names.shape(left) or [None]) if whole else [None] + (names.shape(left) or [None]) + [None]
            elif isinstance(operator, (ast.Eq, ast.NotEq)) and uses_any(left, environment_keys):
                yield names.shape(right) or [None]


def prefixes(node, names, method):
    """`key.startswith(X)`: the key is X and then anything (`endswith`: the other way)."""
    items = node.elts if isinstance(node, ast.Tuple) else [node]
    for item in items:
        shape = names.shape(item) or [None]
        yield shape + [None] if method == "startswith" else [None] + shape


def mentions_environment(node, names):
    return any(names.path(inner) in ENVIRONMENTS for inner in ast.walk(node)
               if isinstance(inner, (ast.Name, ast.Attribute, ast.Call)))


def uses_any(node, wanted):
    return any(isinstance(inner, ast.Name) and inner.id in wanted for inner in ast.walk(node))


def runner_lookup(node, names):
    """A call that asks whether the test runner is loaded (`find_spec("pytest")`)."""
    called = names.path(node.func)
    if called in MODULE_FINDERS or called in IMPORTERS:
        module = names.text(node.args[0]) if node.args else None
        if module and module.split(".")[0] in RUNNER_MODULES:
            yield node, f"looks for the test runner's module {module}"
