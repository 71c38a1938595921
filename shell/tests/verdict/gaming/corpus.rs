//! The adversarial corpus, `fixtures/adversarial/`: one folder a game (or an honest repair), its
//! moves and expected verdict in `game.toml` (see the folder's README). Every entry is played
//! under bubblewrap and without a sandbox, and each run must come to the verdict its file
//! expects: a game that fakes a pass fails and names what it did, a game the tests cannot tell
//! from a repair passes with the warnings it must carry (an eval counts it suspect), and an
//! honest repair passes with no warning at all (a false alarm fails the corpus too).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::game::{play_with, Moves, Played, Project, TaskFile};
use crate::common::repo_root;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Game {
    /// What the model does, in a sentence.
    #[allow(dead_code)] // read by people, in the file
    about: String,
    /// The rule that catches it (or, for an honest repair, the rules it must not trip).
    #[allow(dead_code)]
    rule: String,
    project: String,
    task_file: String,
    /// Files the project holds before the run, as if it had been so all along.
    #[serde(default)]
    setup: Vec<Setup>,
    moves: Vec<Move>,
    expect: Expect,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Setup {
    path: String,
    /// A file of the game's folder.
    from: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, tag = "tool", rename_all = "snake_case")]
enum Move {
    WriteFile {
        path: String,
        from: String,
    },
    ReplaceText {
        path: String,
        old: String,
        from: String,
    },
    RunTests,
}

#[derive(Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
struct Expect {
    /// "fail" (exit 1, the tests do not pass) or "pass" (exit 0).
    verdict: String,
    /// Words what mend said about the verdict must hold.
    #[serde(default)]
    names: Vec<String>,
    /// A pass's warnings, whole and in order; none for an honest repair.
    #[serde(default)]
    warnings: Vec<String>,
    /// A pass whose outcomes were read from the runner's output with nothing to confirm them
    /// by (libtest's): the verdict says so. A pass by any other runner is confirmed.
    #[serde(default)]
    unconfirmed: bool,
}

fn corpus() -> PathBuf {
    repo_root().join("fixtures/adversarial")
}

fn games() -> Vec<(String, Game)> {
    let mut games: Vec<(String, Game)> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("game.toml").is_file())
        .map(|folder| {
            let name = folder.file_name().unwrap().to_str().unwrap().to_owned();
            let text = std::fs::read_to_string(folder.join("game.toml")).unwrap();
            let game = toml::from_str(&text).unwrap_or_else(|err| panic!("{name}: {err}"));
            (name, game)
        })
        .collect();
    games.sort_by(|a, b| a.0.cmp(&b.0));
    // MEND_CORPUS_ONLY=word plays the games whose folder names hold it (while working on one;
    // `make test` leaves it unset and plays them all).
    if let Ok(only) = std::env::var("MEND_CORPUS_ONLY") {
        games.retain(|(name, _)| name.contains(&only));
    }
    games
}

fn text_of(folder: &Path, file: &str) -> String {
    std::fs::read_to_string(folder.join(file))
        .unwrap_or_else(|err| panic!("{}: {err}", folder.join(file).display()))
}

fn project(name: &str) -> Project {
    match name {
        "invoice" => Project::Invoice,
        "cargo-crate" => Project::Crate,
        "npm-package" => Project::Npm,
        "unittest-receipt" => Project::UnittestReceipt,
        "django-shaped" => Project::DjangoShaped,
        other => panic!("no project {other}"),
    }
}

fn task_file(name: &str) -> TaskFile {
    match name {
        "init" => TaskFile::Init,
        "wide" => TaskFile::Wide,
        "node-junit" => TaskFile::NodeJunit,
        "own" => TaskFile::Own,
        other => panic!("no task file {other}"),
    }
}

fn played(name: &str, game: &Game, sandbox: &str) -> Played {
    let folder = corpus().join(name);
    let moves = game
        .moves
        .iter()
        .fold(Moves::new(), |moves, step| match step {
            Move::WriteFile { path, from } => moves.write(path, &text_of(&folder, from)),
            Move::ReplaceText { path, old, from } => {
                moves.replace(path, old, &text_of(&folder, from))
            }
            Move::RunTests => moves.run_tests(),
        });
    let prepare = |root: &Path| {
        for setup in &game.setup {
            let path = root.join(&setup.path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text_of(&folder, &setup.from)).unwrap();
        }
    };
    play_with(
        project(&game.project),
        task_file(&game.task_file),
        sandbox,
        moves,
        false,
        &prepare,
    )
}

/// What the run came to, in the terms of `Expect`: the words it was expected to name that it
/// did name, and its warnings.
fn seen(played: &Played, expected: &Expect) -> Expect {
    let verdict_event = played.event("verdict");
    let verdict = match (played.outcome.code, verdict_event["tests_pass"].as_bool()) {
        (1, Some(false)) => "fail".to_owned(),
        (0, Some(true)) => "pass".to_owned(),
        (code, pass) => format!("exit {code}, tests_pass {pass:?}:\n{}", played.shown()),
    };
    let said = played.said();
    let warnings = match &verdict_event["warnings"] {
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().unwrap_or_default().to_owned())
            .collect(),
        _ => Vec::new(),
    };
    // Only a pass says whether it was confirmed: what a failing run was is said by its names.
    let unconfirmed =
        verdict == "pass" && !played.event("tests_after")["run"]["unconfirmed"].is_null();
    Expect {
        unconfirmed,
        verdict,
        names: expected
            .names
            .iter()
            .filter(|word| said.contains(word.as_str()))
            .cloned()
            .collect(),
        warnings,
    }
}

fn every_game_comes_to_its_verdict(sandbox: &str) {
    let games = games();
    if std::env::var_os("MEND_CORPUS_ONLY").is_none() {
        assert!(games.len() >= 15, "the corpus holds {} games", games.len());
    }
    let expected: BTreeMap<&str, Expect> = games
        .iter()
        .map(|(name, game)| (name.as_str(), game.expect.clone()))
        .collect();
    let seen: BTreeMap<&str, Expect> = games
        .iter()
        .map(|(name, game)| {
            let played = played(name, game, sandbox);
            let seen = seen(&played, &game.expect);
            if seen != game.expect {
                // Shown only when the test fails: what mend said on the way to the wrong verdict.
                eprintln!("{name} under {sandbox}:\n{}", played.shown());
            }
            (name.as_str(), seen)
        })
        .collect();
    // The games whose run did not come to what they expect, whole on both sides: a failure
    // names those few (and what their runs said), not all the games of the corpus.
    let astray = |verdicts: &BTreeMap<&str, Expect>| -> BTreeMap<String, Expect> {
        verdicts
            .iter()
            .filter(|(name, _)| seen.get(*name) != expected.get(*name))
            .map(|(name, expect)| ((*name).to_owned(), expect.clone()))
            .collect()
    };
    let (seen, expected) = (astray(&seen), astray(&expected));
    let names: Vec<&str> = seen.keys().map(String::as_str).collect();
    assert_eq!(seen, expected, "under {sandbox}: {}", names.join(", "));
}

#[test]
fn under_bwrap() {
    every_game_comes_to_its_verdict("bwrap");
}

#[test]
fn without_a_sandbox() {
    every_game_comes_to_its_verdict("none");
}
