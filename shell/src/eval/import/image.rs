//! `--image-template`: the image of every row that names none, from its fields. SWE-bench's own
//! images are `swebench/sweb.eval.x86_64.{docker_id}`, where `docker_id` is the instance id
//! with `__` written `_1776_`, lower-cased (Docker allows no capitals).

use super::error::TemplateError;
use super::row::Instance;

/// How SWE-bench's harness starts every eval script in its images: the tests' environment is a
/// conda prefix, `testbed`, that the image's `python` does not see until it is activated.
/// A row without its own `eval_script` gets the same before its command (when the image has
/// conda's activate script; an image without it runs the command as it is), and the command's
/// words reach the program unchanged (`exec "$@"`).
const ACTIVATE: &str = "if [ -f /opt/miniconda3/bin/activate ]; then . /opt/miniconda3/bin/activate && conda activate testbed || exit 1; fi; exec \"$@\"";

/// `command` run after the image's environment is activated, as the harness runs it.
pub(super) fn activated(command: &[String]) -> Vec<String> {
    ["sh", "-c", ACTIVATE, "sh"]
        .into_iter()
        .map(str::to_owned)
        .chain(command.iter().cloned())
        .collect()
}

const FIELDS: [&str; 6] = [
    "instance_id",
    "docker_id",
    "repo",
    "owner",
    "name",
    "version",
];

/// Refuses a template with a `{field}` it cannot fill.
pub(super) fn check_template(template: &str) -> Result<(), TemplateError> {
    for field in placeholders(template) {
        if !FIELDS.contains(&field) {
            return Err(TemplateError::Unknown {
                field: field.to_owned(),
                known: FIELDS.map(|name| format!("{{{name}}}")).join(", "),
            });
        }
    }
    Ok(())
}

pub(super) fn expand(template: &str, instance: &Instance) -> Result<String, TemplateError> {
    let mut image = template.to_owned();
    for field in placeholders(template) {
        let (owner, name) = instance
            .repo
            .as_deref()
            .and_then(|repo| repo.split_once('/'))
            .unzip();
        let value = match field {
            "instance_id" => Some(instance.id.clone()),
            "docker_id" => Some(instance.id.replace("__", "_1776_").to_lowercase()),
            "repo" => instance.repo.clone(),
            "owner" => owner.map(str::to_owned),
            "name" => name.map(str::to_owned),
            _ => instance.version.clone(),
        }
        .ok_or_else(|| TemplateError::NotInRow {
            field: field.to_owned(),
        })?;
        image = image.replace(&format!("{{{field}}}"), &value);
    }
    Ok(image)
}

fn placeholders(template: &str) -> Vec<&str> {
    template
        .split('{')
        .skip(1)
        .filter_map(|part| part.split_once('}').map(|(field, _)| field))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{check_template, expand};
    use crate::eval::import::row::read;

    #[test]
    fn swe_bench_names_its_images_by_the_lower_cased_id() {
        let row = read(r#"{"instance_id":"Django__django-11099","problem_statement":"p","repo":"django/django","version":"3.0"}"#).expect("row");
        assert_eq!(
            [
                expand("swebench/sweb.eval.x86_64.{docker_id}:latest", &row),
                expand("local/{owner}-{name}:{version}", &row),
            ],
            [
                Ok("swebench/sweb.eval.x86_64.django_1776_django-11099:latest".to_owned()),
                Ok("local/django-django:3.0".to_owned()),
            ]
        );
        assert_eq!(
            check_template("x/{id}").map_err(|err| err.to_string()),
            Err("--image-template: unknown field {id}; use {instance_id}, {docker_id}, {repo}, {owner}, {name}, {version}".to_owned())
        );
    }
}
