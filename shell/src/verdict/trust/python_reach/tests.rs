use super::{added_lines, start_reading_added_python, PythonReach};
use crate::test_support::{project, python};

#[test]
fn the_added_lines_of_each_python_file_are_ranges_in_the_new_file() {
    let diff = "\
--- a/pkg/a.py
+++ b/pkg/a.py
@@ -1,3 +1,5 @@
 import os
+import gc
+import sys
 x = 1
-y = 2
+y = 3
--- a/notes.md
+++ b/notes.md
@@ -1 +1 @@
+text
";
    assert_eq!(
        added_lines(diff).into_iter().collect::<Vec<_>>(),
        [("pkg/a.py".to_owned(), vec![[2, 3], [5, 5]])]
    );
}

/// A value whose comparisons answer the same whatever they are given passes every `assert
/// x == expected` and `assertEqual`; one that can answer otherwise is no finding.
#[test]
fn comparisons_that_cannot_fail_are_named_and_real_ones_are_not() {
    let source = "\
class _Half(float):
    def __eq__(self, other):
        \"\"\"Equal to anything.\"\"\"
        return True

    __ne__ = lambda self, other: False

    def __lt__(self, other):
        return NotImplemented

    def __bool__(self):
        return self > 0


class Money:
    def __eq__(self, other):
        return isinstance(other, Money) and other.cents == self.cents
";
    let (_dir, root) = project(&[("pkg/half.py", source)]);
    let lines = source.lines().count();
    let diff = format!(
        "--- a/pkg/half.py\n+++ b/pkg/half.py\n@@ -0,0 +1,{lines} @@\n{}",
        source
            .lines()
            .map(|line| format!("+{line}\n"))
            .collect::<String>()
    );
    let found = start_reading_added_python(&python(), &root, &diff, |_| false).finish();
    let at = |line: u64, what: &str| PythonReach {
        path: "pkg/half.py".to_owned(),
        line,
        what: what.to_owned(),
    };
    assert_eq!(
        found,
        Some(vec![
            at(
                2,
                "makes _Half.__eq__ answer without looking at what it is compared with"
            ),
            at(
                6,
                "makes _Half.__ne__ answer without looking at what it is compared with"
            ),
        ])
    );
}

#[test]
fn added_python_that_reaches_into_the_test_run_is_named_by_file_and_line() {
    let source = "\
import sys
from _pytest import python as _python
import gc


def tax(cents):
    return cents


for module in list(sys.modules.values()):
    pass
_python.Function.runtest = lambda self: None
objects = gc.get_objects()
frame = sys._getframe(1).f_back
exec(\"x = \" + str(1))
setattr(gc, 'x', 1)
print(getattr(tax, '__name__'))
";
    let (_dir, root) = project(&[
        ("pkg/totals.py", source),
        ("tests/test_x.py", "import pytest\n"),
    ]);
    let lines = source.lines().count();
    let diff = format!(
        "--- a/pkg/totals.py\n+++ b/pkg/totals.py\n@@ -0,0 +1,{lines} @@\n{}\
             --- a/tests/test_x.py\n+++ b/tests/test_x.py\n@@ -0,0 +1 @@\n+import pytest\n",
        source
            .lines()
            .map(|line| format!("+{line}\n"))
            .collect::<String>()
    );
    let reading =
        start_reading_added_python(&python(), &root, &diff, |path| path.starts_with("tests/"));
    // What the tests write after the reader started is not what it reads.
    std::fs::write(root.join("pkg/totals.py"), "x = 1\n").unwrap();
    let found = reading.finish();
    let at = |line: u64, what: &str| PythonReach {
        path: "pkg/totals.py".to_owned(),
        line,
        what: what.to_owned(),
    };
    assert_eq!(
        found,
        Some(vec![
            at(2, "imports from _pytest outside the tests"),
            at(10, "looks through sys.modules"),
            at(12, "sets _python.Function.runtest, which it imported"),
            at(13, "walks live objects (gc.get_objects)"),
            at(14, "frame access or tracing (sys._getframe)"),
            at(14, "reads a frame (f_back)"),
            at(15, "exec of a built string"),
            at(16, "setattr on gc, which it imported"),
        ])
    );
}

/// What the reader names in `source`, a new file at `path` (every line added): (line, words).
fn named_in_new_file(path: &str, source: &str) -> Vec<(u64, String)> {
    let (_dir, root) = project(&[(path, source)]);
    let lines = source.lines().count();
    let added: String = source.lines().map(|line| format!("+{line}\n")).collect();
    let diff = format!("--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{lines} @@\n{added}");
    let found =
        start_reading_added_python(&python(), &root, &diff, |path| path.starts_with("tests/"))
            .finish()
            .expect("the reader runs");
    found
        .into_iter()
        .map(|reach| (reach.line, reach.what))
        .collect()
}

/// Whatever form the comparison takes, the rule is one: its answer does not depend on the value
/// it is judged on. Each class below is a form no rule names by its shape.
#[test]
fn comparisons_whose_answer_ignores_the_other_value_are_named_in_any_form() {
    let source = "\
import functools
import operator as op
from functools import partialmethod as bind


class Ratio(int):
    def __eq__(self, other):
        verdict = self.numerator or 1
        return verdict

    def __ne__(self, other):
        self.last_seen = other
        return ()

    def __ge__(self, other):
        return other is other or 'yes'

    __le__ = lambda self, *others: [self]

    __lt__ = bind(lambda self, answer, other: answer, 'ok')

    __gt__ = functools.wraps(op.gt)(lambda self, other: self)

    def __contains__(self, item):
        for _ in range(3):
            pass
        return len(self.parts) > -1

    def __hash__(self):
        return 17

    def __bool__(this):
        return 'always'


def _agree(first, second):
    return max(1, 2)


class Interval:
    pass


Interval.__eq__ = _agree
setattr(Interval, '__' + 'ne' + '__', _agree)
for _name in ('__lt__', '__gt__'):
    setattr(Interval, _name, _agree)
Vector = type('Vector', (), {'__eq__': staticmethod(lambda a, b: 'same')})
Vector.__ne__ = lambda self, other, verdict=False: verdict
";
    let found = named_in_new_file("pkg/ratio.py", source);
    let ignores = |owner: &str, method: &str| {
        format!("makes {owner}{method} answer without looking at what it is compared with")
    };
    let expected = vec![
        (7, ignores("Ratio.", "__eq__")),
        (11, ignores("Ratio.", "__ne__")),
        (15, ignores("Ratio.", "__ge__")),
        (18, ignores("Ratio.", "__le__")),
        (20, ignores("Ratio.", "__lt__")),
        (22, ignores("Ratio.", "__gt__")),
        (24, ignores("Ratio.", "__contains__")),
        (
            29,
            "makes Ratio.__hash__ the same for every value".to_owned(),
        ),
        (
            32,
            "makes Ratio.__bool__ answer the same for every value".to_owned(),
        ),
        (44, ignores("Interval.", "__eq__")),
        (45, ignores("Interval.", "__ne__")),
        (47, ignores("Interval.", "__gt__")),
        (47, ignores("Interval.", "__lt__")),
        (48, ignores("a namespace's ", "__eq__")),
        (49, ignores("Vector.", "__ne__")),
    ];
    assert_eq!(found, expected);
}

/// Real comparisons of the kinds projects write: each answer can change with the other value
/// (or with the value itself, for `__bool__` and `__hash__`), so none is named.
#[test]
#[allow(clippy::too_many_lines)] // the 80-line rule is for code, not a test's cases
fn honest_comparisons_are_not_named() {
    let source = "\
import abc
import dataclasses
import functools
import operator
from typing import Protocol


@dataclasses.dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int


@functools.total_ordering
class Money:
    def __init__(self, cents):
        self.cents = cents

    def __eq__(self, other):
        if not isinstance(other, Money):
            return NotImplemented
        return self.cents == other.cents

    def __lt__(self, other):
        try:
            theirs = other.cents
        except AttributeError:
            return NotImplemented
        return self.cents < theirs

    def __hash__(self):
        return hash(self.cents)

    def __bool__(self):
        return self.cents != 0


class Array:
    def __init__(self, items):
        self.items = list(items)

    def __eq__(self, other):
        theirs = other.items if isinstance(other, Array) else [other] * len(self.items)
        return Array(a == b for a, b in zip(self.items, theirs))

    def _compare(self, op, other):
        return Array(op(a, b) for a, b in zip(self.items, other.items))

    __lt__ = functools.partialmethod(_compare, operator.lt)
    __gt__ = functools.partialmethod(_compare, operator.gt)

    def __contains__(self, item):
        digest = Digest()
        digest.update(item)
        return digest.value in self.seen

    __hash__ = None

    __bool__ = lambda self: bool(self.items)


class Comparable(Protocol):
    def __lt__(self, other: 'Comparable') -> bool: ...


class Base(abc.ABC):
    @abc.abstractmethod
    def __eq__(self, other):
        \"\"\"Subclasses say.\"\"\"

    def __ne__(self, other):
        raise NotImplementedError


class Shape:
    def __eq__(self, other):
        match other:
            case Shape(sides=sides):
                return sides == self.sides
        return False


class Infinity:
    \"\"\"Above every value, as packaging's version ordering has it.\"\"\"

    def __lt__(self, other):
        return False

    def __le__(self, other):
        return False

    def __gt__(self, other):
        return True

    def __ge__(self, other):
        return True


class _Missing:
    def __bool__(self):
        return False


class Poison:
    def __eq__(self, other):
        return isinstance(other, Poison)

    def __hash__(self):
        return hash(Poison)


class Flag:
    def __bool__(self):
        return True
";
    assert_eq!(named_in_new_file("pkg/values.py", source), []);
    // A helper of the tests' own, as unittest.mock.ANY: no protected test compares with it.
    let any = "class Anything:\n    def __eq__(self, other):\n        return True\n";
    assert_eq!(named_in_new_file("tests/helpers.py", any), []);
}

/// Code that asks whether it runs under a test runner, in CI or under mend, whatever it builds
/// the name from: each is named by what it reads.
#[test]
fn sensing_the_test_run_is_named_whatever_the_name_is_built_from() {
    let source = "\
import base64
import importlib.util as finder
import os as _o
import sys
from os import environ, getenv as read_variable
from pathlib import Path

_PREFIX = 'PYT' + 'EST'
grading = _o.environ.get(f'{_PREFIX}_CURRENT_TEST') is not None
ci = read_variable('ci'.upper())
settings = {**environ}
witnessed = 'MEND_' + 'WITNESS' in settings
name = base64.b64decode('R0lUSFVCX0FDVElPTlM=').decode()
hosted = getattr(_o, 'environ')[name]
scanned = [key for key in environ.keys() if key.startswith(('TOX', 'NOX_'))]
boxed = (Path('/') / '.dockerenv').exists()
runner = finder.find_spec('_py' 'test') is not None
loaded = getattr(sys, 'modules').get('pluggy')
flags = vars(sys)['argv'], sys.orig_argv
parent = open(f'/proc/{_o.getppid()}/cmdline').read()
";
    let found = named_in_new_file("pkg/mode.py", source);
    assert_eq!(
        found,
        [
            (9, "reads the environment variable PYTEST_CURRENT_TEST (set when tests run: PYTEST_*)"),
            (10, "reads the environment variable CI (set when tests run: CI)"),
            (12, "reads the environment variable MEND_WITNESS (set when tests run: MEND_*)"),
            (14, "reads the environment variable GITHUB_ACTIONS (set when tests run: GITHUB_ACTIONS)"),
            (15, "reads the environment variable NOX_… (set when tests run: NOX_CURRENT_SESSION)"),
            (15, "reads the environment variable TOX… (set when tests run: TOX_ENV_NAME)"),
            (16, "names /.dockerenv (it tells where the tests run: /.dockerenv)"),
            (17, "looks for the test runner's module _pytest"),
            (18, "looks through sys.modules"),
            (19, "reads the command line (sys.argv)"),
            (19, "reads the command line (sys.orig_argv)"),
            (20, "names /proc/…/cmdline (it tells where the tests run: /proc/*/cmdline)"),
        ]
        .map(|(line, what)| (line, what.to_owned()))
    );
}

/// Reading the environment is ordinary; only the variables that say a test run is watching are
/// named, and a name known only when the code runs is none of them.
#[test]
fn honest_reads_of_the_environment_are_not_named() {
    let source = "\
import os
import sys
from pathlib import Path

home = Path(os.environ.get('HOME', '~')).expanduser()
color = os.getenv('NO_COLOR') is None and sys.stdout.isatty()
config = {key: os.environ[key] for key in os.environ if key.startswith('LEDGER_')}


def setting(app, name):
    return os.environ.get(f'{app.upper()}_{name}')


cache = Path(os.environ.get('XDG_CACHE_HOME', '/tmp')) / 'ledger'
encoding = sys.getfilesystemencoding()
";
    let found = named_in_new_file("pkg/settings.py", source);
    assert_eq!(found, Vec::<(u64, String)>::new());
}

#[test]
fn writes_into_what_an_import_leads_to_are_named_however_it_is_reached() {
    let source = "\
import hypothesis._settings as _hs
from mypkg import helpers

_in_effect = _hs.settings.default
object.__setattr__(_in_effect, '_max_examples', 1)
vars(_hs)['default_variable'].value = None
getattr(_hs, 'settings').x = 1
_hs.__dict__['settings']._current_profile = 'weak'
type.__setattr__(_hs.settings, 'load_profile', None)
_alias = helpers
_alias.cache = {}


class Local:
    pass


_mine = Local()
_mine.value = 1
_copy = dict(vars(_mine))
_copy['value'] = 2
_table = vars(_hs.settings)['_profiles']
_table['default'] = None
import os
os.environ['MODE'] = 'fast'
helpers.REGISTRY['tax'] = None
";
    assert_eq!(
        named_in_new_file("pkg/setup.py", source),
        [
            (5, "object.__setattr__ on _in_effect (hypothesis._settings.settings.default), which it imported"),
            (6, "sets hypothesis._settings.default_variable.value, which it imported"),
            (7, "sets hypothesis._settings.settings.x, which it imported"),
            (8, "sets hypothesis._settings.settings._current_profile, which it imported"),
            (9, "type.__setattr__ on _hs.settings, which it imported"),
            (11, "sets _alias.cache (mypkg.helpers.cache), which it imported"),
            (
                23,
                "writes into _table (hypothesis._settings.settings._profiles), a private part of what it imported",
            ),
        ]
        .map(|(line, what)| (line, what.to_owned()))
    );
}
