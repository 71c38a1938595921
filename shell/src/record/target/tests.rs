//! Tests of `target`: a new record never replaces another, and names the file it wrote.

use std::collections::BTreeMap;

use camino::Utf8PathBuf;
use serde_json::{json, Value};

use super::{default_record, RecordFile, RecordTarget};
use crate::clock::utc_stamp;
use crate::test_support::project;

fn same_second(folder: &Utf8PathBuf) -> RecordTarget {
    RecordTarget::New {
        folder: folder.clone(),
        stem: "20261202T131500Z".to_owned(),
    }
}

/// Every file in `folder`, name to parsed JSON.
fn records_in(folder: &Utf8PathBuf) -> BTreeMap<String, Value> {
    std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let text = std::fs::read_to_string(entry.path()).unwrap();
            (
                entry.file_name().into_string().unwrap(),
                serde_json::from_str(&text).unwrap(),
            )
        })
        .collect()
}

#[test]
fn two_records_of_the_same_second_both_survive_under_the_names_they_report() {
    let (_dir, folder) = project(&[]);
    let mut first = RecordFile::new(same_second(&folder));
    let mut second = RecordFile::new(same_second(&folder));
    let written = (
        first.write_json(&json!({"run": 1})).unwrap(),
        second.write_json(&json!({"run": 2})).unwrap(),
    );
    // A chat writes again after each message: into its own file, never the other's.
    let again = first.write_json(&json!({"run": 1, "messages": 2})).unwrap();
    assert_eq!(
        (written, again, first.written(), second.written()),
        (
            (
                folder.join("20261202T131500Z.json"),
                folder.join("20261202T131500Z-2.json")
            ),
            folder.join("20261202T131500Z.json"),
            Some(folder.join("20261202T131500Z.json").as_path()),
            Some(folder.join("20261202T131500Z-2.json").as_path()),
        )
    );
    assert_eq!(
        records_in(&folder),
        BTreeMap::from([
            (
                "20261202T131500Z.json".to_owned(),
                json!({"run": 1, "messages": 2})
            ),
            ("20261202T131500Z-2.json".to_owned(), json!({"run": 2})),
        ])
    );
}

#[test]
fn runs_racing_for_one_name_each_get_their_own_file() {
    let (_dir, folder) = project(&[]);
    let writers: Vec<_> = (0..8)
        .map(|run| {
            let target = same_second(&folder);
            std::thread::spawn(move || {
                let mut record = RecordFile::new(target);
                let path = record.write_json(&json!({ "run": run })).unwrap();
                (path.file_name().unwrap().to_owned(), json!({ "run": run }))
            })
        })
        .collect();
    let reported: BTreeMap<String, Value> = writers
        .into_iter()
        .map(|writer| writer.join().unwrap())
        .collect();
    let mut names: Vec<String> = reported.keys().cloned().collect();
    names.sort();
    let mut expected: Vec<String> = std::iter::once("20261202T131500Z.json".to_owned())
        .chain((2..=8).map(|number| format!("20261202T131500Z-{number}.json")))
        .collect();
    expected.sort();
    assert_eq!(names, expected);
    // Each file holds what the writer that reported it wrote: none replaced another.
    assert_eq!(records_in(&folder), reported);
}

#[test]
fn a_given_path_is_written_as_named_even_over_an_old_record() {
    let (_dir, folder) = project(&[("mine.json", "{\"old\": true}\n")]);
    let mut record = RecordFile::new(RecordTarget::Given(folder.join("mine.json")));
    let path = record.write_json(&json!({"new": true})).unwrap();
    assert_eq!(path, folder.join("mine.json"));
    assert_eq!(
        records_in(&folder),
        BTreeMap::from([("mine.json".to_owned(), json!({"new": true}))])
    );
}

#[test]
fn a_folder_it_cannot_write_is_named_with_the_fix() {
    let (_dir, root) = project(&[("file", "")]);
    let mut record = RecordFile::new(RecordTarget::New {
        folder: root.join("file/.mend"),
        stem: "20261202T131500Z".to_owned(),
    });
    let error = record.write_json(&json!({})).unwrap_err();
    assert_eq!(
        (error.exit_code, error.message),
        (
            crate::error::exit::HARNESS,
            format!(
                "cannot write the record {root}/file/.mend/20261202T131500Z.json: Not a directory (os error 20) — pass --record PATH to write it elsewhere"
            )
        )
    );
    assert_eq!(record.written(), None);
}

#[test]
fn the_folder_ignores_itself_and_a_user_gitignore_is_kept() {
    let (_dir, repo) = project(&[]);
    let before = utc_stamp(std::time::SystemTime::now());
    let record = default_record(&repo, "chat-").unwrap();
    let after = utc_stamp(std::time::SystemTime::now());
    let stamped = |stamp: &str| RecordTarget::New {
        folder: repo.join(".mend"),
        stem: format!("chat-{stamp}"),
    };
    assert!(
        record == stamped(&before) || record == stamped(&after),
        "{record:?}"
    );
    let gitignore = repo.join(".mend/.gitignore");
    assert_eq!(
        std::fs::read_to_string(&gitignore).unwrap(),
        "# Written by mend: records and patches of runs on this repository.\n*\n"
    );
    std::fs::write(&gitignore, "mine\n").unwrap();
    default_record(&repo, "").unwrap();
    assert_eq!(std::fs::read_to_string(&gitignore).unwrap(), "mine\n");
}
