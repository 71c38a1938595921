"""agent_events against the lab's loop (tests/lab_loop.py), fed the same scripted runs: the
events, the messages of every request, the tools' calls and any exception compared whole."""

import json

import pytest

from differential import observe
from lab_loop import lab_events
from mend_core import agent_events

SEEDS = 4000
BATCHES = 20


@pytest.mark.parametrize("batch", range(BATCHES))
def test_agent_events_is_the_lab_loop_on_generated_runs(batch):
    for seed in range(batch, SEEDS, BATCHES):
        expected, _, _ = observe(lab_events, seed)
        got, run, events = observe(agent_events, seed)
        assert got == expected, f"seed {seed}"
        if run is not None and run.session is not None:
            check_mend_followed(run, events, seed)


def check_mend_followed(run, events, seed):
    """mend's events end in one stop, and each call the core let run got the result the lab's
    tools object gave that call, as the model was sent it."""
    stops = [event for event in run.mend_events if event["type"] == "stopped"]
    assert (len(stops), run.mend_events[-1]) == (1, stops[0]), f"seed {seed}: mend's events end in one stop"
    sent = {(event["turn"], event["index"]): json.loads(json.dumps(event["result"]))
            for event in events if event["type"] == "tool_result"}
    for event in run.mend_events:
        if event["type"] != "tool_result" or event["status"] == "refused":
            continue
        unheld = str(event["result"]).startswith("{'error': 'the result is JSON the core cannot hold")
        assert unheld or event["result"] == sent[event["turn"], event["index"]], f"seed {seed}: {event}"


def test_the_generated_runs_reach_every_ending():
    """The generator is only as good as what it reaches: every stop reason of the lab, a model
    error thrown in by the consumer, exceptions that escape, and the core declining a run."""
    endings, escaped, declined = set(), set(), 0
    for seed in range(SEEDS):
        seen, run, _ = observe(agent_events, seed)
        if "raised_at_call" in seen:
            continue
        last = seen["events"][-1] if seen["events"] else ""
        for reason in ("assistant_finished", "empty_response", "max_turns", "incomplete_model_turn", "model_error"):
            if f"'reason': '{reason}'" in last:
                endings.add(reason)
        if "the consumer gave up" in last:
            endings.add("thrown in")
        if seen["escaped"]:
            escaped.add(seen["escaped"][0])
        declined += run is not None and run.mend_error is not None
    assert endings == {"assistant_finished", "empty_response", "max_turns", "incomplete_model_turn",
                       "model_error", "thrown in"}
    assert escaped == {"AttributeError", "KeyError", "RuntimeError", "TypeError", "ValueError"}
    assert declined > 0
