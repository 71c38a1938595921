//! What `verify` answers on a task that holds tests out of the attempt (`test.held_out`): whether
//! the change resolves it and how many tests passed, never which. The caller of an MCP server may
//! be the very model under test; each id, failure message or output tail of a held-out test
//! would tell it what the hidden tests check, and a verify called in a loop would become an
//! oracle to fit the change to them instead of fixing the bug.

use serde_json::{json, Value};

use crate::verdict::check::TestRun;
use crate::verdict::grade::given::{Group, HeldAndGiven};

/// Why the answer holds no more, as the answer says it.
pub(crate) const WHY: &str = "this task holds tests out of the attempt (test.held_out): verify answers whether the change resolves it and how many tests passed or failed, never their ids, source or output, so that it cannot be used to learn what the held-out tests check";

/// The answer of a verify on a task with held-out tests: `passed` (resolved), the counts of the
/// run and of each given group, and `withheld` saying why there is no more.
pub(crate) fn answer(passed: bool, run: &TestRun, held: &HeldAndGiven) -> Value {
    let counted =
        |group: &Group| json!({"success": group.success.len(), "failure": group.failure.len()});
    let mut answer = json!({
        "passed": passed,
        "counts": run.summary,
        "held_out_files": held.held_out.len(),
        "withheld": WHY,
    });
    if let (Some(given), Value::Object(fields)) = (&held.given, &mut answer) {
        fields.insert(
            "given".to_owned(),
            json!({
                "fail_to_pass": counted(&given.fail_to_pass),
                "pass_to_pass": counted(&given.pass_to_pass),
            }),
        );
    }
    answer
}
