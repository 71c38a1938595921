//! The run's change: one folding section per file of the unified diff, lines coloured by kind.

use super::html::Html;

/// Files with more changed lines than this start folded.
const OPEN_LINES: usize = 200;

pub(crate) fn draw(diff: &str, page: &mut Html) {
    if diff.is_empty() {
        page.element("p", "dim", "The run changed no file.");
        return;
    }
    for file in files(diff) {
        page.raw(if file.lines.len() <= OPEN_LINES {
            "<details class=\"diff-file\" open><summary>"
        } else {
            "<details class=\"diff-file\"><summary>"
        });
        page.element("code", "", &file.name)
            .element(
                "span",
                "dim",
                &format!(" +{} −{}", file.added(), file.removed()),
            )
            .raw("</summary><pre class=\"diff\">");
        for (kind, line) in file.kinds() {
            page.element("span", kind, line).raw("\n");
        }
        page.raw("</pre></details>");
    }
}

struct FileDiff<'a> {
    name: String,
    lines: Vec<&'a str>,
}

impl FileDiff<'_> {
    /// Each line with its kind (`add`, `del`, `hunk`, `ctx`); `+++`/`---` count as changes only
    /// inside a hunk, where they are lines that start with `++` or `--`.
    fn kinds(&self) -> impl Iterator<Item = (&'static str, &str)> + '_ {
        let mut in_hunk = false;
        self.lines.iter().map(move |line| {
            let kind = match line.as_bytes().first() {
                Some(b'@') => {
                    in_hunk = true;
                    "hunk"
                }
                Some(b'+') if in_hunk => "add",
                Some(b'-') if in_hunk => "del",
                _ => "ctx",
            };
            (kind, *line)
        })
    }

    fn added(&self) -> usize {
        self.kinds().filter(|(kind, _)| *kind == "add").count()
    }

    fn removed(&self) -> usize {
        self.kinds().filter(|(kind, _)| *kind == "del").count()
    }
}

/// Splits a diff at each `--- a/FILE` header (one followed by `+++ `: a removed line that starts
/// with `-- ` is not a header); text before the first header is its own section.
fn files(diff: &str) -> Vec<FileDiff<'_>> {
    let lines: Vec<&str> = diff.lines().collect();
    let mut files: Vec<FileDiff> = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let header = line.strip_prefix("--- ").filter(|_| {
            lines
                .get(at + 1)
                .is_some_and(|next| next.starts_with("+++ "))
        });
        match (header, files.last_mut()) {
            (Some(name), _) => files.push(FileDiff {
                name: name.strip_prefix("a/").unwrap_or(name).to_owned(),
                lines: vec![line],
            }),
            (None, Some(file)) => file.lines.push(line),
            (None, None) => files.push(FileDiff {
                name: "(diff)".to_owned(),
                lines: vec![line],
            }),
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::files;

    #[test]
    fn a_diff_splits_into_its_files_with_their_counts() {
        let diff = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n-a\n--- sql comment\n+b\n+c\n--- a/<img>.py\n+++ b/<img>.py\n@@ -1 +0,0 @@\n-gone\n";
        let found: Vec<(String, usize, usize, usize)> = files(diff)
            .iter()
            .map(|file| {
                (
                    file.name.clone(),
                    file.lines.len(),
                    file.added(),
                    file.removed(),
                )
            })
            .collect();
        assert_eq!(
            found,
            vec![
                ("x.py".to_owned(), 7, 2, 2),
                ("<img>.py".to_owned(), 4, 0, 1)
            ]
        );
    }
}
