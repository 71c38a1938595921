//! Each attempt's `mend show` page, written next to the eval's page (`attempts/<task>-<n>.html`)
//! so that the eval's page links to it relatively and the folder moves whole.
//!
//! Task names and record paths come from results files, which are input like any other: a name
//! becomes a file name only through [`page_name`] (never a path, never `..`), and a record is
//! read only from inside the folder its results file is in.
//!
//! Each page opens with a link back to the eval's page. Pages an earlier report wrote there and
//! this one does not link (fewer attempts, a task renamed) are removed, and only those.

use std::collections::BTreeSet;
use std::fmt;

use camino::{Utf8Component, Utf8Path, Utf8PathBuf};

use super::page_names::{page_name, remove_stale_pages, url_segment};
use super::results::Row;
use crate::error::MendError;
use crate::page::Back;

/// The folder, next to the eval's page, that holds the attempts' pages.
pub(crate) const ATTEMPTS_FOLDER: &str = "attempts";
/// One attempt as the eval's page lists it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AttemptLink {
    pub task: String,
    pub attempt: u32,
    pub passed: bool,
    /// Passed with a change that reaches into the test run: shown apart, not as a pass.
    pub suspect: bool,
    pub stop: String,
    pub turns: u32,
    pub tokens: u64,
    /// The page's address relative to the eval's page, once written; else why it has none.
    pub href: Result<String, AttemptError>,
}

/// Why an attempt listed in a results file cannot be shown, exported or traced: the file its
/// row names is not to be read, or cannot be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AttemptError {
    /// The row's record path leaves the folder of its results file (or is empty).
    Outside { record: String, dir: Utf8PathBuf },
    /// The record is missing or is not a record.
    Unreadable(MendError),
}

impl fmt::Display for AttemptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttemptError::Outside { record, dir } => {
                write!(f, "its record path `{record}` is not inside {dir}")
            }
            AttemptError::Unreadable(err) => f.write_str(&err.message),
        }
    }
}

impl std::error::Error for AttemptError {}

/// The record of `row`, found in `dir`; refused when its path leaves the folder.
pub(crate) fn record_path(dir: &Utf8Path, row: &Row) -> Result<Utf8PathBuf, AttemptError> {
    let relative = Utf8Path::new(&row.record);
    let inside = !row.record.is_empty()
        && relative
            .components()
            .all(|part| matches!(part, Utf8Component::Normal(_)));
    if inside {
        Ok(dir.join(relative))
    } else {
        Err(AttemptError::Outside {
            record: row.record.clone(),
            dir: dir.to_owned(),
        })
    }
}

/// What the report wrote into the attempts folder.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AttemptPages {
    /// Every attempt, by task then number.
    pub links: Vec<AttemptLink>,
    /// Old pages of attempts the report no longer links, removed.
    pub removed: usize,
}

/// Writes every attempt's page into the attempts folder beside `out`. An attempt whose record is
/// missing or unreadable gets no page: its link says why, and so does one warning on stderr.
pub(crate) fn write_attempt_pages(
    rows: &[(Utf8PathBuf, Row)],
    out: &Utf8Path,
) -> Result<AttemptPages, MendError> {
    let folder = match out.parent() {
        Some(parent) if !parent.as_str().is_empty() => parent.join(ATTEMPTS_FOLDER),
        _ => Utf8PathBuf::from(ATTEMPTS_FOLDER),
    };
    std::fs::create_dir_all(&folder)
        .map_err(|err| {
        MendError::harness(format!(
            "cannot create {folder} for the attempts' pages: {err} — give --html a path in a folder you can write"
        ))
    })?;
    // Attempt pages sit one folder below the eval's page.
    let report_href = format!("../{}", url_segment(out.file_name().unwrap_or_default()));
    let mut links = Vec::with_capacity(rows.len());
    let mut linked = BTreeSet::new();
    for (dir, row) in rows {
        let name = page_name(&row.task, row.attempt);
        let listed_as = format!("{} attempt {}", row.task, row.attempt);
        let back = Back {
            href: &report_href,
            listed_as: &listed_as,
        };
        let page = record_path(dir, row).and_then(|path| {
            crate::page::record_file_page(&path, Some(back)).map_err(AttemptError::Unreadable)
        });
        let href = match page {
            Ok(page) => {
                crate::page::write_derived_page(&folder.join(&name), &page)?;
                let href = format!("{ATTEMPTS_FOLDER}/{name}");
                linked.insert(name);
                Ok(href)
            }
            Err(problem) => Err(problem),
        };
        links.push(AttemptLink {
            task: row.task.clone(),
            attempt: row.attempt,
            passed: row.passed,
            suspect: row.suspect,
            stop: row.stop.clone(),
            turns: row.turns,
            tokens: row.tokens,
            href,
        });
    }
    links.sort_by(|a, b| (&a.task, a.attempt).cmp(&(&b.task, b.attempt)));
    let missing: Vec<&AttemptLink> = links.iter().filter(|link| link.href.is_err()).collect();
    if let Some(first) = missing.first() {
        eprintln!(
            "mend: {} attempt(s) have no page, e.g. {} attempt {}: {} — keep each --out folder whole (the records beside its results files)",
            missing.len(),
            first.task,
            first.attempt,
            first.href.as_ref().err().map_or(String::new(), ToString::to_string)
        );
    }
    let removed = remove_stale_pages(&folder, &linked, &report_href)?;
    Ok(AttemptPages { links, removed })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_path_that_leaves_the_folder_is_refused() {
        let row = |record: &str| Row {
            task: "t".to_owned(),
            attempt: 0,
            seed: 0,
            stop: "assistant_finished".to_owned(),
            passed: true,
            turns: 1,
            tokens: 1,
            model_ms: 0,
            tool_ms: 0,
            test_ms: 0,
            outside_ms: None,
            record: record.to_owned(),
            suite_sha256: "s".to_owned(),
            task_file_sha256: "t".to_owned(),
            repo_sha256: "r".to_owned(),
            model: "gemma4:e2b".to_owned(),
            model_digest: "m".to_owned(),
            k: 1,
            flaky: false,
            why: crate::eval::why::Why::default(),
            suspect: false,
        };
        let dir = Utf8Path::new("out");
        let found: Vec<Result<Utf8PathBuf, String>> =
            ["t/0.json", "../x.json", "/etc/passwd", "./t/0.json", ""]
                .iter()
                .map(|record| record_path(dir, &row(record)).map_err(|err| err.to_string()))
                .collect();
        assert_eq!(
            found,
            [
                Ok(Utf8PathBuf::from("out/t/0.json")),
                Err("its record path `../x.json` is not inside out".to_owned()),
                Err("its record path `/etc/passwd` is not inside out".to_owned()),
                Err("its record path `./t/0.json` is not inside out".to_owned()),
                Err("its record path `` is not inside out".to_owned()),
            ]
        );
        assert_eq!(
            record_path(dir, &row("../x.json")),
            Err(AttemptError::Outside {
                record: "../x.json".to_owned(),
                dir: dir.to_owned(),
            })
        );
    }
}
