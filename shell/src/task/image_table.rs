//! The task file's `[environment]` table: the image a task's tests run in, where the
//! repository lives inside it, and the commands that set each copy up before its tests.

use camino::Utf8Path;

use super::field_error::At;
use super::{file, Environment, SetUpSteps};
use crate::error::MendError;

/// SWE-bench's harness gives an instance's whole set-up this long; mend gives each step as much.
pub(crate) const SETUP_TIMEOUT_SECONDS: u64 = 1800;

/// `environment.setup`: each step a non-blank command line, each with the same limit.
pub(crate) fn set_up_steps(raw: &file::EnvironmentTable, at: At) -> Result<SetUpSteps, MendError> {
    let mut steps = Vec::new();
    for step in &raw.setup {
        if step.get_ref().trim().is_empty() {
            return Err(at(
                Some(step.span()),
                "environment.setup: a step is empty; give each step a command, e.g. \"python -m pip install -e .\"",
            ));
        }
        steps.push(step.get_ref().clone());
    }
    let timeout = match &raw.setup_timeout_seconds {
        Some(seconds) if *seconds.get_ref() == 0 => {
            return Err(at(
                Some(seconds.span()),
                "environment.setup_timeout_seconds: must be at least 1",
            ))
        }
        Some(seconds) => *seconds.get_ref(),
        None => SETUP_TIMEOUT_SECONDS,
    };
    Ok(SetUpSteps {
        steps,
        timeout: std::time::Duration::from_secs(timeout),
    })
}

/// `[environment]`: the image reference (a relative `oci:`/`docker-archive:` path is the task
/// file's folder's) and an absolute workdir without `..`.
pub(crate) fn environment_table(
    raw: file::EnvironmentTable,
    origin: &Utf8Path,
    at: At,
) -> Result<Option<Environment>, MendError> {
    let workdir = match raw.workdir {
        Some(workdir) => {
            let span = workdir.span();
            let workdir = workdir.into_inner();
            if !workdir.starts_with('/')
                || workdir.split('/').any(|part| part == "..")
                || workdir == "/"
            {
                return Err(at(
                    Some(span),
                    &format!("environment.workdir = \"{workdir}\": give the absolute folder inside the image where the repository lives, e.g. \"/testbed\""),
                ));
            }
            Some(workdir.trim_end_matches('/').to_owned())
        }
        None => None,
    };
    let Some(image) = raw.image else {
        return match workdir {
            Some(_) => Err(at(None, "environment.workdir is given without environment.image: name the image (image = \"host/name:tag\")")),
            None => Ok(None),
        };
    };
    let span = image.span();
    let base = origin.parent().unwrap_or(Utf8Path::new("."));
    let image = crate::oci::ImageRef::parse(image.get_ref(), base)
        .map_err(|message| at(Some(span), &format!("environment.image: {message}")))?;
    Ok(Some(Environment { image, workdir }))
}
