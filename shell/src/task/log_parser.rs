//! How SWE-bench's harness reads a task's log, for grading its given tests as the harness grades
//! them (`test.log_parser`, `test.eval_type`, `test.skipped_pass_to_pass`): the harness's parser
//! decides which id a test has (pytest's is cut at its first space), and its grading rule which
//! outcomes count. `verdict::read::readers::official` applies the id rule.

/// How a harness parser makes a test's id of the line it reads; parsers with one rule share it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdRule {
    /// The first word after the status (`parse_log_pytest` and the parsers that are it).
    FirstWord,
    /// The first word, `MouseButton.LEFT`/`RIGHT` written `1`/`3` (`parse_log_matplotlib`).
    Matplotlib,
    /// The first word, a parameter that is a path shortened to its last part
    /// (`parse_log_pytest_options`).
    Options,
    /// Every word, up to a failure's ` - `, one space between (`parse_log_pytest_v2`).
    Whole,
    /// The id as the runner prints it (`parse_log_django`, `parse_log_sympy`).
    AsPrinted,
}

/// Each Python parser of the harness's registry, by the name rows and specs give it.
const PARSERS: [(&str, IdRule); 20] = [
    ("parse_log_pytest", IdRule::FirstWord),
    ("parse_log_astroid", IdRule::FirstWord),
    ("parse_log_flask", IdRule::FirstWord),
    ("parse_log_marshmallow", IdRule::FirstWord),
    ("parse_log_pvlib", IdRule::FirstWord),
    ("parse_log_pyvista", IdRule::FirstWord),
    ("parse_log_sqlfluff", IdRule::FirstWord),
    ("parse_log_xarray", IdRule::FirstWord),
    ("parse_log_seaborn", IdRule::FirstWord),
    ("parse_log_matplotlib", IdRule::Matplotlib),
    ("parse_log_pytest_options", IdRule::Options),
    ("parse_log_pydicom", IdRule::Options),
    ("parse_log_requests", IdRule::Options),
    ("parse_log_pylint", IdRule::Options),
    ("parse_log_pytest_v2", IdRule::Whole),
    ("parse_log_astropy", IdRule::Whole),
    ("parse_log_scikit", IdRule::Whole),
    ("parse_log_sphinx", IdRule::Whole),
    ("parse_log_django", IdRule::AsPrinted),
    ("parse_log_sympy", IdRule::AsPrinted),
];

/// A harness log parser mend can stand in for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogParser {
    /// As the harness names it (`parse_log_pytest`).
    pub name: &'static str,
    /// How that parser spells a test's id, which the given lists are written in.
    pub rule: IdRule,
}

impl LogParser {
    /// The parser named `name`, or `None` for one mend does not know (the harness's JavaScript,
    /// Go, Java, … parsers read runners mend has no reader for).
    pub fn named(name: &str) -> Option<LogParser> {
        PARSERS
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(name, rule)| LogParser { name, rule: *rule })
    }

    /// The names mend knows, for a message.
    pub fn known_names() -> Vec<&'static str> {
        PARSERS.iter().map(|(name, _)| *name).collect()
    }

    /// The `test.report` reader that reads the lines this parser reads.
    pub fn report(&self) -> &'static str {
        match self.name {
            "parse_log_django" => "django",
            "parse_log_sympy" => "sympy",
            _ => "pytest-ra",
        }
    }
}

/// How the given tests are graded (the harness's `eval_type`, and what a skipped PASS_TO_PASS
/// test comes to).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EvalType {
    /// A listed test succeeds by passing (FAIL_TO_PASS) or by not breaking (PASS_TO_PASS).
    #[default]
    PassAndFail,
    /// A listed test fails only where the log says it failed (`fail_only`: runners that print
    /// failures alone).
    FailOnly,
}

impl EvalType {
    /// The grading a task file's `test.eval_type` names; `None` for a name mend does not know.
    pub fn named(name: &str) -> Option<EvalType> {
        match name {
            "pass_and_fail" => Some(EvalType::PassAndFail),
            "fail_only" => Some(EvalType::FailOnly),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{EvalType, IdRule, LogParser};

    #[test]
    fn each_harness_parser_is_known_by_name_with_its_rule_and_reader() {
        let read = |name: &str| LogParser::named(name).map(|parser| (parser.rule, parser.report()));
        assert_eq!(
            [
                read("parse_log_pytest"),
                read("parse_log_sqlfluff"),
                read("parse_log_matplotlib"),
                read("parse_log_requests"),
                read("parse_log_astropy"),
                read("parse_log_django"),
                read("parse_log_sympy"),
                read("parse_log_go_test"),
                read(""),
            ],
            [
                Some((IdRule::FirstWord, "pytest-ra")),
                Some((IdRule::FirstWord, "pytest-ra")),
                Some((IdRule::Matplotlib, "pytest-ra")),
                Some((IdRule::Options, "pytest-ra")),
                Some((IdRule::Whole, "pytest-ra")),
                Some((IdRule::AsPrinted, "django")),
                Some((IdRule::AsPrinted, "sympy")),
                None,
                None,
            ]
        );
        assert_eq!(LogParser::known_names().len(), 20);
    }

    #[test]
    fn eval_types_read_back_as_written() {
        assert_eq!(
            ["pass_and_fail", "fail_only", "PASS_AND_FAIL"].map(EvalType::named),
            [Some(EvalType::PassAndFail), Some(EvalType::FailOnly), None]
        );
    }
}
