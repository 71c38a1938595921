//! What a line the user types in `mend chat` is: a message for the model, or a command for mend.

/// A line the user typed.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Said<'a> {
    Message(&'a str),
    Diff,
    Verify,
    Save(&'a str),
    /// `/save` without a path.
    SaveWhere,
    Help,
    Unknown(&'a str),
    Nothing,
}

pub(super) fn parse(line: &str) -> Said<'_> {
    let line = line.trim();
    let Some(command) = line.strip_prefix('/') else {
        return if line.is_empty() {
            Said::Nothing
        } else {
            Said::Message(line)
        };
    };
    let (name, rest) = command
        .split_once(char::is_whitespace)
        .map_or((command, ""), |(name, rest)| (name, rest.trim()));
    match (name, rest) {
        ("diff", "") => Said::Diff,
        ("verify", "") => Said::Verify,
        ("help", "") => Said::Help,
        ("save", "") => Said::SaveWhere,
        ("save", path) => Said::Save(path),
        _ => Said::Unknown(line),
    }
}

#[cfg(test)]
mod tests {
    use super::{parse, Said};

    #[test]
    fn lines_are_messages_or_commands() {
        let cases = [
            ("fix the bug\n", Said::Message("fix the bug")),
            ("  /diff \n", Said::Diff),
            ("/verify", Said::Verify),
            ("/save out/fix.patch\n", Said::Save("out/fix.patch")),
            ("/save", Said::SaveWhere),
            ("/save  \n", Said::SaveWhere),
            ("/diff now", Said::Unknown("/diff now")),
            ("/quit", Said::Unknown("/quit")),
            ("/help", Said::Help),
            ("   \n", Said::Nothing),
        ];
        for (line, said) in cases {
            assert_eq!(parse(line), said, "{line:?}");
        }
    }
}
