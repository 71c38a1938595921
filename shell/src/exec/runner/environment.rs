//! The environment a test command runs in: cleared, then HOME, locale, bytecode and hash seed
//! fixed, the search path the sandbox shows, the copy's import roots first, and pytest's options
//! last, so nothing the user's shell or the toolchain set decides a run.

use std::process::Command;

use camino::{Utf8Path, Utf8PathBuf};

use super::{Extra, TestRunner, NO_BYTECODE, NO_CACHE, PYTEST_ADDOPTS};
use crate::exec::sandbox::View;
use crate::exec::toolchain::{self, Toolchain, SYSTEM_PATH};
use crate::task::PythonPath;

/// The variable that turns pytest's loading of its installed plugins off.
const AUTOLOAD_OFF: &str = "PYTEST_DISABLE_PLUGIN_AUTOLOAD";
/// The variable naming plugins pytest imports after its installed ones.
const PYTEST_PLUGINS: &str = "PYTEST_PLUGINS";
/// The variable that tells mend's pytest plugin the copy's folder as the command sees it (the
/// folder it starts in, which the command may leave): pytest's configuration and conftest
/// files read from outside it are the witness's to name.
const COPY_VARIABLE: &str = "MEND_WITNESS_COPY";

/// How pytest loads a plugin of mend's ([`TestRunner::plugin_loading`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PluginLoading {
    /// As an installed plugin, by the entry point its metadata declares.
    Installed,
    /// Named with `-p` in `PYTEST_ADDOPTS`.
    Named,
}

impl TestRunner {
    /// What every test command's cleared environment holds, on this machine or in an image:
    /// HOME at `home`, a UTF-8 locale, no bytecode read or written, no user site-packages, a
    /// fixed hash seed, and pytest's plugins autoloaded only when the task allows it.
    pub(crate) fn scrubbed_env(&self, command: &mut Command, home: &Utf8Path) {
        command
            .env("HOME", home.as_std_path())
            .env("LANG", "C.UTF-8")
            .env("LC_ALL", "C.UTF-8")
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("PYTHONPYCACHEPREFIX", NO_BYTECODE)
            .env("PYTHONNOUSERSITE", "1")
            .env("PYTHONHASHSEED", "0");
        if !self.plugins {
            command.env(AUTOLOAD_OFF, "1");
        }
    }

    /// What a command's environment ends with: pytest's options — the last `PYTEST_ADDOPTS` of
    /// `underneath` (the toolchain's or the image's) and the task's `test.env`, else mend's own,
    /// then mend's plugin with `-p` where it needs one (`plugin_loading`) — the plugins pytest
    /// imports by name, with mend's after the task's and told `copy` (the copy's folder as the
    /// command sees it), and mend's own variables for this run.
    pub(crate) fn last_env(
        &self,
        command: &mut Command,
        (underneath, copy): (&[(String, String)], &Utf8Path),
        argv: &[String],
        extra: Extra,
    ) {
        let last = |wanted: &str| {
            underneath
                .iter()
                .chain(&self.env)
                .rev()
                .find(|(name, _)| name == wanted)
                .map(|(_, value)| value.as_str())
        };
        let addopts = last(PYTEST_ADDOPTS).unwrap_or(NO_CACHE);
        let mut options = Vec::new();
        if let Some(plugin) = extra.pytest_plugin {
            if self.plugin_loading(argv, underneath) == PluginLoading::Named {
                options.extend(["-p".to_owned(), plugin.to_owned()]);
            }
            // Named either way: pytest imports it after the installed plugins when it loaded
            // none on its own (a wrapper, or the project's configuration, turned that off). The
            // witness takes its name out of the variable as it loads.
            let named = [last(PYTEST_PLUGINS).unwrap_or_default(), plugin];
            let named: Vec<&str> = named.into_iter().filter(|name| !name.is_empty()).collect();
            command.env(PYTEST_PLUGINS, named.join(","));
            command.env(COPY_VARIABLE, copy);
        }
        command.env(PYTEST_ADDOPTS, with_options(addopts, &options));
        for (name, value) in extra.env {
            command.env(name, value);
        }
    }

    /// How pytest is to load mend's plugin. As the installed plugin its archive's metadata
    /// declares, the first of those pytest loads on its own (the archive comes before the
    /// installed packages on the path): a `-p` costs a run one more pass over every installed
    /// distribution's metadata, the largest part of what the witness cost a small suite. With
    /// `-p` where pytest loads none on its own (`test.plugins = false`, a variable or option
    /// that turns autoloading off), and where the command names plugins of its own with `-p`:
    /// pytest imports those before the installed ones, and mend's comes before them only as
    /// a `-p` in `PYTEST_ADDOPTS`, which pytest reads before its command line.
    fn plugin_loading(&self, argv: &[String], underneath: &[(String, String)]) -> PluginLoading {
        let variables = || underneath.iter().chain(&self.env);
        // The option as the command gives it, or as the options pytest reads from the
        // environment do (split on spaces, near enough to find one word).
        let autoload_off = !self.plugins
            || variables().any(|(name, value)| name == AUTOLOAD_OFF && !value.is_empty())
            || turns_autoload_off(argv.iter().map(String::as_str))
            || variables().any(|(name, value)| {
                name == PYTEST_ADDOPTS && turns_autoload_off(value.split_whitespace())
            });
        let mut words = argv.iter().map(String::as_str);
        let mut names_a_plugin = false;
        while let Some(word) = words.next() {
            let named = match word {
                "-p" => words.next(),
                _ => word.strip_prefix("-p").filter(|name| !name.is_empty()),
            };
            names_a_plugin |= named.is_some_and(|name| !name.starts_with("no:"));
        }
        if autoload_off || names_a_plugin {
            PluginLoading::Named
        } else {
            PluginLoading::Installed
        }
    }

    /// The program's folder, the interpreter's, then the user's PATH as far as the sandbox shows
    /// it, then the system's.
    pub(super) fn search_path(&self, toolchain: &Toolchain, view: &View) -> String {
        let mut folders: Vec<Utf8PathBuf> = Vec::new();
        let shown = self
            .host
            .path
            .iter()
            .filter(|folder| self.sandbox.shows(folder, view));
        // The interpreter's folder too, so a script or a make target finds the venv's python.
        let python_bin = self.python.parent().filter(|_| self.python.is_absolute());
        for folder in toolchain
            .bin
            .iter()
            .map(Utf8PathBuf::as_path)
            .chain(python_bin)
            .map(Utf8Path::to_path_buf)
            .chain(shown.cloned())
            .chain(SYSTEM_PATH.map(Utf8PathBuf::from))
        {
            toolchain::push_new(&mut folders, folder);
        }
        let folders: Vec<&str> = folders.iter().map(|folder| folder.as_str()).collect();
        folders.join(":")
    }

    /// The copy's import roots, first on PYTHONPATH so the copy is imported even when the
    /// project is installed in its venv in editable mode (which points at the original).
    pub(crate) fn import_roots(&self, workdir: &Utf8Path) -> Vec<String> {
        let roots: Vec<Utf8PathBuf> = match &self.pythonpath {
            PythonPath::Guessed => [workdir.join("src"), workdir.to_path_buf()]
                .into_iter()
                .filter(|root| root.is_dir())
                .collect(),
            PythonPath::Roots(roots) => roots
                .iter()
                .map(|root| match root.as_str() {
                    "." => workdir.to_path_buf(),
                    root => workdir.join(root),
                })
                .collect(),
        };
        let mut roots: Vec<String> = roots.iter().map(ToString::to_string).collect();
        for folder in &self.editable_folders {
            let root = match folder.as_str() {
                "." => workdir.to_string(),
                folder => workdir.join(folder).to_string(),
            };
            if !roots.contains(&root) {
                roots.push(root);
            }
        }
        roots
    }
}

/// Whether `words` hold pytest's option that turns its loading of installed plugins off.
fn turns_autoload_off<'a>(mut words: impl Iterator<Item = &'a str>) -> bool {
    words.any(|word| word == "--disable-plugin-autoload")
}

/// `addopts` with `options` after it, each quoted as the POSIX shell (and so pytest, which
/// splits the variable with `shlex.split`) reads it back as one word.
fn with_options(addopts: &str, options: &[String]) -> String {
    let mut words = vec![addopts.to_owned()];
    words.extend(options.iter().map(|option| shell_word(option)));
    words.retain(|word| !word.is_empty());
    words.join(" ")
}

fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\"'\"'"))
    }
}
