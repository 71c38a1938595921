//! A record file is never torn: a writer killed at any moment leaves either the old file or the
//! whole new one.
//!
//! The test binary plays both parts: `a_killed_writer_leaves_one_whole_record` starts it again
//! running only `an_atomic_write_reads_back_whole`, which, told a path in `WRITER_ENV`, rewrites
//! that path forever, alternating two large records; it kills that writer with SIGKILL after a
//! varying delay and checks that the file parses as exactly one of the two.

use std::process::{Command, Stdio};
use std::thread;
use std::time::Duration;

use camino::Utf8PathBuf;
use mend::record::Record;

const WRITER_ENV: &str = "MEND_TORN_RECORD_WRITER";
/// Kills after these many milliseconds: spread over several write cycles.
const KILL_AFTER_MS: [u64; 12] = [5, 11, 17, 23, 31, 43, 57, 71, 89, 107, 131, 163];

/// Two records that differ everywhere that matters, each several megabytes so that a write
/// takes long enough to be interrupted.
fn record(version: &str) -> Record {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/repair.json"
    ))
    .unwrap();
    // The fixture is in the first run format; it is written back in today's.
    let mut record = Record::parse(&text).unwrap();
    record.description = Some(format!("version {version}: {}", version.repeat(4 << 20)));
    record
}

/// Each of the two records, written atomically, reads back as itself. With a path in
/// `WRITER_ENV` this is the writer the other test kills: it rewrites that path forever.
#[test]
fn an_atomic_write_reads_back_whole() {
    let (a, b) = (record("a"), record("b"));
    if let Ok(path) = std::env::var(WRITER_ENV) {
        let path = Utf8PathBuf::from(path);
        loop {
            a.write_atomically(&path).unwrap();
            b.write_atomically(&path).unwrap();
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = Utf8PathBuf::from_path_buf(dir.path().join("run.json")).unwrap();
    for version in [&a, &b] {
        version.write_atomically(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(&Record::parse(&text).unwrap(), version);
    }
}

/// This binary again, running only the writer test (its name under this module's path).
fn writer(path: &std::path::Path) -> Command {
    let module = module_path!()
        .split_once("::")
        .map_or(module_path!(), |(_crate, module)| module);
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            &format!("{module}::an_atomic_write_reads_back_whole"),
            "--exact",
            "--test-threads=1",
        ])
        .env(WRITER_ENV, path)
        .stdout(Stdio::null());
    command
}

#[test]
fn a_killed_writer_leaves_one_whole_record() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.json");
    let (a, b) = (record("a"), record("b"));
    let mut seen = [0, 0];
    for delay in KILL_AFTER_MS {
        let mut child = writer(&path).spawn().unwrap();
        // Let the first writer finish one record, so that every kill lands on a file that exists
        // (bounded: a broken writer fails the test instead of hanging it).
        let give_up = std::time::Instant::now() + Duration::from_secs(60);
        while !path.exists() {
            if let Some(status) = child.try_wait().unwrap() {
                panic!("the writer ended ({status}) before it wrote a record");
            }
            assert!(
                std::time::Instant::now() < give_up,
                "the writer never finished a first record"
            );
            thread::sleep(Duration::from_millis(5));
        }
        thread::sleep(Duration::from_millis(delay));
        child.kill().unwrap();
        child.wait().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let found = Record::parse(&text)
            .unwrap_or_else(|err| panic!("torn record after {delay} ms: it {err}"));
        if found == a {
            seen[0] += 1;
        } else if found == b {
            seen[1] += 1;
        } else {
            panic!("after {delay} ms the record is neither version");
        }
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name != "run.json")
        .collect();
    println!("torn_record: {} kills, the file was whole every time (a: {}, b: {}); temporary files left by killed writers: {}", KILL_AFTER_MS.len(), seen[0], seen[1], leftovers.len());
    assert!(
        seen[0] + seen[1] > 0,
        "the writer never finished a record: the delays are too short to test anything"
    );
}
