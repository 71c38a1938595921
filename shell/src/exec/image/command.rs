//! The runner's command inside an image: the same scrubbed environment as on this machine, with
//! the image's own `Env` underneath it and every path of the copy seen at the workdir.

use std::process::Command;

use camino::Utf8Path;

use super::root::{image_program, ImageRun};
use crate::error::MendError;
use crate::exec::runner::{Extra, TestRunner};

impl TestRunner {
    /// `argv` inside `image`, the copy at `workdir` on this machine bound at the image's workdir.
    pub(crate) fn image_command(
        &self,
        image: &ImageRun,
        argv: &[String],
        workdir: &Utf8Path,
        extra: Extra,
    ) -> Result<Command, MendError> {
        let program = image_program(image, argv)?;
        let args: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
        let mut command = image.command(&program, &args, workdir, extra.writable, &self.shared);
        command.env_clear();
        for (name, value) in &image.env {
            command.env(name, value);
        }
        self.scrubbed_env(&mut command, &image.workdir);
        let mut roots: Vec<String> = extra
            .startup_path
            .map(ToString::to_string)
            .into_iter()
            .collect();
        roots.extend(
            self.import_roots(workdir)
                .iter()
                .map(|root| image.inside(workdir, Utf8Path::new(root)).to_string()),
        );
        roots.extend(extra.import_path.map(ToString::to_string));
        // The image's own import path stays, after the copy's roots.
        roots.extend(
            image
                .env
                .iter()
                .filter(|(name, value)| name == "PYTHONPATH" && !value.is_empty())
                .map(|(_, value)| value.clone()),
        );
        if !roots.is_empty() {
            command.env("PYTHONPATH", roots.join(":"));
        }
        for (name, value) in &self.env {
            command.env(name, value);
        }
        self.last_env(&mut command, (&image.env, &image.workdir), argv, extra);
        Ok(command)
    }
}
