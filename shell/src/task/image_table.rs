//! The task file's `[environment]` table: the image a task's tests run in and where the
//! repository lives inside it.

use camino::Utf8Path;

use super::parse::At;
use super::{file, Environment};
use crate::error::MendError;

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
