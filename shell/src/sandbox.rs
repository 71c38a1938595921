//! Where the repository's code runs: every pytest run (the `run_tests` tool and both independent
//! checks) executes code the model may just have written, with the user's permissions. The
//! sandbox takes away the network, every writable path but the workspace copy, the user's home
//! and the other processes.

use std::process::{Command, Stdio};

use camino::{Utf8Path, Utf8PathBuf};
use clap::ValueEnum;

use crate::error::MendError;

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
    /// workspace and a private `/tmp`; homes hidden (the interpreter's own folders re-exposed
    /// read-only).
    Bwrap {
        readable: Vec<Utf8PathBuf>,
    },
    /// Only a network namespace (`unshare --net`): no network, everything else as the user.
    NetworkNamespace {
        map_root: bool,
    },
    Unsandboxed,
}

/// Folders that hold users' files; hidden inside bubblewrap.
const HOMES: [&str; 2] = ["/home", "/root"];

impl Sandbox {
    /// Picks the sandbox for `choice`, probing what works on this machine.
    pub fn resolve(choice: SandboxChoice, python: &Utf8Path) -> Result<Sandbox, MendError> {
        let bwrap = Sandbox::Bwrap {
            readable: interpreter_folders(python),
        };
        match choice {
            SandboxChoice::None => Ok(Sandbox::Unsandboxed),
            SandboxChoice::Bwrap if bwrap.works() => Ok(bwrap),
            SandboxChoice::Bwrap => Err(MendError::harness(
                "bubblewrap cannot run here — install it (`apt-get install bubblewrap`) or pass --sandbox auto|none",
            )),
            SandboxChoice::Auto => Ok([
                bwrap,
                Sandbox::NetworkNamespace { map_root: false },
                Sandbox::NetworkNamespace { map_root: true },
            ]
            .into_iter()
            .find(Sandbox::works)
            .unwrap_or(Sandbox::Unsandboxed)),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Sandbox::Bwrap { .. } => "bwrap",
            Sandbox::NetworkNamespace { .. } => "network-namespace",
            Sandbox::Unsandboxed => "none",
        }
    }

    /// What the user must know about this sandbox, if anything.
    pub fn warning(&self) -> Option<&'static str> {
        match self {
            Sandbox::Bwrap { .. } => None,
            Sandbox::NetworkNamespace { .. } => Some(
                "only a network namespace is available: the tests run without network, but with your files and permissions (install bubblewrap for a full sandbox)",
            ),
            Sandbox::Unsandboxed => Some(
                "NO SANDBOX: the repository's tests run with your permissions, your files and your network (install bubblewrap: `apt-get install bubblewrap`)",
            ),
        }
    }

    /// The command that runs `program args` in `workdir` inside this sandbox. The caller sets the
    /// environment on the returned command; the sandbox passes it through unchanged.
    pub fn command(&self, program: &Utf8Path, args: &[&str], workdir: &Utf8Path) -> Command {
        self.command_writing(program, args, workdir, None)
    }

    /// [`Sandbox::command`], with `also_writable` (a folder outside the workspace, e.g. where
    /// pytest writes its report) writable inside bubblewrap too.
    pub fn command_writing(
        &self,
        program: &Utf8Path,
        args: &[&str],
        workdir: &Utf8Path,
        also_writable: Option<&Utf8Path>,
    ) -> Command {
        match self {
            Sandbox::Bwrap { readable } => {
                let mut command = Command::new("bwrap");
                command.args([
                    "--unshare-net",
                    "--unshare-pid",
                    "--unshare-ipc",
                    "--unshare-uts",
                    "--die-with-parent",
                    "--ro-bind",
                    "/",
                    "/",
                    "--dev",
                    "/dev",
                    "--proc",
                    "/proc",
                    "--tmpfs",
                    "/tmp",
                ]);
                for home in HOMES.iter().filter(|home| Utf8Path::new(home).is_dir()) {
                    command.args(["--tmpfs", home]);
                }
                for folder in readable {
                    command.arg("--ro-bind").arg(folder).arg(folder);
                }
                if let Some(folder) = also_writable {
                    command.arg("--bind").arg(folder).arg(folder);
                }
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
        self.command(Utf8Path::new("/bin/true"), &[], &workdir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    }
}

/// The interpreter's venv and the installation it links to: they may live under a home that
/// the sandbox hides, so they are mounted back, read-only.
fn interpreter_folders(python: &Utf8Path) -> Vec<Utf8PathBuf> {
    let mut folders = Vec::new();
    let prefix_of = |path: &Utf8Path| {
        path.parent()
            .and_then(Utf8Path::parent)
            .map(Utf8Path::to_path_buf)
    };
    if python.is_absolute() {
        folders.extend(prefix_of(python));
    }
    if let Ok(real) = python.canonicalize_utf8() {
        folders.extend(prefix_of(&real));
    }
    folders.retain(|folder| folder.as_str() != "/" && !folder.as_str().is_empty());
    folders.dedup();
    folders
}
