//! pytest that is installed but could not load the project's own setup: a conftest.py that
//! raises on import (a missing module, a syntax error), a plugin it cannot import, a hook that
//! a newer pytest or pluggy refuses, or a crash while it starts. Each is read from what pytest
//! prints, so the verdict names the file and pytest's own error line instead of asking whether
//! pytest is installed. mend's own witness failing in a pytest it does not know is told apart:
//! that is mend's to fix, and the user's way around it is another report.

use camino::Utf8Path;

use crate::verdict::read::runner::Runner;
use crate::verdict::read::witness_code::WITNESS_MODULE;

/// What pytest failed to load, and its own line saying why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadFailure {
    /// Which part failed to load.
    pub what: Loaded,
    /// pytest's (or Python's) error line, e.g. `ModuleNotFoundError: No module named 'x'`.
    pub error: String,
}

/// Which part of the setup failed to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Loaded {
    /// A conftest.py, by its path (relative to the copy where pytest printed it inside).
    Conftest(String),
    /// A plugin by its module name (`-p NAME`, `pytest_plugins`, an installed entry point).
    Plugin(String),
    /// pytest itself stopped with a traceback before running any test.
    Startup,
    /// pytest cannot import its own modules: a broken or half-installed pytest.
    Pytest,
    /// mend's witness plugin failed in this pytest, pluggy or Python: the versions it met (when
    /// it could tell them) and where in the witness it failed.
    Witness {
        /// The versions the witness met, when it could tell them.
        runner: Option<Box<Runner>>,
        /// Where in the witness it failed, when it said.
        place: Option<String>,
    },
}

impl LoadFailure {
    /// The reason, as a verdict's sentence.
    pub fn describe(&self) -> String {
        match &self.what {
            Loaded::Conftest(file) => format!("pytest could not load {file}: {}", self.error),
            Loaded::Plugin(name) => {
                format!("pytest could not load the plugin `{name}`: {}", self.error)
            }
            Loaded::Startup => format!("pytest failed while starting: {}", self.error),
            Loaded::Pytest => format!("pytest could not import itself: {}", self.error),
            Loaded::Witness { runner, place } => {
                let runner = runner
                    .as_ref()
                    .map_or_else(|| "the installed pytest".to_owned(), ToString::to_string);
                let place = place
                    .as_ref()
                    .map_or_else(String::new, |place| format!(" (in {place})"));
                format!(
                    "mend's pytest witness could not run under {runner}: {}{place}",
                    self.error
                )
            }
        }
    }

    /// What the user can do about it, for the tests run by `python`.
    pub fn fix(&self, python: &Utf8Path) -> String {
        match &self.what {
            Loaded::Conftest(file) => format!(
                "fix {file}, or install what it imports for `{python}`; run the test command by hand to see the whole error"
            ),
            Loaded::Plugin(name) if self.plugin_raised(name) => format!(
                "the plugin `{name}` is there but fails as it loads (its error is below): fix it, or leave it out of the tests (`-p {name}` in test.command or addopts, PYTEST_PLUGINS in test.env, `pytest_plugins` in a conftest.py; test.plugins = false keeps installed plugins out)"
            ),
            Loaded::Plugin(name) => format!(
                "install `{name}` for `{python}`, or use a pytest version the plugin supports (test.plugins = false keeps installed plugins out)"
            ),
            Loaded::Startup => format!(
                "a plugin or conftest.py may not suit the pytest installed for `{python}`; run the test command by hand to see the whole traceback"
            ),
            Loaded::Witness { .. } => WITNESS_FIX.to_owned(),
            Loaded::Pytest => format!(
                "the pytest installed for `{python}` is broken or half-installed: reinstall it (`{python} -m pip install --force-reinstall pytest`)"
            ),
        }
    }
}

impl LoadFailure {
    /// Whether the plugin `name` was found and raised as it ran: neither missing (`No module
    /// named` it, or the package it is in) nor refused by pluggy (a plugin for another pytest).
    fn plugin_raised(&self, name: &str) -> bool {
        let package = name.split('.').next().unwrap_or(name);
        let missing = [name, package]
            .iter()
            .any(|missing| self.error.contains(&format!("No module named '{missing}'")));
        !missing && !self.error.starts_with("PluginValidationError")
    }
}

/// What to do when mend's witness fails in a pytest it does not know.
const WITNESS_FIX: &str = "this is mend's to fix, not the project's: please report it as an issue of mend, with this message. Until then, install a pytest mend is tested with (6.2 to 9.2: docs/pytest-versions.md) for the tests, or set test.report = \"junit\" and a test.junit_path the test command writes (add `--junitxml=junit.xml` to it), which reads pytest's report without the witness's cross-checks";

/// The load failure `output` shows, if any; paths inside `root` (the copy) are given relative
/// to it. The forms read, most precise first: pytest's "ImportError while loading conftest",
/// a collection error raised in a conftest.py, pluggy's `PluginValidationError`, "Error
/// importing plugin", and a traceback through pytest's own code ending in an error line.
pub fn load_failure(output: &str, root: &Utf8Path) -> Option<LoadFailure> {
    let lines: Vec<&str> = output.lines().map(str::trim_end).collect();
    let relative = |path: &str| -> String {
        Utf8Path::new(path)
            .strip_prefix(root)
            .map_or_else(|_| path.to_owned(), |inside| inside.to_string())
    };
    witness_traceback(&lines)
        .or_else(|| half_installed(&lines))
        .or_else(|| conftest_import(&lines, &relative))
        .or_else(|| plugin_raised(&lines))
        .or_else(|| conftest_collection(&lines, &relative))
        .or_else(|| plugin_validation(&lines, &relative))
        .or_else(|| plugin_import(&lines))
        .or_else(|| plugin_raised_in_traceback(&lines))
        .or_else(|| startup_traceback(&lines))
}

/// `ImportError while loading conftest '/copy/tests/conftest.py'.`, then pytest's `E   ` lines:
/// the last of them is the error (for a syntax error, `SyntaxError: invalid syntax`).
fn conftest_import(lines: &[&str], relative: &dyn Fn(&str) -> String) -> Option<LoadFailure> {
    let (at, path) = lines.iter().enumerate().find_map(|(at, line)| {
        let rest = line.strip_prefix("ImportError while loading conftest '")?;
        Some((at, rest.strip_suffix("'.").unwrap_or(rest)))
    })?;
    Some(LoadFailure {
        what: Loaded::Conftest(relative(path)),
        error: last_e_line(&lines[at + 1..]).unwrap_or_else(|| "ImportError".to_owned()),
    })
}

/// A conftest.py below the first folder fails while the tests are collected: pytest shows the
/// frame `tests/inner/conftest.py:1: in <module>` and the `E   ` lines after it.
fn conftest_collection(lines: &[&str], relative: &dyn Fn(&str) -> String) -> Option<LoadFailure> {
    let (at, path) = lines.iter().enumerate().find_map(|(at, line)| {
        let (path, place) = line.split_once(".py:")?;
        let path = format!("{path}.py");
        let named_conftest = path.rsplit('/').next() == Some("conftest.py");
        (named_conftest && place.ends_with(": in <module>")).then_some((at, path))
    })?;
    let error = last_e_line(&lines[at + 1..])?;
    Some(LoadFailure {
        what: Loaded::Conftest(relative(&path)),
        error,
    })
}

/// pluggy refuses a hook: `PluginValidationError: Plugin '/copy/conftest.py' for hook 'h'`
/// (its reason on a later line), or `unknown hook 'h' in plugin <module 'conftest' from '…'>`.
fn plugin_validation(lines: &[&str], relative: &dyn Fn(&str) -> String) -> Option<LoadFailure> {
    const NAME: &str = "PluginValidationError: ";
    let (at, said) = lines.iter().enumerate().find_map(|(at, line)| {
        let start = line.find(NAME)?;
        Some((at, &line[start + NAME.len()..]))
    })?;
    let plugin = quoted_after(said, "Plugin '")
        .or_else(|| quoted_after(said, " from '"))
        .or_else(|| quoted_after(said, "in plugin '"))
        .unwrap_or("a plugin");
    // The reason of the `Plugin '…' for hook` form stands after the hook's definition line.
    let reason = lines[at + 1..]
        .iter()
        .map(|line| strip_internal(line))
        .find(|line| !line.is_empty() && !line.starts_with("hookimpl definition:"));
    let error = match reason.filter(|_| said.starts_with("Plugin '")) {
        Some(reason) => format!("PluginValidationError: {said}: {reason}"),
        None => format!("PluginValidationError: {said}"),
    };
    let what = if plugin.ends_with(".py") {
        Loaded::Conftest(relative(plugin))
    } else {
        Loaded::Plugin(plugin.to_owned())
    };
    Some(LoadFailure { what, error })
}

/// `ImportError: Error importing plugin "name": No module named 'name'`.
fn plugin_import(lines: &[&str]) -> Option<LoadFailure> {
    lines.iter().find_map(|line| {
        let rest = strip_internal(line);
        let start = rest.find("Error importing plugin \"")?;
        let named = &rest[start + "Error importing plugin \"".len()..];
        let (name, error) = named.split_once("\": ")?;
        Some(LoadFailure {
            what: Loaded::Plugin(name.to_owned()),
            error: error.to_owned(),
        })
    })
}

/// A Python traceback that passes through pytest's own code (`_pytest/`, `pluggy/`) and ends
/// in an error line: pytest is there, and something it loaded stopped it.
fn startup_traceback(lines: &[&str]) -> Option<LoadFailure> {
    let through_pytest = lines
        .iter()
        .any(|line| line.contains("/_pytest/") || line.contains("/pluggy/"));
    if !through_pytest
        || !lines
            .iter()
            .any(|line| line.contains("Traceback (most recent"))
    {
        return None;
    }
    let error = lines
        .iter()
        .rev()
        .map(|line| strip_internal(line))
        .find(|line| is_error_line(line))?;
    Some(LoadFailure {
        what: Loaded::Startup,
        error: error.to_owned(),
    })
}

/// pytest's own package failing to import a module of pytest's: `pytest/__init__.py` (or
/// `_pytest/`) in the traceback, and `No module named '_pytest…'` or `'pluggy…'` at its end.
fn half_installed(lines: &[&str]) -> Option<LoadFailure> {
    let error = lines.iter().rev().find(|line| is_error_line(line))?;
    let own_module = ["No module named '_pytest", "No module named 'pluggy"]
        .iter()
        .any(|missing| error.contains(missing));
    let in_pytest = lines.iter().any(|line| {
        frame(line.trim()).is_some_and(|(file, _, _)| {
            file.ends_with("/pytest/__init__.py") || file.contains("/_pytest/")
        })
    });
    (own_module && in_pytest).then(|| LoadFailure {
        what: Loaded::Pytest,
        error: (*error).to_owned(),
    })
}

/// `Error while loading plugin "name".` (pytest 8.1 and later: a `-p` plugin that raised while
/// imported), then pytest's `E   ` lines: the last of them is the error.
fn plugin_raised(lines: &[&str]) -> Option<LoadFailure> {
    let (at, name) = lines.iter().enumerate().find_map(|(at, line)| {
        let rest = line.strip_prefix("Error while loading plugin \"")?;
        Some((at, rest.strip_suffix("\".").unwrap_or(rest)))
    })?;
    Some(LoadFailure {
        what: Loaded::Plugin(name.to_owned()),
        error: last_e_line(&lines[at + 1..])?,
    })
}

/// A plugin (`-p NAME`, `PYTEST_PLUGINS`) that raised while imported, as pytest before 8.4 shows
/// it: a Python traceback through pytest's `import_plugin`, whose first module-level frame after
/// it is the plugin's file (`NAME.py`, or `NAME/__init__.py`), ending in the error line.
fn plugin_raised_in_traceback(lines: &[&str]) -> Option<LoadFailure> {
    let importing = lines
        .iter()
        .position(|line| line.trim().ends_with(", in import_plugin"))?;
    let file = lines[importing + 1..].iter().find_map(|line| {
        let (file, _, function) = frame(line.trim())?;
        let own = file.contains("/_pytest/") || file.starts_with('<');
        (function == "<module>" && !own).then_some(file)
    })?;
    let path = Utf8Path::new(file);
    let name = match path.file_name() {
        Some("__init__.py") => path.parent().and_then(Utf8Path::file_name),
        _ => path.file_stem(),
    }?;
    let error = lines.iter().rev().find(|line| is_error_line(line))?;
    Some(LoadFailure {
        what: Loaded::Plugin(name.to_owned()),
        error: (*error).to_owned(),
    })
}

/// A traceback whose innermost frame outside pytest, pluggy and the standard library is in
/// mend's witness (pytest's `mend_witness.py:314: in f` or Python's `File ".../mend_witness.py",
/// line 314, in f`): the witness failed, whatever project code came before it.
fn witness_traceback(lines: &[&str]) -> Option<LoadFailure> {
    let witness_file = format!("{WITNESS_MODULE}.py");
    let in_witness = |file: &str| file.rsplit('/').next() == Some(witness_file.as_str());
    let innermost = lines
        .iter()
        .map(|line| strip_internal(line))
        .filter_map(frame)
        .rfind(|(file, _, function)| {
            let runners_or_pythons = ["/_pytest/", "/pluggy/", "/lib/python"]
                .iter()
                .any(|inside| file.contains(inside));
            let passed_through = in_witness(file) && PASS_THROUGH.contains(function);
            !(runners_or_pythons || passed_through)
        })?;
    let (file, line, function) = innermost;
    if !in_witness(file) {
        return None;
    }
    let error = lines
        .iter()
        .rev()
        .map(|line| strip_internal(line))
        .map(|line| line.strip_prefix("E ").map_or(line, str::trim))
        .find(|line| is_error_line(line))?;
    Some(LoadFailure {
        what: Loaded::Witness {
            runner: None,
            place: Some(format!("{function}, line {line}")),
        },
        error: error.to_owned(),
    })
}

/// The witness's functions that stand in for Python's own where Python has no audit hooks
/// (before 3.8: `compile`, `exec`, `marshal.loads`, `sys._getframe`, … in `_stand_ins`): each
/// tells the witness and then calls the original, so what the original raises (a test module's
/// `SyntaxError` as pytest compiles it, bad bytecode) is its caller's, never the witness's.
const PASS_THROUGH: [&str; 1] = ["watching"];

/// A traceback's frame line as (file, line, function), in pytest's form or Python's.
fn frame(line: &str) -> Option<(&str, &str, &str)> {
    if let Some(rest) = line.strip_prefix("File \"") {
        let (file, rest) = rest.split_once("\", line ")?;
        let (number, function) = rest.split_once(", in ")?;
        return Some((file, number, function));
    }
    let (file, rest) = line.split_once(".py:")?;
    let (number, function) = rest.split_once(": in ")?;
    let file = &line[..file.len() + ".py".len()];
    number
        .bytes()
        .all(|byte| byte.is_ascii_digit())
        .then_some((file, number, function))
}

/// The last of pytest's `E   ` lines in `lines`, up to the next section, stripped.
fn last_e_line(lines: &[&str]) -> Option<String> {
    lines
        .iter()
        .take_while(|line| !line.starts_with("====") && !line.starts_with("____"))
        .filter_map(|line| line.strip_prefix('E'))
        .filter(|rest| rest.starts_with(' '))
        .map(str::trim)
        .filter(|rest| !rest.is_empty())
        .last()
        .map(str::to_owned)
}

/// A line `SomeError: …` (or `module.SomeError: …`) as Python ends a traceback with.
fn is_error_line(line: &str) -> bool {
    let Some((name, _)) = line.split_once(": ") else {
        return false;
    };
    let last = name.rsplit('.').next().unwrap_or(name);
    !name.contains(' ') && (last.ends_with("Error") || last.ends_with("Exception"))
}

/// pytest prefixes its internal errors' lines with `INTERNALERROR> `.
fn strip_internal(line: &str) -> &str {
    line.strip_prefix("INTERNALERROR> ").unwrap_or(line).trim()
}

/// The text between `opening` (which ends in a quote) and the next `'`.
fn quoted_after<'a>(text: &'a str, opening: &str) -> Option<&'a str> {
    let start = text.find(opening)? + opening.len();
    text[start..].split('\'').next()
}

#[cfg(test)]
mod tests;
