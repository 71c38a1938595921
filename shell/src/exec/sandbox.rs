//! Where the repository's code runs: every test run (the `run_tests` tool and both independent
//! checks) executes code the model may just have written, with the user's permissions. The
//! sandbox takes away the network, every writable path but the workspace copy, the user's home,
//! the original repository and the other processes.

use std::process::{Command, Stdio};

use camino::{Utf8Path, Utf8PathBuf};
use clap::ValueEnum;

use crate::error::MendError;
use crate::exec::bwrap::{isolated, KERNEL_MOUNTS};
use crate::exec::toolchain::HOMES;

/// `--sandbox`: what the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SandboxChoice {
    /// bubblewrap when it works here, else a network namespace, else none (with a warning).
    Auto,
    /// bubblewrap, or refuse to run.
    Bwrap,
    /// No sandbox: the tests run with your permissions and your network.
    None,
}

/// The sandbox that will actually be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sandbox {
    /// bubblewrap: own network, PID, IPC and UTS namespaces; the filesystem read-only except the
    /// workspace and a private `/tmp`; homes and the original repository hidden (what the
    /// command needs re-shown read-only, see [`View`]).
    Bwrap,
    /// Only a network namespace (`unshare --net`): no network, everything else as the user.
    NetworkNamespace {
        /// `unshare --map-root-user`: for a machine where an unprivileged user may not make a network namespace otherwise.
        map_root: bool,
    },
    /// No isolation: the commands run as the user, network included (mend warns).
    Unsandboxed,
}

/// What bubblewrap shows of the filesystem besides its defaults. Other sandboxes show
/// everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct View {
    /// Shown read-only, even inside a hidden folder: the interpreter, the toolchain, the task's
    /// `sandbox.read_only`.
    pub read_only: Vec<Utf8PathBuf>,
    /// Replaced by an empty folder: the original repository, so nothing (an editable install's
    /// `.pth`, a path in a config) can make the tests read it instead of the copy.
    pub hidden: Vec<Utf8PathBuf>,
    /// Writable besides the workspace, e.g. the folder of a report file written outside it.
    pub writable: Vec<Utf8PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Mount {
    // At the same path a later kind wins: hiding beats showing, writing beats both.
    ReadOnly,
    Hidden,
    Writable,
}

impl View {
    /// Every mount over the read-only root, outer folders first so an inner one lands on top:
    /// a venv inside the hidden original is shown again, a hidden original inside a shown
    /// folder stays hidden.
    fn mounts(&self) -> Vec<(Utf8PathBuf, Mount)> {
        let defaults = std::iter::once("/tmp")
            .chain(HOMES)
            .map(|folder| (Utf8PathBuf::from(folder), Mount::Hidden));
        let listed = |paths: &[Utf8PathBuf], mount| {
            paths
                .iter()
                .filter(|path| path.parent().is_some() && path.exists())
                .map(move |path| (path.clone(), mount))
                .collect::<Vec<_>>()
        };
        let mut mounts: Vec<(Utf8PathBuf, Mount)> = defaults
            .filter(|(folder, _)| folder.is_dir())
            .chain(listed(&self.read_only, Mount::ReadOnly))
            .chain(listed(&self.hidden, Mount::Hidden))
            .chain(listed(&self.writable, Mount::Writable))
            .collect();
        mounts.sort_by_key(|(path, mount)| (path.components().count(), *mount));
        mounts.dedup();
        mounts
    }

    /// Whether bubblewrap lets the tests see `path` (to keep only reachable folders on PATH).
    pub fn shows(&self, path: &Utf8Path) -> bool {
        self.mounts()
            .iter()
            .rev()
            .find(|(folder, _)| path.starts_with(folder))
            .is_none_or(|(_, mount)| *mount != Mount::Hidden)
    }
}

impl Sandbox {
    /// Picks the sandbox for `choice`, probing what works on this machine.
    pub fn resolve(choice: SandboxChoice) -> Result<Sandbox, MendError> {
        match choice {
            SandboxChoice::None => Ok(Sandbox::Unsandboxed),
            SandboxChoice::Bwrap if Sandbox::Bwrap.works() => Ok(Sandbox::Bwrap),
            SandboxChoice::Bwrap => Err(MendError::harness(
                "bubblewrap cannot run here — install it (`apt-get install bubblewrap`) or pass --sandbox auto|none",
            )),
            SandboxChoice::Auto => Ok([
                Sandbox::Bwrap,
                Sandbox::NetworkNamespace { map_root: false },
                Sandbox::NetworkNamespace { map_root: true },
            ]
            .into_iter()
            .find(Sandbox::works)
            .unwrap_or(Sandbox::Unsandboxed)),
        }
    }

    /// The sandbox's short name, as events and records spell it.
    pub fn name(&self) -> &'static str {
        match self {
            Sandbox::Bwrap => "bwrap",
            Sandbox::NetworkNamespace { .. } => "network-namespace",
            Sandbox::Unsandboxed => "none",
        }
    }

    /// What the user must know about this sandbox, if anything.
    pub fn warning(&self) -> Option<&'static str> {
        match self {
            Sandbox::Bwrap => None,
            Sandbox::NetworkNamespace { .. } => Some(
                "only a network namespace is available: the tests run without network, but with your files and permissions (install bubblewrap for a full sandbox)",
            ),
            Sandbox::Unsandboxed => Some(
                "NO SANDBOX: the repository's tests run with your permissions, your files and your network (install bubblewrap: `apt-get install bubblewrap`)",
            ),
        }
    }

    /// Whether the tests can see `path` in this sandbox.
    pub fn shows(&self, path: &Utf8Path, view: &View) -> bool {
        match self {
            Sandbox::Bwrap => view.shows(path),
            Sandbox::NetworkNamespace { .. } | Sandbox::Unsandboxed => true,
        }
    }

    /// The command that runs `program args` in `workdir` inside this sandbox. The caller sets the
    /// environment on the returned command; the sandbox passes it through unchanged.
    pub fn command(
        &self,
        program: &Utf8Path,
        args: &[&str],
        workdir: &Utf8Path,
        view: &View,
    ) -> Command {
        match self {
            Sandbox::Bwrap => {
                let mut command = isolated();
                command.args(["--ro-bind", "/", "/"]).args(KERNEL_MOUNTS);
                for (path, mount) in view.mounts() {
                    match mount {
                        Mount::Hidden => command.arg("--tmpfs").arg(&path),
                        Mount::ReadOnly => command.arg("--ro-bind").arg(&path).arg(&path),
                        Mount::Writable => command.arg("--bind").arg(&path).arg(&path),
                    };
                }
                // Last, so the copy is writable wherever it lies (even inside a hidden folder).
                command
                    .arg("--bind")
                    .arg(workdir)
                    .arg(workdir)
                    .arg("--chdir")
                    .arg(workdir);
                command.arg("--").arg(program).args(args);
                command
            }
            Sandbox::NetworkNamespace { map_root } => {
                let mut command = Command::new("unshare");
                command.arg("--net");
                if *map_root {
                    command.arg("--map-root-user");
                }
                command
                    .arg("--")
                    .arg(program)
                    .args(args)
                    .current_dir(workdir);
                command
            }
            Sandbox::Unsandboxed => {
                let mut command = Command::new(program);
                command.args(args).current_dir(workdir);
                command
            }
        }
    }

    /// Runs `true` inside the sandbox: namespaces can be forbidden even where the tool exists.
    fn works(&self) -> bool {
        let workdir = std::env::temp_dir();
        let Ok(workdir) = Utf8PathBuf::from_path_buf(workdir) else {
            return false;
        };
        self.command(Utf8Path::new("/bin/true"), &[], &workdir, &View::default())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outer_mounts_come_first_so_a_venv_inside_the_hidden_original_is_shown_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        for folder in ["original/.venv", "tools", "report"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        let view = View {
            read_only: vec![
                root.join("original/.venv"),
                root.join("tools"),
                root.join("gone"),
            ],
            hidden: vec![root.join("original")],
            writable: vec![root.join("report")],
        };
        let command = Sandbox::Bwrap.command(
            Utf8Path::new("/bin/true"),
            &["-x"],
            &root.join("original/copy"),
            &view,
        );
        let args: Vec<String> = command
            .get_args()
            .map(|arg| arg.to_string_lossy().into_owned())
            .skip_while(|arg| arg != "/proc")
            .skip(1)
            .collect();
        let homes = HOMES
            .iter()
            .filter(|home| Utf8Path::new(home).is_dir())
            .flat_map(|home| ["--tmpfs".to_owned(), (*home).to_owned()]);
        let expected: Vec<String> = ["--tmpfs", "/tmp"]
            .map(str::to_owned)
            .into_iter()
            .chain(homes)
            .chain(
                [
                    "--ro-bind",
                    root.join("tools").as_str(),
                    root.join("tools").as_str(),
                    "--tmpfs",
                    root.join("original").as_str(),
                    "--bind",
                    root.join("report").as_str(),
                    root.join("report").as_str(),
                    "--ro-bind",
                    root.join("original/.venv").as_str(),
                    root.join("original/.venv").as_str(),
                    "--bind",
                    root.join("original/copy").as_str(),
                    root.join("original/copy").as_str(),
                    "--chdir",
                    root.join("original/copy").as_str(),
                    "--",
                    "/bin/true",
                    "-x",
                ]
                .map(str::to_owned),
            )
            .collect();
        // The missing folder is left out rather than failing bubblewrap.
        assert_eq!(args, expected);
        assert_eq!(
            (
                view.shows(&root.join("original/src")),
                view.shows(&root.join("original/.venv/bin")),
                view.shows(Utf8Path::new("/usr/bin")),
            ),
            (false, true, true)
        );
    }
}
