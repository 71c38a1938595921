//! pytest's progress lines (`....F..s.   [ 42%]`): a suite stopped at the time limit leaves
//! hundreds of them at the end of its output, and they say only how far it got.

use std::sync::LazyLock;

use regex::Regex;

/// How many progress lines a tail that ends in them keeps: enough to show how far the run got.
const PROGRESS_LINES_KEPT: usize = 3;

/// A whole progress line of `pytest -q`: outcome letters, then the percentage done.
static PROGRESS_LINE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^[.FEsxX]+ *\[ *\d{1,3}%\]$").ok());

/// A progress line cut short when the run was stopped: outcome letters only.
static PARTIAL_PROGRESS_LINE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^[.FEsxX]+$").ok());

fn is_match(regex: &LazyLock<Option<Regex>>, line: &str) -> bool {
    regex
        .as_ref()
        .is_some_and(|regex| regex.is_match(line.trim_end()))
}

/// `output` with a run of progress lines at its end cut to the last few, after a marker that
/// says how many were left out; any other output is unchanged.
pub(crate) fn shorten_trailing_progress(output: &str) -> String {
    let lines: Vec<&str> = output.lines().collect();
    let mut start = lines.len();
    if start > 0 && is_match(&PARTIAL_PROGRESS_LINE, lines[start - 1]) {
        start -= 1;
    }
    while start > 0 && is_match(&PROGRESS_LINE, lines[start - 1]) {
        start -= 1;
    }
    let progress = lines.len() - start;
    if progress <= PROGRESS_LINES_KEPT {
        return output.to_owned();
    }
    let cut = progress - PROGRESS_LINES_KEPT;
    let mut kept: Vec<String> = lines[..start].iter().map(|&line| line.to_owned()).collect();
    kept.push(format!("[… {cut} lines of pytest progress cut …]"));
    kept.extend(lines[start + cut..].iter().map(|&line| line.to_owned()));
    kept.join("\n")
}

#[cfg(test)]
mod tests {
    use super::shorten_trailing_progress;

    #[test]
    fn a_tail_of_progress_lines_keeps_the_last_few_after_what_came_before() {
        let mut output = "tests/conftest.py:3: DeprecationWarning: old\n".to_owned();
        for percent in 1..=40 {
            output.push_str(&format!("........F.......  [{percent:3}%]\n"));
        }
        output.push_str("....\n");
        assert_eq!(
            shorten_trailing_progress(&output),
            "tests/conftest.py:3: DeprecationWarning: old\n[… 38 lines of pytest progress cut …]\n........F.......  [ 39%]\n........F.......  [ 40%]\n...."
        );
    }

    #[test]
    fn output_that_ends_in_anything_else_is_unchanged() {
        let output = "........  [ 50%]\n........  [100%]\n........  [100%]\n........  [100%]\n1 failed, 31 passed in 0.40s\n";
        assert_eq!(shorten_trailing_progress(output), output);
        let short = "....  [ 50%]\n....  [100%]\n";
        assert_eq!(shorten_trailing_progress(short), short);
    }
}
