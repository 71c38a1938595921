//! How many tests a run ran, from the totals a runner prints, for a task judged by the exit
//! code alone: then a change that compiles tests out, deletes them or filters them away still
//! shows as a smaller count, and a run that ran fewer tests than the first one is no pass.
//!
//! The totals read: libtest's `test result: ok. 3 passed; 1 failed; …` (summed over the test
//! binaries), jest's `Tests: 1 failed, 5 passed, 6 total`, node's test runner (`ℹ pass 5`, or
//! `# pass 5` in TAP), mocha's `5 passing` / `1 failing`, `go test -v`'s `--- PASS:` lines and
//! pytest's summary line. Tests that were skipped did not run.

use crate::verdict::read::summary::Summary;

/// The tests the output says ran to a result, or `None` when it prints no totals mend knows.
pub(crate) fn tests_counted(output: &str) -> Option<u32> {
    let output = crate::verdict::read::summary::without_colours(output);
    let lines: Vec<&str> = output.lines().map(str::trim).collect();
    libtest(&lines)
        .or_else(|| jest(&lines))
        .or_else(|| node(&lines))
        .or_else(|| mocha(&lines))
        .or_else(|| go(&lines))
        .or_else(|| Summary::parse(&output).map(|summary| summary.ran()))
}

/// The number before `word` in `text` (`3 passed` → 3).
fn number_before(text: &str, word: &str) -> Option<u32> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .filter(|word| !word.is_empty())
        .collect();
    words
        .windows(2)
        .find(|pair| pair[1] == word)
        .and_then(|pair| pair[0].parse().ok())
}

fn libtest(lines: &[&str]) -> Option<u32> {
    let totals: Vec<u32> = lines
        .iter()
        .filter_map(|line| line.strip_prefix("test result:"))
        .map(|line| {
            number_before(line, "passed").unwrap_or(0) + number_before(line, "failed").unwrap_or(0)
        })
        .collect();
    (!totals.is_empty()).then(|| totals.iter().sum())
}

fn jest(lines: &[&str]) -> Option<u32> {
    let line = lines
        .iter()
        .rev()
        .find_map(|line| line.strip_prefix("Tests:"))?;
    Some(number_before(line, "passed").unwrap_or(0) + number_before(line, "failed").unwrap_or(0))
}

fn node(lines: &[&str]) -> Option<u32> {
    let count = |word: &str| {
        lines.iter().rev().find_map(|line| {
            let rest = line
                .strip_prefix("ℹ ")
                .or_else(|| line.strip_prefix("# "))?;
            let (name, number) = rest.split_once(' ')?;
            (name == word).then(|| number.trim().parse::<u32>().ok())?
        })
    };
    let (pass, fail) = (count("pass"), count("fail"));
    (pass.is_some() || fail.is_some()).then(|| pass.unwrap_or(0) + fail.unwrap_or(0))
}

fn mocha(lines: &[&str]) -> Option<u32> {
    let passing = lines.iter().find_map(|line| number_before(line, "passing"));
    let failing = lines.iter().find_map(|line| number_before(line, "failing"));
    (passing.is_some() || failing.is_some()).then(|| passing.unwrap_or(0) + failing.unwrap_or(0))
}

fn go(lines: &[&str]) -> Option<u32> {
    let ran = lines
        .iter()
        .filter(|line| line.starts_with("--- PASS:") || line.starts_with("--- FAIL:"))
        .count();
    (ran > 0).then(|| u32::try_from(ran).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::tests_counted;

    #[test]
    fn reads_the_totals_of_each_runner() {
        let outputs = [
            // cargo test: two binaries and the doc-tests (ignored ones did not run).
            "test result: FAILED. 2 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\
             test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n\
             test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n",
            // jest
            "Test Suites: 1 failed, 2 passed, 3 total\nTests:       1 failed, 2 skipped, 5 passed, 8 total\n",
            // node --test, spec reporter and TAP
            "ℹ tests 7\nℹ suites 0\nℹ pass 6\nℹ fail 1\nℹ cancelled 0\nℹ skipped 0\n",
            "# tests 3\n# pass 3\n# fail 0\n",
            // mocha
            "  slug\n    ✔ makes dashes\n\n  4 passing (12ms)\n  1 pending\n  2 failing\n",
            // go test -v
            "=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n--- FAIL: TestB (0.00s)\nFAIL\n",
            // pytest
            "1 failed, 3 passed, 2 skipped in 0.04s\n",
            // make: nothing known
            "make: *** [test] Error 1\n",
        ];
        let counted: Vec<Option<u32>> =
            outputs.iter().map(|output| tests_counted(output)).collect();
        assert_eq!(
            counted,
            [
                Some(5),
                Some(6),
                Some(7),
                Some(3),
                Some(6),
                Some(2),
                Some(4),
                None
            ]
        );
    }
}
