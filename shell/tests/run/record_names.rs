//! A record never replaces another: a run whose second's name is taken in `.mend/` writes the
//! next free one (`STAMP-2.json`, its patch beside), names that file in its verdict and its
//! message, and every file it writes follows the user's umask.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime};

use crate::common::server::Server;
use crate::common::turns::{recorded_replies, script};
use crate::common::{fixture, python, sample_copy, Outcome};
use mend::clock::utc_stamp;
use serde_json::Value;

/// Each file in `folder`: name → (mode, contents).
fn files_in(folder: &Path) -> BTreeMap<String, (u32, String)> {
    fs::read_dir(folder)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let mode = entry.metadata().unwrap().permissions().mode() & 0o777;
            let text = fs::read_to_string(entry.path()).unwrap();
            (entry.file_name().into_string().unwrap(), (mode, text))
        })
        .collect()
}

#[test]
fn a_run_whose_name_is_taken_writes_the_next_one_with_the_umask_mode() {
    let server = Server::start(script(recorded_replies(&fixture("repair"))));
    let copy = sample_copy();
    let repo = copy.path().canonicalize().unwrap();
    let folder = repo.join(".mend");
    fs::create_dir(&folder).unwrap();
    fs::write(folder.join(".gitignore"), "*\n").unwrap();
    fs::set_permissions(folder.join(".gitignore"), fs::Permissions::from_mode(0o644)).unwrap();
    // Another run's record under the name of every second this run can start in.
    let now = SystemTime::now();
    for second in 0..600 {
        let stamp = utc_stamp(now + Duration::from_secs(second) - Duration::from_secs(1));
        let path = folder.join(format!("{stamp}.json"));
        fs::write(&path, format!("{{\"taken\": \"{stamp}\"}}\n")).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    }
    let before = files_in(&folder);

    let run = Outcome::from(
        Command::new("sh")
            .args(["-c", "umask 027 && exec \"$0\" \"$@\""])
            .arg(env!("CARGO_BIN_EXE_mend"))
            .args(["run", "--json", "--sandbox", "none", "--host", &server.base])
            .current_dir(&repo)
            .env("MEND_PYTHON", python())
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let verdict = run
        .events()
        .into_iter()
        .find(|event| event["type"] == "verdict")
        .unwrap();
    let record = verdict["record"].as_str().unwrap().to_owned();
    let stamp = record
        .strip_prefix(&format!("{}/", folder.display()))
        .and_then(|name| name.strip_suffix("-2.json"))
        .unwrap_or_else(|| panic!("{record} is not a -2 record in {}", folder.display()))
        .to_owned();
    let (new_record, new_patch) = (format!("{stamp}-2.json"), format!("{stamp}-2.patch"));
    assert_eq!(
        (
            before.contains_key(&format!("{stamp}.json")),
            &verdict["record"],
            &verdict["patch"],
            run.stderr
                .lines()
                .filter(|line| line.contains(&new_record))
                .map(str::to_owned)
                .collect::<Vec<_>>(),
        ),
        (
            true,
            &Value::from(format!("{}/{new_record}", folder.display())),
            &Value::from(format!("{}/{new_patch}", folder.display())),
            vec![
                format!("mend: record written to {record} (replay it with `mend replay {record}`)"),
                format!(
                    "mend: the change is in {}/{new_patch} (apply it with `mend apply {record}`)",
                    folder.display()
                ),
            ],
        )
    );
    // Every record that was there is as it was; the two new files are 0666 & !027.
    let mut after = files_in(&folder);
    let modes = [&new_record, &new_patch].map(|name| after.remove(name).unwrap().0);
    assert_eq!((modes, after), ([0o640, 0o640], before));
}
