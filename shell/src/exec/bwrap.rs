//! What every bubblewrap sandbox of mend holds to, over the host's root ([`super::sandbox`]) or
//! an image's ([`super::image::root`]): the namespaces the command is left in and the kernel's
//! own filesystems. A safety rule, written once so that the two sandboxes cannot drift apart.

use std::process::Command;

/// The namespaces a sandboxed command gets of its own: no network (neither the tests nor the
/// model's code may reach out), its own process tree (it sees and signals nothing of the
/// user's), its own IPC and hostname; and it is killed when mend dies, so no test outlives it.
pub(crate) const ISOLATION: [&str; 5] = [
    "--unshare-net",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--die-with-parent",
];

/// A fresh `/dev` and a `/proc` of the command's own process namespace, over whichever root:
/// never the host's, which would show the user's processes.
pub(crate) const KERNEL_MOUNTS: [&str; 4] = ["--dev", "/dev", "--proc", "/proc"];

/// `bwrap` with the isolation every sandbox of mend keeps; the caller adds the filesystem and
/// the command.
pub(crate) fn isolated() -> Command {
    let mut command = Command::new("bwrap");
    command.args(ISOLATION);
    command
}

#[cfg(test)]
mod tests {
    use camino::{Utf8Path, Utf8PathBuf};

    use super::{ISOLATION, KERNEL_MOUNTS};
    use crate::exec::image::root::ImageRun;
    use crate::exec::sandbox::{Sandbox, View};

    /// Whether `words` holds `wanted` as one run, in order.
    fn holds(words: &[String], wanted: &[&str]) -> bool {
        words
            .windows(wanted.len())
            .any(|window| window.iter().map(String::as_str).eq(wanted.iter().copied()))
    }

    #[test]
    fn both_sandboxes_isolate_the_command_and_mount_the_kernels_filesystems_afresh() {
        let host = Sandbox::Bwrap.command(
            Utf8Path::new("/bin/true"),
            &[],
            Utf8Path::new("/nonexistent/copy"),
            &View::default(),
        );
        let image = ImageRun {
            reference: "example:1".to_owned(),
            digest: "sha256:0".to_owned(),
            root: Utf8PathBuf::from("/nonexistent/image"),
            workdir: Utf8PathBuf::from("/testbed"),
            env: Vec::new(),
            uid: 1000,
            gid: 1000,
            python: None,
        }
        .command(
            Utf8Path::new("/bin/true"),
            &[],
            Utf8Path::new("/nonexistent/copy"),
            &[],
            &[],
        );
        let seen: Vec<(String, bool, bool)> = [host, image]
            .iter()
            .map(|command| {
                let words: Vec<String> = command
                    .get_args()
                    .map(|arg| arg.to_string_lossy().into_owned())
                    .collect();
                (
                    command.get_program().to_string_lossy().into_owned(),
                    holds(&words, &ISOLATION),
                    holds(&words, &KERNEL_MOUNTS),
                )
            })
            .collect();
        let expected = ("bwrap".to_owned(), true, true);
        assert_eq!(seen, vec![expected.clone(), expected]);
    }
}
