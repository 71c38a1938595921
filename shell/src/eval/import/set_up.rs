//! Which of the harness's set-up lines ([`super::specs::install`]) an imported task runs, for a
//! row without an `eval_script`. mend's set-up (`[environment] setup`) runs in the copy's
//! sandbox: the copy is writable, the environment is not, and there is no network. So:
//!
//! - a line that only edits files of the checkout (`sed -i … tox.ini`, `grep -q … setup.py &&
//!   sed -i …`) runs as the harness wrote it;
//! - the install of the project itself (`pip install -e .`, `pip install .`, `setup.py
//!   install`) runs as the build it does in the checkout — setuptools' `egg_info` (the
//!   metadata `importlib.metadata` reads, and what setuptools_scm's `write_to` writes) and
//!   `build_ext --inplace` (extension modules) — never touching the environment; the copy's
//!   folders come first on the tests' import path, so they import what the install would have
//!   made importable;
//! - anything else (apt-get, locale-gen, a download) needs the system or the network: it is
//!   named in the task file, and the environment must already hold its result;
//! - an `eval_commands` line `export NAME=VALUE` is a variable of the test command.
//!
//! A task whose repository is the row's image gets none of these as steps: the harness ran
//! `pre_install` and `install` when it built that image, whose checkout holds their result. Its
//! eval scripts run `install` again after the change; mend's set-up runs once per original,
//! before any change, where it would only remake what the image holds.

use camino::Utf8Path;

use super::specs::install::HarnessSteps;

/// The steps an imported task runs, and the harness's lines it does not, with why.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Planned {
    /// `[environment] setup`.
    pub steps: Vec<String>,
    /// Variables the harness exports before the tests (`NAME=VALUE`).
    pub env: Vec<String>,
    /// The harness's lines mend does not run, each with why.
    pub not_run: Vec<(String, &'static str)>,
}

/// The build an install of the project does in its checkout, run by setuptools as pip runs a
/// `setup.py` (setuptools imported first, so a distutils-only `setup.py` knows `egg_info`).
const BUILD_WITH_SETUP_PY: &str = "python -c \"import setuptools, sys; __file__ = sys.argv[0] = 'setup.py'; exec(compile(open(__file__).read(), __file__, 'exec'))\" --quiet egg_info build_ext --inplace";
/// The same for a project whose setuptools configuration is all in `pyproject.toml`.
const BUILD_WITH_PYPROJECT: &str =
    "python -c \"import setuptools; setuptools.setup()\" --quiet egg_info build_ext --inplace";

const SYSTEM: &str = "changes the system or needs the network, which the set-up's sandbox does not give: the environment must already hold its result";
const BUILT_IN_IMAGE: &str = "run when the image was built: its checkout holds the result";
const IMAGE_INSTALL: &str = "run when the image was built (its checkout holds the result) and by the harness again after the change; mend's set-up runs once, before any change";

/// What a checkout task (`checkout` is the repository at its base commit) or, with `None`, an
/// image task runs of the harness's lines.
pub(super) fn plan(harness: &HarnessSteps, checkout: Option<&Utf8Path>) -> Planned {
    let mut planned = Planned::default();
    for line in &harness.eval_commands {
        match line.strip_prefix("export ") {
            Some(variable) if variable.contains('=') && !variable.contains(' ') => {
                planned.env.push(variable.to_owned());
            }
            _ => planned.not_run.push((line.clone(), SYSTEM)),
        }
    }
    let Some(checkout) = checkout else {
        for line in &harness.pre_install {
            planned.not_run.push((line.clone(), BUILT_IN_IMAGE));
        }
        planned
            .not_run
            .push((harness.install.clone(), IMAGE_INSTALL));
        return planned;
    };
    for line in &harness.pre_install {
        if edits_only_the_checkout(line) {
            planned.steps.push(line.clone());
        } else {
            planned.not_run.push((line.clone(), SYSTEM));
        }
    }
    build_or_name(&harness.install, checkout, &mut planned);
    planned
}

/// What a checkout task runs of a 5.x row's `eval_script` set-up lines, which the harness runs
/// before the tests of every eval: the same rule as for the table's lines, a line at a time
/// (an edit of the checkout runs as written, the project's install as its build, once).
pub(super) fn plan_script(lines: &[String], checkout: &Utf8Path) -> Planned {
    let mut planned = Planned::default();
    for line in lines {
        if edits_only_the_checkout(line) {
            planned.steps.push(line.clone());
        } else {
            build_or_name(line, checkout, &mut planned);
        }
    }
    planned
}

/// The build in the checkout that stands for `install`, added once; or `install` named with
/// why it does not run.
fn build_or_name(install: &str, checkout: &Utf8Path, planned: &mut Planned) {
    let build = if !installs_the_checkout(install) {
        Err(SYSTEM)
    } else if checkout.join("setup.py").is_file() {
        Ok(BUILD_WITH_SETUP_PY)
    } else if let Some(backend) = other_backend(checkout) {
        Err(backend)
    } else {
        Ok(BUILD_WITH_PYPROJECT)
    };
    match build {
        Ok(step) if planned.steps.iter().any(|done| done == step) => {}
        Ok(step) => planned.steps.push(step.to_owned()),
        Err(why) => planned.not_run.push((install.to_owned(), why)),
    }
}

/// A line whose every command is `sed` or `grep` on files named relative to the checkout.
fn edits_only_the_checkout(line: &str) -> bool {
    commands(line).iter().all(|words| {
        matches!(words.first().map(String::as_str), Some("sed" | "grep"))
            && words.last().is_some_and(|file| {
                !file.starts_with('/') && !file.starts_with('-') && !file.contains("..")
            })
            && words.len() > 2
    })
}

/// A line that installs the project in the current folder: `pip install` of `.` (with extras,
/// editable or not), or `setup.py install`/`develop`/`build`, each command of the line so.
fn installs_the_checkout(line: &str) -> bool {
    commands(line).iter().all(|words| {
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        match words.as_slice() {
            ["python", "-m", "pip", "install", rest @ ..] | ["pip", "install", rest @ ..] => rest
                .iter()
                .any(|word| *word == "." || word.starts_with(".[")),
            ["python", "setup.py", command] => matches!(*command, "install" | "develop" | "build"),
            _ => false,
        }
    })
}

/// Why an install is not run when the checkout names a build backend other than setuptools
/// (`None` for setuptools, named or by default).
fn other_backend(checkout: &Utf8Path) -> Option<&'static str> {
    let text = std::fs::read_to_string(checkout.join("pyproject.toml")).ok()?;
    let table: toml::Table = text.parse().ok()?;
    let backend = table.get("build-system")?.get("build-backend")?.as_str()?;
    (!backend.starts_with("setuptools")).then_some(
        "installs through a build backend other than setuptools, whose build mend cannot run without installing into the environment: the environment's install must make what the tests import",
    )
}

/// The commands of a shell line (split at `&&`, `||` and `;` outside quotes), each as its
/// words with their quotes taken off.
fn commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(open), c) if c == open => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() || "&|;".contains(c) => {
                current.extend(word.take());
                if "&|;".contains(c) {
                    if c != ';' && chars.peek() == Some(&c) {
                        chars.next();
                    }
                    commands.push(std::mem::take(&mut current));
                }
            }
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    current.extend(word.take());
    commands.push(current);
    commands.retain(|words| !words.is_empty());
    commands
}

#[cfg(test)]
#[path = "set_up_tests.rs"]
mod tests;
