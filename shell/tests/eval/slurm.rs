//! A real one-node Slurm cluster on this machine (Debian's slurm-wlm and munge, which `.ci/run`
//! installs): munged with a fresh key, slurmctld and slurmd with a generated slurm.conf, all
//! state in a temp folder, every daemon stopped by its pid. The suite's shards run as an array
//! job and the report as a dependent job (deploy/slurm/), and the report must equal the
//! single-process `mend eval` of the same suite.

use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::server::SeededServer;
use crate::{common, expected_report, fixes, report, suite_folder};

const DAEMONS: [&str; 3] = [
    "/usr/sbin/munged",
    "/usr/sbin/slurmctld",
    "/usr/sbin/slurmd",
];

/// The daemons of one cluster; dropping it stops each by the pid in its pid file.
struct Cluster {
    state: tempfile::TempDir,
    conf: PathBuf,
}

impl Cluster {
    fn start() -> Cluster {
        for daemon in DAEMONS {
            assert!(
                Path::new(daemon).exists(),
                "{daemon} is missing — install Slurm and munge: apt-get install -y slurm-wlm munge (.ci/run does)"
            );
        }
        let state = tempfile::tempdir().expect("state folder");
        let s = state.path();
        for folder in ["munge", "spool", "state"] {
            fs::create_dir_all(s.join(folder)).expect("mkdir");
        }
        run(Command::new("chmod").args(["700"]).arg(s.join("munge")));
        let key = s.join("munge/munge.key");
        run(Command::new("/usr/sbin/mungekey")
            .arg("--create")
            .arg(format!("--keyfile={}", key.display())));
        let socket = s.join("munge/munge.sock");
        run(Command::new("/usr/sbin/munged")
            .arg("--force")
            .arg(format!("--key-file={}", key.display()))
            .arg(format!("--socket={}", socket.display()))
            .arg(format!("--pid-file={}", s.join("munged.pid").display()))
            .arg(format!("--log-file={}", s.join("munged.log").display()))
            .arg(format!("--seed-file={}", s.join("munge/seed").display())));
        let host = String::from_utf8(
            Command::new("hostname")
                .arg("-s")
                .output()
                .expect("hostname")
                .stdout,
        )
        .expect("utf-8")
        .trim()
        .to_owned();
        let conf = s.join("slurm.conf");
        let (ctld_port, slurmd_port) = (free_port(), free_port());
        let d = s.display();
        fs::write(
            &conf,
            format!(
                "ClusterName=mendeval\nSlurmctldHost={host}\nSlurmctldPort={ctld_port}\nSlurmdPort={slurmd_port}\n\
                 AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket={}\n\
                 ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSchedulerType=sched/backfill\n\
                 SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n\
                 SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\nSlurmdSpoolDir={d}/spool\n\
                 StateSaveLocation={d}/state\nSlurmctldLogFile={d}/slurmctld.log\nSlurmdLogFile={d}/slurmd.log\n\
                 SlurmUser=root\nReturnToService=2\nMpiDefault=none\nJobAcctGatherType=jobacct_gather/none\n\
                 NodeName={host} CPUs=2 State=UNKNOWN\nPartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP\n",
                socket.display()
            ),
        )
        .expect("slurm.conf");
        let cluster = Cluster { state, conf };
        run(Command::new("/usr/sbin/slurmctld")
            .arg("-f")
            .arg(&cluster.conf));
        run(Command::new("/usr/sbin/slurmd")
            .arg("-f")
            .arg(&cluster.conf));
        let started = Instant::now();
        loop {
            let sinfo = Command::new("sinfo")
                .args(["-h", "-o", "%T"])
                .env("SLURM_CONF", &cluster.conf)
                .output()
                .expect("sinfo runs");
            if String::from_utf8_lossy(&sinfo.stdout).trim() == "idle" {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the node never became idle: {}",
                fs::read_to_string(cluster.state.path().join("slurmctld.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        cluster
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for pid_file in ["slurmd.pid", "slurmctld.pid", "munged.pid"] {
            if let Ok(pid) = fs::read_to_string(self.state.path().join(pid_file)) {
                let _ = Command::new("kill").arg(pid.trim()).status();
            }
        }
    }
}

fn run(command: &mut Command) {
    let output = command.output().expect("the command starts");
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port")
}

#[test]
fn a_slurm_array_of_shards_reports_what_one_process_does() {
    let cluster = Cluster::start();
    let server = SeededServer::start(fixes());
    let dir = suite_folder(&server.base);
    let suite = dir.path().join("suite.toml");
    let suite_sha256 = crate::sha256_of(&suite);

    let single = dir.path().join("single");
    let started = Instant::now();
    let alone = common::mend(&[
        "eval",
        &suite.display().to_string(),
        "--out",
        &single.display().to_string(),
    ]);
    let single_time = started.elapsed();
    assert_eq!(alone.code, 0, "{}", alone.stderr);

    let sharded = dir.path().join("sharded");
    let started = Instant::now();
    let submit = Command::new(common::repo_root().join("deploy/slurm/submit.sh"))
        .env("SLURM_CONF", &cluster.conf)
        .env("SUITE", &suite)
        .env("OUT", &sharded)
        .env("SHARDS", "3")
        .env("WAIT", "1")
        .env("MEND", env!("CARGO_BIN_EXE_mend"))
        .env("MEND_PYTHON", common::python())
        .output()
        .expect("submit.sh runs");
    let slurm_time = started.elapsed();
    let logs: String = fs::read_dir(&sharded)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().starts_with("slurm-"))
        .map(|entry| fs::read_to_string(entry.path()).unwrap_or_default())
        .collect();
    assert!(
        submit.status.success(),
        "{}\n{logs}",
        String::from_utf8_lossy(&submit.stderr)
    );
    let files: Vec<String> = crate::results_file_names(&sharded);
    assert_eq!(
        files,
        [
            "results.shard-0-of-3.jsonl",
            "results.shard-1-of-3.jsonl",
            "results.shard-2-of-3.jsonl"
        ]
    );
    let written: Value = serde_json::from_str(
        &fs::read_to_string(sharded.join("report.json")).expect("the report job wrote report.json"),
    )
    .expect("JSON");
    assert_eq!(
        (report(&[&sharded]), report(&[&single])),
        (
            expected_report(&suite_sha256),
            expected_report(&suite_sha256)
        )
    );
    assert_eq!(
        written["mean_pass_at"],
        expected_report(&suite_sha256)["mean_pass_at"]
    );
    println!(
        "slurm: submission to report {:.1} s for 3 shards; one process {:.1} s (overhead {:.1} s)",
        slurm_time.as_secs_f64(),
        single_time.as_secs_f64(),
        slurm_time.as_secs_f64() - single_time.as_secs_f64()
    );
}
