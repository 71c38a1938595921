//! The file names of the attempts' pages: made from task names (input like any other, so never a
//! path, never `..`), recognised again so that a rerun of the report can remove the pages it
//! wrote before and no longer links, and nothing else in that folder.

use camino::Utf8Path;
use std::collections::BTreeSet;

use crate::error::MendError;
use crate::page::{back_link_opening, DOCUMENT_OPENING};

/// Task names are cut to this many characters in file names.
const NAME_CHARS: usize = 80;
/// Hex digits of the task name's hash in a cleaned name.
const HASH_CHARS: usize = 12;

fn kept(character: char) -> bool {
    character.is_ascii_alphanumeric() || "._-".contains(character)
}

/// The file name of an attempt's page. A task name made only of `A-Z a-z 0-9 . _ -` is kept
/// as it is; any other is cleaned and followed by `~` and a hash of the whole name, so two tasks
/// never share a file (`~` never occurs in a kept name).
pub(crate) fn page_name(task: &str, attempt: u32) -> String {
    if !task.is_empty() && task.len() <= NAME_CHARS && task.chars().all(kept) {
        return format!("{task}-{attempt}.html");
    }
    let cleaned: String = task
        .chars()
        .take(NAME_CHARS)
        .map(|character| if kept(character) { character } else { '_' })
        .collect();
    let hash = crate::atomic::sha256_hex(task.as_bytes());
    format!("{cleaned}~{}-{attempt}.html", &hash[..HASH_CHARS])
}

/// Whether [`page_name`] could have made `name`, for some task and attempt.
pub(crate) fn is_page_name(name: &str) -> bool {
    let Some((task, attempt)) = name
        .strip_suffix(".html")
        .and_then(|stem| stem.rsplit_once('-'))
    else {
        return false;
    };
    let number = !attempt.is_empty()
        && attempt.chars().all(|digit| digit.is_ascii_digit())
        && (attempt == "0" || !attempt.starts_with('0'))
        && attempt.parse::<u32>().is_ok();
    let within = |part: &str, least: usize| {
        (least..=NAME_CHARS).contains(&part.len()) && part.chars().all(kept)
    };
    let task = match task.split_once('~') {
        Some((cleaned, hash)) => {
            within(cleaned, 0)
                && hash.len() == HASH_CHARS
                && hash
                    .chars()
                    .all(|digit| matches!(digit, '0'..='9' | 'a'..='f'))
        }
        None => within(task, 1),
    };
    number && task
}

/// Removes from `folder` every page the report at `report_href` wrote there for an attempt
/// (named as [`page_name`] names them, beginning as mend's pages begin, linking back to that
/// report) that is not in `linked`; anything else in the folder stays, another report's pages
/// too. Returns how many it removed.
pub(crate) fn remove_stale_pages(
    folder: &Utf8Path,
    linked: &BTreeSet<String>,
    report_href: &str,
) -> Result<usize, MendError> {
    let back = back_link_opening(report_href);
    let entries = folder.read_dir_utf8().map_err(|err| {
        MendError::harness(format!(
            "cannot read {folder} to remove the old attempts' pages: {err}"
        ))
    })?;
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !is_page_name(name) || linked.contains(name) {
            continue;
        }
        let path = entry.path();
        // Only a plain file (not a link to one elsewhere) that mend wrote.
        let plain = path
            .symlink_metadata()
            .is_ok_and(|metadata| metadata.file_type().is_file());
        if !plain || !written_for(path, &back) {
            continue;
        }
        std::fs::remove_file(path).map_err(|err| {
            MendError::harness(format!(
                "cannot remove the old attempt page {path}: {err} — remove it, or give --html a folder you can write"
            ))
        })?;
        removed += 1;
    }
    Ok(removed)
}

/// Whether the file at `path` is one of mend's pages and links back with `back`.
fn written_for(path: &Utf8Path, back: &str) -> bool {
    std::fs::read_to_string(path)
        .is_ok_and(|page| page.starts_with(DOCUMENT_OPENING) && page.contains(back))
}

/// `segment` as one segment of a relative URL: every byte but `A-Z a-z 0-9 - . _ ~` as `%XX`,
/// so that a file name with `#`, `?`, `%` or `/` in it still names that file.
pub(crate) fn url_segment(segment: &str) -> String {
    segment
        .bytes()
        .map(|byte| {
            if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
                char::from(byte).to_string()
            } else {
                format!("%{byte:02X}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TASKS: [(&str, u32); 9] = [
        ("paginate", 3),
        ("v1.2_fix-x", 0),
        ("../../etc/passwd", 0),
        ("a/b", 1),
        ("a_b", 1),
        ("", 0),
        ("<img src=x>", 2),
        ("\"><img src=x onerror=alert(1)>", 4_000_000_000),
        ("a~b", 7),
    ];

    #[test]
    fn task_names_become_file_names_that_stay_in_the_folder_and_never_collide() {
        let names: Vec<String> = TASKS
            .iter()
            .map(|(task, attempt)| page_name(task, *attempt))
            .collect();
        let hash = |task: &str| crate::atomic::sha256_hex(task.as_bytes())[..12].to_owned();
        assert_eq!(
            names,
            [
                "paginate-3.html".to_owned(),
                "v1.2_fix-x-0.html".to_owned(),
                format!(".._.._etc_passwd~{}-0.html", hash("../../etc/passwd")),
                format!("a_b~{}-1.html", hash("a/b")),
                "a_b-1.html".to_owned(),
                format!("~{}-0.html", hash("")),
                format!("_img_src_x_~{}-2.html", hash("<img src=x>")),
                format!(
                    "___img_src_x_onerror_alert_1__~{}-4000000000.html",
                    hash("\"><img src=x onerror=alert(1)>")
                ),
                format!("a_b~{}-7.html", hash("a~b")),
            ]
        );
    }

    #[test]
    fn every_page_name_is_recognised_and_nothing_else_is() {
        let made: Vec<bool> = TASKS
            .iter()
            .map(|(task, attempt)| is_page_name(&page_name(task, *attempt)))
            .collect();
        assert_eq!(made, [true; 9]);
        let long = "x".repeat(81);
        let others: Vec<bool> = [
            "index.html",
            "notes-1.txt",
            "paginate-01.html",
            "paginate-.html",
            "paginate-4294967296.html",
            "-1.html",
            "my page-1.html",
            "a~ABCDEF012345-1.html",
            "a~abc-1.html",
            "a~b~0123456789ab-1.html",
            &format!("{long}-1.html"),
            "paginate-1.html.bak",
        ]
        .iter()
        .map(|name| is_page_name(name))
        .collect();
        assert_eq!(others, [false; 12]);
    }

    #[test]
    fn a_file_name_becomes_one_url_segment() {
        assert_eq!(
            [
                "index.html",
                "my report #2?.html",
                "100%/é.html",
                "\"><img src=x onerror=alert(1)>.html"
            ]
            .map(url_segment),
            [
                "index.html",
                "my%20report%20%232%3F.html",
                "100%25%2F%C3%A9.html",
                "%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E.html"
            ]
        );
    }

    #[test]
    fn only_this_reports_old_pages_are_removed() {
        let dir = tempfile::tempdir().expect("temp dir");
        let folder = Utf8Path::from_path(dir.path()).expect("utf-8");
        let record = Utf8Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/repair.json");
        let page_for = |href: &str| {
            let back = crate::page::Back {
                href,
                listed_as: "t attempt 0",
            };
            crate::page::record_file_page(&record, Some(back)).expect("the fixture's page")
        };
        let ours = page_for("../report.html");
        let write =
            |name: &str, text: &str| std::fs::write(folder.join(name), text).expect("write");
        write("kept-0.html", &ours);
        write("stale-0.html", &ours);
        write(&page_name("gone/task", 3), &ours);
        write("other-0.html", &page_for("../other.html"));
        write("notes-1.html", "<p>my own notes, named like a page</p>");
        write("index.html", &ours);
        write("README.txt", "mine");
        std::fs::create_dir(folder.join("folder-1.html")).expect("mkdir");
        let elsewhere = tempfile::tempdir().expect("temp dir");
        let target = elsewhere.path().join("x-0.html");
        std::fs::write(&target, &ours).expect("write");
        std::os::unix::fs::symlink(&target, folder.join("link-0.html")).expect("symlink");

        let linked = BTreeSet::from(["kept-0.html".to_owned()]);
        let removed = remove_stale_pages(folder, &linked, "../report.html");
        let mut left: Vec<String> = folder
            .read_dir_utf8()
            .expect("read")
            .flatten()
            .map(|entry| entry.file_name().to_owned())
            .collect();
        left.sort();
        assert_eq!(
            (removed, left, target.exists()),
            (
                Ok(2),
                [
                    "README.txt",
                    "folder-1.html",
                    "index.html",
                    "kept-0.html",
                    "link-0.html",
                    "notes-1.html",
                    "other-0.html"
                ]
                .map(str::to_owned)
                .to_vec(),
                true
            )
        );
    }
}
