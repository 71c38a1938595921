//! Images: (1) what a second attempt pays for running in an image already unpacked, over the
//! same attempt on this machine's files (the image's cache lookup, the copy, the tests under
//! bubblewrap in the image, the cleanup); (2) the first pull and unpack of the test image (~115
//! MB unpacked: a Python with pytest, built by shell/tests/images/build-image.sh) from Debian's
//! registry on loopback, against `skopeo copy` + `umoci unpack --rootless` of the same image.

use std::fs;
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use camino::{Utf8Path, Utf8PathBuf};
use mend::exec::image::{ImageCache, ImageRun};
use mend::exec::runner::TestRunner;
use mend::exec::sandbox::{Sandbox, SandboxChoice};
use mend::oci::ImageRef;
use mend::task::Task;
use mend::verdict::check::independent_check;
use mend::workspace::Workspace;

use super::{command, Row};

const REPEATS: usize = 5;
const PULLS: usize = 3;

fn ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1e3
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn python() -> Utf8PathBuf {
    std::env::var("MEND_PYTHON")
        .map(Utf8PathBuf::from)
        .unwrap_or_else(|_| {
            Utf8PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.venv/bin/python"))
        })
}

/// The test image's OCI layout, built once under target/ (as the image tests build it), again
/// whenever the build script or the interpreter changes.
fn layout() -> Utf8PathBuf {
    use std::hash::{Hash, Hasher};
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/images/build-image.sh");
    let mut key = std::collections::hash_map::DefaultHasher::new();
    (fs::read(script).unwrap(), python()).hash(&mut key);
    let out = Utf8PathBuf::from(format!(
        "{}/../target/mend-bench-image-{:016x}",
        env!("CARGO_MANIFEST_DIR"),
        key.finish()
    ));
    if !out.join("index.json").exists() {
        let status = Command::new("bash")
            .arg(script)
            .arg(python())
            .arg(&out)
            .status()
            .unwrap();
        assert!(status.success(), "building the bench image needs umoci");
    }
    out
}

fn project(root: &Utf8Path, environment: &str) {
    fs::create_dir_all(root.join("tests")).unwrap();
    fs::write(root.join("calc.py"), "def add(a, b):\n    return a + b\n").unwrap();
    fs::write(
        root.join("tests/test_calc.py"),
        "from calc import add\n\n\ndef test_one():\n    assert add(1, 1) == 2\n\n\ndef test_two():\n    assert add(2, 2) == 4\n\n\ndef test_three():\n    assert add(0, 3) == 3\n",
    )
    .unwrap();
    fs::write(
        root.join("mend.toml"),
        format!("[task]\nprompt = \"x\"\n[paths]\nreadable = [\"**/*.py\"]\neditable = [\"calc.py\"]\n[test]\ncommand = [\"python\", \"-m\", \"pytest\", \"-q\"]\ntimeout_seconds = 60\nfiles = [\"tests/*.py\"]\nplugins = false\n[tools]\nenabled = [\"run_tests\"]\n{environment}"),
    )
    .unwrap();
}

/// One attempt's steps outside the model loop, in ms: set up (the image found in the cache),
/// copy, the verdict's test run, cleanup.
fn attempt(repo: &Utf8Path, cache: &ImageCache) -> f64 {
    let started = Instant::now();
    let sandbox = Sandbox::resolve(SandboxChoice::Bwrap).unwrap();
    let task = Task::locate(repo, None).unwrap();
    let image = task.environment.as_ref().map(|environment| {
        let unpacked = cache.ensure(&environment.image).unwrap();
        ImageRun::new(
            &environment.image.to_string(),
            &unpacked,
            environment.workdir.as_deref(),
        )
        .unwrap()
    });
    let runner = TestRunner::for_task(python(), sandbox, &task, repo, image).unwrap();
    let workspace = Workspace::copy_of(repo, &task.exclude, &task.history).unwrap();
    let run = independent_check(&runner, &task.test, workspace.root()).unwrap();
    assert!(run.passed(), "the bench project's tests pass");
    workspace.remove().unwrap();
    ms(started)
}

fn second_attempt(dir: &Utf8Path, layout: &Utf8Path) -> Row {
    let (host, in_image) = (dir.join("host"), dir.join("image"));
    project(&host, "");
    project(
        &in_image,
        &format!("[environment]\nimage = \"oci:{layout}:base\"\nworkdir = \"/work\"\n"),
    );
    let cache = ImageCache::at(dir.join("cache"));
    // The first attempt unpacks; the figures are of the ones after it.
    attempt(&in_image, &cache);
    let mut host_runs = Vec::new();
    let mut image_runs = Vec::new();
    for _ in 0..REPEATS {
        host_runs.push(attempt(&host, &cache));
        image_runs.push(attempt(&in_image, &cache));
    }
    let (host_ms, image_ms) = (median(host_runs), median(image_runs));
    Row {
        figure: format!("an attempt in an image already unpacked − the same attempt on this machine (set up, copy, tests in bwrap, cleanup), median of {REPEATS}"),
        measured: format!("{:+.0} ms ({image_ms:.0} ms vs {host_ms:.0} ms)", image_ms - host_ms),
        target: "≤ 50 ms".to_owned(),
        command: command("images"),
    }
}

struct Registry(std::process::Child, String);

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn registry(dir: &Utf8Path) -> Registry {
    fs::create_dir_all(dir).unwrap();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = dir.join("registry.yml");
    fs::write(&config, format!("version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {dir}/registry\nhttp:\n  addr: 127.0.0.1:{port}\n")).unwrap();
    let child = Command::new("docker-registry")
        .arg("serve")
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let address = format!("127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(&address).is_err() {
        assert!(Instant::now() < deadline, "the registry started");
        std::thread::sleep(Duration::from_millis(50));
    }
    Registry(child, address)
}

fn run(program: &str, args: &[&str]) {
    let output = Command::new(program).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "{program}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn first_pull(dir: &Utf8Path, layout: &Utf8Path) -> Row {
    let registry = registry(dir);
    let address = &registry.1;
    run(
        "skopeo",
        &[
            "--insecure-policy",
            "copy",
            "--quiet",
            "--dest-tls-verify=false",
            &format!("oci:{layout}:base"),
            &format!("docker://{address}/bench/python:1"),
        ],
    );
    let reference = ImageRef::parse(&format!("{address}/bench/python:1"), dir).unwrap();
    let (mut mend_runs, mut tool_runs) = (Vec::new(), Vec::new());
    for round in 0..PULLS {
        let cache = ImageCache::at(dir.join(format!("cache-{round}")));
        let started = Instant::now();
        cache.pull(&reference).unwrap();
        mend_runs.push(ms(started));
        let (oci, bundle) = (
            dir.join(format!("oci-{round}")),
            dir.join(format!("bundle-{round}")),
        );
        let started = Instant::now();
        run(
            "skopeo",
            &[
                "--insecure-policy",
                "copy",
                "--quiet",
                "--src-tls-verify=false",
                &format!("docker://{address}/bench/python:1"),
                &format!("oci:{oci}:1"),
            ],
        );
        run(
            "umoci",
            &[
                "unpack",
                "--rootless",
                "--image",
                &format!("{oci}:1"),
                bundle.as_str(),
            ],
        );
        tool_runs.push(ms(started));
    }
    let (mend_ms, tool_ms) = (median(mend_runs), median(tool_runs));
    Row {
        figure: format!("first pull + unpack of the test image (~115 MB unpacked) from a loopback registry ÷ `skopeo copy` + `umoci unpack --rootless`, median of {PULLS}"),
        measured: format!("{:.2}× ({mend_ms:.0} ms vs {tool_ms:.0} ms)", mend_ms / tool_ms),
        target: "≤ 1.5×".to_owned(),
        command: command("images"),
    }
}

pub fn measure() -> Vec<Row> {
    let layout = layout();
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
    vec![
        second_attempt(&root.join("attempts"), &layout),
        first_pull(&root.join("pulls"), &layout),
    ]
}
