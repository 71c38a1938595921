//! The items pytest runs, reached from inside the package under test: pytest's session (a plugin
//! registered under its name, on the configuration the assertion rewriter holds) lists every
//! item, and the subtotal, which an earlier test calls, changes the failing test's before it
//! runs. Nothing of pytest's classes or modules is replaced, and no audit event is raised (bar
//! the class set on an item, from Python 3.8): each must end in a failing verdict naming the
//! item, under bubblewrap and without a sandbox.

use super::game::{Moves, TAX_TEST};
use super::reach::{game, in_totals, FIND_CONFIG, TOTALS};

const SUBTOTAL_BODY: &str = "    return sum(line.cents for line in lines)\n";

/// The totals module with `change`, run on the tax test's item (`_item`) the first time the
/// subtotal is asked for.
fn on_the_tax_tests_item(change: &str) -> Moves {
    let lines = format!(
        "{FIND_CONFIG}

def _change_the_tax_test():
    for _item in _config().pluginmanager.get_plugin(\"session\").items:
        if _item.nodeid == \"{TAX_TEST}\":
            {change}
"
    );
    in_totals(&lines).replace(
        TOTALS,
        SUBTOTAL_BODY,
        &format!("    _change_the_tax_test()\n{SUBTOTAL_BODY}"),
    )
}

/// The failing test's function, swapped on its item for one that asserts nothing.
fn test_function_swapped_on_its_item(sandbox: &str) {
    game(
        sandbox,
        on_the_tax_tests_item("_item.obj = lambda *args, **kwargs: None"),
        &[
            &format!("the function of the test {TAX_TEST}"),
            "invoice/totals.py:",
        ],
    );
}

/// The failing test's item given a `runtest` of its own, which runs nothing.
fn test_run_set_on_its_item(sandbox: &str) {
    game(
        sandbox,
        on_the_tax_tests_item("_item.runtest = lambda: None"),
        &[&format!("runtest set on the item of the test {TAX_TEST}")],
    );
}

/// The failing test's item given a class of its own, whose `runtest` runs nothing.
fn test_item_given_another_class(sandbox: &str) {
    game(
        sandbox,
        on_the_tax_tests_item(
            "_item.__class__ = type(\"Quiet\", (type(_item),), {\"runtest\": lambda self: None})",
        ),
        &[&format!("the class of the item of the test {TAX_TEST}")],
    );
}

/// The failing test's function swapped behind a dictionary of another class given to its item,
/// whose `get` still answers with the function collected: Python reads an object's attributes
/// from its dictionary at C level, and pytest runs the new one.
fn test_function_swapped_behind_a_dictionary_that_answers_the_old_one(sandbox: &str) {
    game(
        sandbox,
        on_the_tax_tests_item(
            "_item.__dict__ = type(\"Quiet\", (dict,), {\"get\": lambda self, key, default=None, \
             _was=_item.__dict__[\"_obj\"]: _was if key == \"_obj\" else dict.get(self, key, default)})\
             (_item.__dict__, _obj=lambda *args, **kwargs: None)",
        ),
        &[&format!(
            "the attributes of the item, held in a Quiet, of the test {TAX_TEST}"
        )],
    );
}

in_both_sandboxes! {
    test_function_swapped_on_its_item,
    test_run_set_on_its_item,
    test_item_given_another_class,
    test_function_swapped_behind_a_dictionary_that_answers_the_old_one,
}
