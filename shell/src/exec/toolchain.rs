//! The user's toolchains inside the sandbox. The test command's first word is looked up on the
//! PATH mend was started with, before the sandbox starts, and what the program needs to run —
//! its installation, rustup's and cargo's homes — is named so the sandbox can show it read-only.

use camino::{Utf8Path, Utf8PathBuf};

/// Where programs live on a Debian-like system; searched after the user's PATH, and always on
/// the sandbox's PATH.
pub(crate) const SYSTEM_PATH: [&str; 3] = ["/usr/local/bin", "/usr/bin", "/bin"];

/// Folders that hold users' files; bubblewrap hides them.
pub(crate) const HOMES: [&str; 2] = ["/home", "/root"];

/// What mend itself was started with, read once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Host {
    /// `$PATH`, absolute entries only, in order.
    pub path: Vec<Utf8PathBuf>,
    pub home: Option<Utf8PathBuf>,
    /// `$CARGO_HOME`, else `~/.cargo`.
    pub cargo_home: Option<Utf8PathBuf>,
    /// `$RUSTUP_HOME`, else `~/.rustup`.
    pub rustup_home: Option<Utf8PathBuf>,
}

impl Host {
    pub fn current() -> Host {
        let var = |name: &str| {
            std::env::var(name)
                .ok()
                .filter(|value| !value.is_empty())
                .map(Utf8PathBuf::from)
        };
        let home = var("HOME");
        let in_home = |folder: &str| home.as_ref().map(|home| home.join(folder));
        Host {
            path: std::env::var("PATH")
                .unwrap_or_default()
                .split(':')
                .map(Utf8PathBuf::from)
                .filter(|entry| entry.is_absolute())
                .collect(),
            cargo_home: var("CARGO_HOME").or_else(|| in_home(".cargo")),
            rustup_home: var("RUSTUP_HOME").or_else(|| in_home(".rustup")),
            home,
        }
    }

    /// The first executable file called `name` on the user's PATH, then in the system folders.
    pub fn find(&self, name: &str) -> Option<Utf8PathBuf> {
        self.path
            .iter()
            .map(Utf8PathBuf::as_path)
            .chain(SYSTEM_PATH.map(Utf8Path::new))
            .map(|folder| folder.join(name))
            .find(|candidate| is_executable(candidate))
    }

    /// A folder that holds a whole home: never shown to the tests as a whole.
    fn is_home(&self, folder: &Utf8Path) -> bool {
        folder.parent().is_none()
            || HOMES.contains(&folder.as_str())
            || folder.parent() == Some(Utf8Path::new("/home"))
            || self.home.as_deref() == Some(folder)
    }
}

fn is_executable(path: &Utf8Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// A program as the sandbox will run it, with what it needs there.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Toolchain {
    /// The path to run: absolute when it was found on PATH.
    pub program: Utf8PathBuf,
    /// Folders to show read-only: the installation, and its homes.
    pub folders: Vec<Utf8PathBuf>,
    /// Folders to put first on the sandbox's PATH, so the program finds its own helpers (cargo
    /// runs rustc, npm runs node).
    pub bin: Vec<Utf8PathBuf>,
    /// Variables that tell it where its homes are, now that HOME is the copy.
    pub env: Vec<(String, String)>,
}

/// A program name found in none of the folders searched (`searched`, joined as PATH is). The
/// runner words it for the command or the Python it was looking for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotOnPath {
    pub word: String,
    pub searched: String,
}

impl std::fmt::Display for NotOnPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` is not on your PATH ({}): install it, or name it by its full path in test.command",
            self.word, self.searched
        )
    }
}

impl std::error::Error for NotOnPath {}

/// Finds `word` the way a shell would: a name on the user's PATH, or a path as written (a
/// relative one is run from the copy). A name that is nowhere is the message naming it.
pub(crate) fn locate(word: &str, host: &Host) -> Result<Toolchain, NotOnPath> {
    let written_as_path = word.contains('/');
    let program = if written_as_path {
        Utf8PathBuf::from(word)
    } else {
        host.find(word).ok_or_else(|| {
            let searched: Vec<&str> = host
                .path
                .iter()
                .map(|folder| folder.as_str())
                .chain(SYSTEM_PATH)
                .collect();
            NotOnPath {
                word: word.to_owned(),
                searched: searched.join(":"),
            }
        })?
    };
    let mut toolchain = Toolchain {
        folders: installation(&program, host),
        // A relative path as written is a folder of the copy, not an installation to put first.
        bin: program
            .parent()
            .filter(|_| !written_as_path || program.is_absolute())
            .map(Utf8Path::to_path_buf)
            .into_iter()
            .collect(),
        program,
        env: Vec::new(),
    };
    add_rust_homes(&mut toolchain, host);
    Ok(toolchain)
}

/// rustup's proxies (`cargo`, `rustc`) live in `CARGO_HOME/bin` and run the toolchain kept in
/// `RUSTUP_HOME`; cargo reads its registry from `CARGO_HOME`. Both are shown and named, since
/// HOME inside the sandbox is the copy.
fn add_rust_homes(toolchain: &mut Toolchain, host: &Host) {
    let Some(cargo_home) = &host.cargo_home else {
        return;
    };
    if toolchain.program.parent() != Some(cargo_home.join("bin").as_path()) {
        return;
    }
    let homes = [
        ("CARGO_HOME", Some(cargo_home)),
        ("RUSTUP_HOME", host.rustup_home.as_ref()),
    ];
    for (name, home) in homes {
        if let Some(home) = home.filter(|home| home.is_dir()) {
            push_new(&mut toolchain.folders, home.clone());
            toolchain.env.push((name.to_owned(), home.to_string()));
        }
    }
}

/// The installation a program belongs to: the folder above its `bin`, for the path as found
/// (a venv) and for the file it links to (the Python or Node it was made from). A folder that
/// would show a whole home falls back to the program's own folder, then to the file alone.
pub(crate) fn installation(program: &Utf8Path, host: &Host) -> Vec<Utf8PathBuf> {
    let mut folders = Vec::new();
    let real = program.canonicalize_utf8().ok();
    for path in [Some(program.to_path_buf()), real].into_iter().flatten() {
        if !path.is_absolute() || !path.exists() {
            continue;
        }
        let bin = path.parent();
        let chosen = [bin.and_then(Utf8Path::parent), bin]
            .into_iter()
            .flatten()
            .find(|folder| !host.is_home(folder))
            .map_or_else(|| path.clone(), Utf8Path::to_path_buf);
        push_new(&mut folders, chosen);
    }
    folders
}

pub(crate) fn push_new(list: &mut Vec<Utf8PathBuf>, item: Utf8PathBuf) {
    if !list.contains(&item) {
        list.push(item);
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn executable(path: &Utf8Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn a_rustup_proxy_brings_both_homes_and_its_folder_on_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let cargo_home = root.join("home/.cargo");
        let rustup_home = root.join("home/.rustup");
        executable(&cargo_home.join("bin/cargo"));
        std::fs::create_dir_all(&rustup_home).unwrap();
        let host = Host {
            path: vec![root.join("empty"), cargo_home.join("bin")],
            home: Some(root.join("home")),
            cargo_home: Some(cargo_home.clone()),
            rustup_home: Some(rustup_home.clone()),
        };
        assert_eq!(
            locate("cargo", &host),
            Ok(Toolchain {
                program: cargo_home.join("bin/cargo"),
                folders: vec![cargo_home.clone(), rustup_home.clone()],
                bin: vec![cargo_home.join("bin")],
                env: vec![
                    ("CARGO_HOME".to_owned(), cargo_home.to_string()),
                    ("RUSTUP_HOME".to_owned(), rustup_home.to_string()),
                ],
            })
        );
    }

    #[test]
    fn a_link_shows_the_installation_it_leads_to_but_never_a_whole_home() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let home = root.join("me");
        executable(&root.join("opt/node/lib/npm/bin/npm-cli.js"));
        std::fs::create_dir_all(home.join("bin")).unwrap();
        std::os::unix::fs::symlink(
            root.join("opt/node/lib/npm/bin/npm-cli.js"),
            home.join("bin/npm"),
        )
        .unwrap();
        let host = Host {
            path: vec![home.join("bin")],
            home: Some(home.clone()),
            ..Host::default()
        };
        let real_root = root.canonicalize_utf8().unwrap();
        assert_eq!(
            locate("npm", &host),
            Ok(Toolchain {
                program: home.join("bin/npm"),
                // ~/bin/npm: its prefix would be the home, so only ~/bin is shown.
                folders: vec![home.join("bin"), real_root.join("opt/node/lib/npm")],
                bin: vec![home.join("bin")],
                env: Vec::new(),
            })
        );
    }

    #[test]
    fn a_path_is_taken_as_written_and_only_an_absolute_ones_folder_goes_first_on_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let runner = root.join("opt/runner/bin/run");
        executable(&runner);
        assert_eq!(
            [
                locate(runner.as_str(), &Host::default()),
                locate("./scripts/test.sh", &Host::default()),
            ],
            [
                Ok(Toolchain {
                    program: runner.clone(),
                    folders: vec![root.join("opt/runner")],
                    bin: vec![root.join("opt/runner/bin")],
                    env: Vec::new(),
                }),
                Ok(Toolchain {
                    program: "./scripts/test.sh".into(),
                    folders: Vec::new(),
                    bin: Vec::new(),
                    env: Vec::new(),
                }),
            ]
        );
    }

    #[test]
    fn a_program_that_is_nowhere_is_named_with_where_it_was_looked_for() {
        let host = Host {
            path: vec!["/nonexistent/bin".into()],
            ..Host::default()
        };
        assert_eq!(
            locate("no-such-runner-xyz", &host).map_err(|err| err.to_string()),
            Err("`no-such-runner-xyz` is not on your PATH (/nonexistent/bin:/usr/local/bin:/usr/bin:/bin): install it, or name it by its full path in test.command".to_owned())
        );
    }
}
