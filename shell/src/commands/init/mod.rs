//! `mend init`: writes a commented `mend.toml` for a project from what it finds there, and says
//! what it guessed. It never overwrites a task file unless told to (`--force`).

mod addopts;
mod detect;
mod python;
mod share;
pub(crate) mod template;

use std::io::Write;
use std::os::unix::fs::PermissionsExt;

use camino::Utf8Path;

use crate::error::{exit, MendError};
use crate::task::{Task, TASK_FILE_NAME};
use detect::{detect, Kind};

/// `mend init`: writes `repo/mend.toml` from what the project holds (overwriting one only when `force`), and says what it guessed.
pub fn init(repo: &Utf8Path, force: bool) -> Result<u8, MendError> {
    let path = repo.join(TASK_FILE_NAME);
    if path.exists() && !force {
        return Err(MendError::usage(format!(
            "{path} already exists, and mend init never overwrites it — edit it (docs/task-file.md), \
             or pass --force to replace it"
        )));
    }
    // A project's tests folder may look like a project of its own (a conftest.py): its task
    // file belongs to the project above.
    if let Some((above, kind)) = detect::tests_folder_of(repo) {
        return Err(MendError::usage(format!(
            "{repo} is the tests folder of {above}, {} — run `mend init` there (or `mend init --repo {above}`)",
            kind.describe()
        )));
    }
    let guesses = detect(repo);
    let Some((guess, others)) = guesses.split_first() else {
        let fix = match detect::project_above(repo) {
            Some((above, kind)) => format!(
                "{above} above it is {} — run `mend init` there (or `mend init --repo {above}`)",
                kind.describe()
            ),
            None => format!("write {TASK_FILE_NAME} by hand (see docs/task-file.md)"),
        };
        return Err(MendError::usage(format!(
            "found nothing mend knows how to test in {repo} (pytest files, Cargo.toml, package.json, go.mod) \
             — {fix}"
        )));
    };
    let python = (guess.kind == Kind::Pytest).then(|| python::facts(repo));
    let (share, found) = share::shares(repo);
    let text = template::render(
        guess,
        python.as_ref().map(|facts| facts.path.as_str()),
        &share,
        &found,
    );
    write_checked(&path, &text, force)?;

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
    if !found.is_empty() {
        println!(
            "  shared          {}   (linked from the copy, not copied)",
            found.join(", ")
        );
    }
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

/// Writes the task file only once it loads (a template mend itself cannot read would be mend's
/// bug, and must not be left behind), as an ordinary file of the user's (0666 less the umask, as
/// any file they make; a file replaced keeps its mode); without
/// `force`, never over a file that appeared meanwhile.
fn write_checked(path: &Utf8Path, text: &str, force: bool) -> Result<(), MendError> {
    let folder = path.parent().unwrap_or(Utf8Path::new("."));
    let cannot = |err: std::io::Error| MendError::harness(format!("cannot write {path}: {err}"));
    let mut draft = tempfile::Builder::new()
        .prefix(".mend-init-")
        .suffix(".toml")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(folder)
        .map_err(cannot)?;
    draft.write_all(text.as_bytes()).map_err(cannot)?;
    draft.as_file().sync_all().map_err(cannot)?;
    let draft_path = Utf8Path::from_path(draft.path()).ok_or_else(|| {
        MendError::harness(format!("cannot write {path}: its folder is not UTF-8"))
    })?;
    Task::load(draft_path).map_err(|err| {
        MendError::harness(format!(
            "mend init made a task file that does not load ({err}); nothing was written — please report this"
        ))
    })?;
    if let Ok(existing) = std::fs::metadata(path) {
        draft
            .as_file()
            .set_permissions(existing.permissions())
            .map_err(cannot)?;
    }
    if force {
        draft.persist(path).map_err(|err| cannot(err.error))?;
    } else {
        draft
            .persist_noclobber(path)
            .map_err(|err| cannot(err.error))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::init;
    use crate::task::Task;
    use crate::test_support::project;

    #[test]
    fn init_shows_the_window_and_the_text_calls_knobs_in_the_model_table() {
        let (_dir, root) = project(&[
            ("src/pkg/__init__.py", ""),
            ("tests/test_pkg.py", "def test_it():\n    pass\n"),
        ]);
        init(&root, false).unwrap();
        let path = root.join("mend.toml");
        let written = std::fs::read_to_string(&path).unwrap();
        let model = &written[written.find("[model]").unwrap()..];
        assert_eq!(
            model,
            "[model]\n\
             # Each is overridden by its flag on `mend run` and `mend chat`.\n\
             name = \"gemma4:e2b\"\n\
             protocol = \"ollama\"   # or \"openai\" / \"anthropic\" for compatible servers\n\
             max_turns = 12\n\
             # The context window of every request, in tokens (--num-ctx; at least 1024). Left out, mend\n\
             # takes the model's own length up to 16384 with Ollama (what an 8 GB machine holds), the\n\
             # window an OpenAI-compatible server states (else 8192), 200000 with Anthropic;\n\
             # `mend task` prints the one it will use. Raise it when your machine and model allow.\n\
             # num_ctx = 16384\n\
             # Read tool calls a model writes into its text (`<tool_call>...`, `<function=...>`, a fenced or\n\
             # bare call object) as calls; false leaves such text as the model's answer.\n\
             text_tool_calls = true\n"
        );
        // As written, mend chooses the window; uncommented, the line is a valid setting.
        let knobs = |text: &str| {
            let task = Task::parse(&path, text).unwrap();
            (task.num_ctx, task.text_tool_calls)
        };
        let uncommented = written.replace("# num_ctx = 16384", "num_ctx = 16384");
        assert_eq!(
            (knobs(&written), knobs(&uncommented)),
            ((None, true), (Some(16_384), true))
        );
    }

    #[test]
    fn init_in_a_folder_inside_a_project_names_the_project() {
        let (_dir, root) = project(&[
            ("pyproject.toml", "[project]\nname = \"pkg\"\n"),
            ("src/pkg/__init__.py", ""),
            ("tests/test_pkg.py", "def test_it():\n    pass\n"),
            ("scripts/release.sh", "#!/bin/sh\n"),
        ]);
        let inside = root.join("scripts");
        let above = root.canonicalize_utf8().unwrap();
        assert_eq!(
            init(&inside, false).map_err(|err| (err.exit_code, err.message)),
            Err((
                2,
                format!(
                    "found nothing mend knows how to test in {inside} (pytest files, Cargo.toml, package.json, go.mod) \
                     — {above} above it is a Python project tested with pytest — run `mend init` there (or `mend init --repo {above}`)"
                )
            ))
        );
        assert!(!inside.join("mend.toml").exists());
    }

    #[test]
    fn init_in_a_tests_folder_that_looks_like_a_project_names_the_project() {
        let (_dir, root) = project(&[
            ("pyproject.toml", "[project]\nname = \"pkg\"\n"),
            ("src/pkg/__init__.py", ""),
            ("tests/conftest.py", ""),
            ("tests/test_pkg.py", "def test_it():\n    pass\n"),
        ]);
        let tests = root.join("tests");
        let above = root.canonicalize_utf8().unwrap();
        assert_eq!(
            init(&tests, false).map_err(|err| (err.exit_code, err.message)),
            Err((
                2,
                format!(
                    "{tests} is the tests folder of {above}, a Python project tested with pytest — run `mend init` there (or `mend init --repo {above}`)"
                )
            ))
        );
        assert!(!tests.join("mend.toml").exists());
    }
}
