//! Running inside an unpacked image: bubblewrap with the image's root as `/` (read-only), the
//! attempt's copy bound writable at the workdir, a private `/tmp`, no network, and the user the
//! image's config names mapped onto whoever runs mend (a user namespace: no root, no daemon).

use std::ffi::OsString;
use std::fs;
use std::process::Command;

use camino::{Utf8Path, Utf8PathBuf};

use super::cache::Unpacked;
use super::error::ImageError;
use super::unpack::resolve;
use crate::error::MendError;
use crate::exec::bwrap::{isolated, KERNEL_MOUNTS};

/// Docker's PATH for an image whose config sets none.
const DEFAULT_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/// Made by bubblewrap itself, never taken from the image.
const OWN_MOUNTS: [&str; 3] = ["dev", "proc", "tmp"];

/// How commands run inside one image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRun {
    /// The reference, for messages.
    pub reference: String,
    /// The manifest's digest the reference resolved to (what a record keeps).
    pub digest: String,
    /// The unpacked file system the commands run in.
    pub root: Utf8PathBuf,
    /// Where the copy is seen inside the image.
    pub workdir: Utf8PathBuf,
    /// The config's `Env`, in order.
    pub env: Vec<(String, String)>,
    /// The user id the config's `User` names, the commands' user inside the image.
    pub uid: u32,
    /// The group id the config's `User` names.
    pub gid: u32,
    /// The interpreter `--python`, `$MEND_PYTHON` or the record names, a path inside the
    /// image; `None`: the image's `python` on its PATH.
    pub python: Option<Utf8PathBuf>,
}

impl ImageRun {
    /// `workdir` is the task's `environment.workdir`, else the config's `WorkingDir`.
    pub fn new(
        reference: &str,
        image: &Unpacked,
        workdir: Option<&str>,
    ) -> Result<ImageRun, MendError> {
        let config = &image.config.config;
        let workdir = workdir
            .or(config.working_dir.as_deref().filter(|dir| !dir.is_empty() && *dir != "/"))
            .ok_or_else(|| MendError::usage(format!(
                "the image {reference} names no WorkingDir: say where the repository goes inside it with [environment] workdir = \"/testbed\""
            )))?;
        let env = config
            .env
            .iter()
            .flatten()
            .filter_map(|pair| {
                pair.split_once('=')
                    .map(|(name, value)| (name.to_owned(), value.to_owned()))
            })
            .collect();
        let (uid, gid) = user_ids(&image.root, config.user.as_deref().unwrap_or(""))
            .map_err(|message| MendError::usage(format!("the image {reference}: {message}")))?;
        Ok(ImageRun {
            reference: reference.to_owned(),
            digest: image.digest.to_string(),
            root: image.root.clone(),
            workdir: Utf8PathBuf::from(workdir),
            env,
            uid,
            gid,
            python: None,
        })
    }

    /// The image's PATH.
    pub fn path(&self) -> &str {
        self.env
            .iter()
            .find(|(name, _)| name == "PATH")
            .map_or(DEFAULT_PATH, |(_, value)| value)
    }

    /// `program` as the image's shell would find it on its PATH (a path inside the image).
    pub fn locate(&self, program: &str) -> Option<Utf8PathBuf> {
        if program.contains('/') {
            return Some(Utf8PathBuf::from(program));
        }
        self.path()
            .split(':')
            .filter(|dir| dir.starts_with('/'))
            .find_map(|dir| {
                let inside = Utf8Path::new(dir).join(program);
                let parts: Vec<OsString> = inside
                    .components()
                    .skip(1)
                    .map(|part| part.as_str().into())
                    .collect();
                let host = resolve(self.root.as_std_path(), &parts, inside.as_str()).ok()?;
                host.is_file().then_some(inside)
            })
    }

    /// Where a path of the copy (at `copy` on this machine) is seen inside the image.
    pub fn inside(&self, copy: &Utf8Path, path: &Utf8Path) -> Utf8PathBuf {
        match path.strip_prefix(copy) {
            Ok(rest) if rest.as_str().is_empty() => self.workdir.clone(),
            Ok(rest) => self.workdir.join(rest),
            Err(_) => path.to_owned(),
        }
    }

    /// bubblewrap running `program args` in the image, `copy` at the workdir, `writable`
    /// folders of this machine bound at their own paths (a report's folder, mend's pytest
    /// plugin) and `read_only` ones too (the original's folders the copy links to,
    /// `copy.share`, as the sandbox on this machine shows them). The caller sets the environment.
    pub fn command(
        &self,
        program: &Utf8Path,
        args: &[&str],
        copy: &Utf8Path,
        writable: &[Utf8PathBuf],
        read_only: &[Utf8PathBuf],
    ) -> Command {
        let mut command = isolated();
        command
            .args(["--unshare-user", "--uid"])
            .arg(self.uid.to_string())
            .arg("--gid")
            .arg(self.gid.to_string());
        // A root of its own in memory, the image's folders bound into it: mount points the
        // image lacks (the workdir, a report's folder, a shared folder) are made there before
        // it goes read-only.
        command.args(["--tmpfs", "/"]);
        let holes: Vec<&Utf8Path> = [self.workdir.as_path()]
            .into_iter()
            .chain(writable.iter().map(Utf8PathBuf::as_path))
            .chain(read_only.iter().map(Utf8PathBuf::as_path))
            .collect();
        show_folder(&mut command, &self.root, Utf8Path::new("/"), &holes);
        command.args(KERNEL_MOUNTS).args(["--tmpfs", "/tmp"]);
        command.arg("--bind").arg(copy).arg(&self.workdir);
        for folder in writable {
            command.arg("--bind").arg(folder).arg(folder);
        }
        for folder in read_only {
            command.arg("--ro-bind").arg(folder).arg(folder);
        }
        command
            .args(["--remount-ro", "/", "--chdir"])
            .arg(&self.workdir);
        command.arg("--").arg(program).args(args);
        command
    }
}

/// The image's folder `from` shown at `to`, entry by entry: each bound read-only (a symlink made
/// as written), except where one of mend's mounts goes (`holes`). A folder on the way to one is
/// made afresh in the in-memory root and filled the same way one level down, so the mount point
/// is made there and never in the read-only image; a symlink on the way is left out, so the
/// mount lands at its own path and not where the image's link leads.
fn show_folder(command: &mut Command, from: &Utf8Path, to: &Utf8Path, holes: &[&Utf8Path]) {
    for entry in fs::read_dir(from).into_iter().flatten().flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if to == "/" && OWN_MOUNTS.contains(&name) {
            continue;
        }
        let (source, target) = (from.join(name), to.join(name));
        let on_the_way = holes.iter().any(|hole| hole.starts_with(&target));
        let Ok(meta) = fs::symlink_metadata(&source) else {
            continue;
        };
        if holes.iter().any(|hole| *hole == target) {
            continue;
        }
        if meta.file_type().is_symlink() {
            if let (false, Ok(link)) = (on_the_way, fs::read_link(&source)) {
                command.arg("--symlink").arg(link).arg(&target);
            }
        } else if on_the_way && meta.is_dir() {
            command.arg("--dir").arg(&target);
            show_folder(command, &source, &target, holes);
        } else {
            command.arg("--ro-bind").arg(&source).arg(&target);
        }
    }
}

/// The program `argv` names, found inside the image: the word `python` is the image's
/// `python`, else its `python3`.
pub(crate) fn image_program(image: &ImageRun, argv: &[String]) -> Result<Utf8PathBuf, MendError> {
    let first = argv
        .first()
        .map_or(crate::task::PYTHON_WORD, String::as_str);
    let found = if first == crate::task::PYTHON_WORD {
        image
            .python
            .clone()
            .or_else(|| image.locate("python"))
            .or_else(|| image.locate("python3"))
    } else {
        image.locate(first)
    };
    found.ok_or_else(|| {
        MendError::harness(format!(
            "the test command's program `{first}` is not on the PATH of the image {} ({}) — name it in test.command by its path inside the image",
            image.reference,
            image.path()
        ))
    })
}

/// The config's `User` (`name`, `uid`, `name:group`, `uid:gid`, empty for root) as numbers,
/// names looked up in the image's own `/etc/passwd` and `/etc/group`.
fn user_ids(root: &Utf8Path, user: &str) -> Result<(u32, u32), ImageError> {
    if user.is_empty() {
        return Ok((0, 0));
    }
    let (name, group) = user
        .split_once(':')
        .map_or((user, None), |(name, group)| (name, Some(group)));
    let passwd = read_in_root(root, "etc/passwd");
    let entry = passwd
        .lines()
        .map(|line| line.split(':').collect::<Vec<_>>())
        .find(|fields| fields.len() > 3 && (fields[0] == name || fields[2] == name));
    let uid = match (name.parse::<u32>(), &entry) {
        (Ok(uid), _) => uid,
        (Err(_), Some(fields)) => fields[2]
            .parse()
            .map_err(|_| ImageError::unusable(format!("its /etc/passwd gives `{name}` no uid")))?,
        (Err(_), None) => {
            return Err(ImageError::unusable(format!(
                "its config runs as `{name}`, whom its /etc/passwd does not list"
            )))
        }
    };
    let gid = match group {
        None => entry.and_then(|fields| fields[3].parse().ok()).unwrap_or(0),
        Some(group) => match group.parse::<u32>() {
            Ok(gid) => gid,
            Err(_) => read_in_root(root, "etc/group")
                .lines()
                .map(|line| line.split(':').collect::<Vec<_>>())
                .find(|fields| fields.len() > 2 && fields[0] == group)
                .and_then(|fields| fields[2].parse().ok())
                .ok_or_else(|| {
                    ImageError::unusable(format!(
                        "its config runs as group `{group}`, which its /etc/group does not list"
                    ))
                })?,
        },
    };
    Ok((uid, gid))
}

/// A file of the image, read through its symlinks as the image sees them (never the host's).
fn read_in_root(root: &Utf8Path, path: &str) -> String {
    let parts: Vec<OsString> = path.split('/').map(OsString::from).collect();
    resolve(root.as_std_path(), &parts, path)
        .ok()
        .and_then(|file| fs::read_to_string(file).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mounts_of_mends_own_go_into_fresh_folders_never_into_the_read_only_image() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        for folder in ["home/other", "etc", "tmp", "usr/lib"] {
            fs::create_dir_all(root.join(folder)).unwrap();
        }
        std::os::unix::fs::symlink("usr/lib", root.join("lib")).unwrap();
        std::os::unix::fs::symlink("/elsewhere", root.join("var")).unwrap();
        let mut command = Command::new("bwrap");
        let holes = [
            Utf8Path::new("/home/u/proj/vendor"),
            Utf8Path::new("/var/report"),
            Utf8Path::new("/usr"),
        ];
        show_folder(&mut command, root, Utf8Path::new("/"), &holes);
        let mut args: Vec<String> = command
            .get_args()
            .map(|arg| arg.to_string_lossy().replace(root.as_str(), "IMAGE"))
            .collect();
        // read_dir's order is the disk's: compare the mounts as a set of (op, source, target).
        let mut mounts: Vec<Vec<String>> = Vec::new();
        while !args.is_empty() {
            let width = if args[0] == "--dir" { 2 } else { 3 };
            mounts.push(args.drain(..width).collect());
        }
        mounts.sort();
        let expected: Vec<Vec<String>> = [
            vec!["--dir", "/home"],
            vec!["--ro-bind", "IMAGE/etc", "/etc"],
            vec!["--ro-bind", "IMAGE/home/other", "/home/other"],
            vec!["--symlink", "usr/lib", "/lib"],
        ]
        .iter()
        .map(|mount| mount.iter().map(|arg| (*arg).to_owned()).collect())
        .collect();
        assert_eq!(mounts, expected);
    }

    #[test]
    fn the_configs_user_is_read_from_the_images_own_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        fs::create_dir_all(root.join("etc")).unwrap();
        fs::write(
            root.join("etc/passwd"),
            "root:x:0:0::/root:/bin/sh\napp:x:1000:1001::/home/app:/bin/sh\n",
        )
        .unwrap();
        fs::write(root.join("etc/group"), "root:x:0:\nstaff:x:50:\n").unwrap();
        let found: Vec<Result<(u32, u32), String>> = [
            "",
            "app",
            "app:staff",
            "1000",
            "42:7",
            "ghost",
            "app:nogroup",
        ]
        .iter()
        .map(|user| user_ids(root, user).map_err(|err| err.to_string()))
        .collect();
        assert_eq!(
            found,
            [
                Ok((0, 0)),
                Ok((1000, 1001)),
                Ok((1000, 50)),
                Ok((1000, 1001)),
                Ok((42, 7)),
                Err("its config runs as `ghost`, whom its /etc/passwd does not list".into()),
                Err(
                    "its config runs as group `nogroup`, which its /etc/group does not list".into()
                ),
            ]
        );
    }
}
