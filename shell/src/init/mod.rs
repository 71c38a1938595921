//! `mend init`: writes a commented `mend.toml` for a project from what it finds there, and says
//! what it guessed. It never overwrites a task file unless told to (`--force`).

mod detect;
mod python;
mod template;

use camino::Utf8Path;

use crate::error::{exit, MendError};
use crate::task::{Task, TASK_FILE_NAME};
use detect::{detect, Kind};

pub fn init(repo: &Utf8Path, force: bool) -> Result<u8, MendError> {
    let path = repo.join(TASK_FILE_NAME);
    if path.exists() && !force {
        return Err(MendError::usage(format!(
            "{path} already exists, and mend init never overwrites it — edit it (docs/task-file.md), \
             or pass --force to replace it"
        )));
    }
    let guesses = detect(repo);
    let Some((guess, others)) = guesses.split_first() else {
        return Err(MendError::usage(format!(
            "found nothing mend knows how to test in {repo} (pytest files, Cargo.toml, package.json, go.mod) \
             — write {TASK_FILE_NAME} by hand (see docs/task-file.md)"
        )));
    };
    let python = (guess.kind == Kind::Pytest).then(|| python::facts(repo));
    let text = template::render(guess, python.as_ref().map(|facts| facts.path.as_str()));
    crate::patch::write_atomically(&path, &text)?;
    // What was written must load: a template mend itself cannot read would be mend's bug.
    Task::load(&path).map_err(|err| {
        MendError::harness(format!(
            "mend init wrote {path}, but it does not load ({err}); please report this"
        ))
    })?;

    println!("Wrote {path} for {}.", guess.kind.describe());
    if let Some(python) = &python {
        println!("  tests run with  {}", python.summary());
    }
    println!(
        "  command         {}   (report = \"{}\")",
        guess.command.join(" "),
        guess.report
    );
    println!("  editable        {}", guess.editable.join(", "));
    println!("  test files      {}", guess.tests.join(", "));
    println!("  readable        {}", guess.readable.join(", "));
    for other in others {
        println!(
            "Also found {}: to test it that way, set test.command to `{}`.",
            other.kind.describe(),
            other.command.join(" ")
        );
    }
    let notes = python
        .iter()
        .flat_map(|facts| &facts.notes)
        .chain(&guess.notes);
    for note in notes {
        println!("Note: {note}.");
    }
    println!(
        "Next: check the file, then `mend verify` (the tests once, on a throwaway copy), \
         `mend task` (what the model is told), and `mend run --task \"...\"`."
    );
    Ok(exit::PASS)
}
