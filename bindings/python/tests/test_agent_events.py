"""mend_core.agent_events: the lab loop's contract on mend's core, down to the recorded repair of
the sample with real tools on a temporary copy."""

import importlib.util

import pytest

from conftest import REPO, fixture_turns
from mend_core import agent_events
from sample_tools import SCHEMAS, SampleTools, run_pytest


class ScriptedChat:
    """`chat(messages, tool_schemas)` that answers each request with the next scripted turn and
    keeps what it was sent."""

    def __init__(self, turns):
        self.turns = list(turns)
        self.requests = []

    def __call__(self, messages, tool_schemas):
        self.requests.append((messages, tool_schemas))
        return iter(self.turns.pop(0))


def chunk(content="", done=False, tool_calls=None, **extra):
    # The shape of an ollama ChatResponse after .model_dump(): absent fields are None.
    return {"model": "m", "created_at": "2026-12-02T12:00:00Z", "done": done, "done_reason": "stop" if done else None,
            "message": {"role": "assistant", "content": content, "thinking": None, "images": None, "tool_name": None,
                        "tool_calls": tool_calls}, **extra}


class Table:
    schemas = SCHEMAS[:1]

    def __init__(self, answer):
        self.answer = answer
        self.calls = []

    def invoke(self, name, arguments):
        self.calls.append((name, arguments))
        return self.answer(arguments)


@pytest.mark.parametrize("max_turns", [0, -1, True, False, 1.5, "3", None])
def test_max_turns_must_be_a_positive_integer_before_anything_is_sent(max_turns):
    chat = ScriptedChat([])
    with pytest.raises(ValueError, match="max_turns must be a positive integer"):
        agent_events(chat, Table(dict), "task", max_turns=max_turns)
    assert chat.requests == []


def test_a_turn_with_a_call_then_an_answer_yields_the_lab_loops_events():
    call = {"function": {"name": "read_file", "arguments": {"path": "a.py"}}}
    chat = ScriptedChat([
        [chunk("Reading "), chunk("a.py."), chunk(tool_calls=[call]), chunk(done=True, eval_count=9)],
        [chunk("It sets x."), chunk(done=True)],
    ])
    tools = Table(lambda arguments: {"path": arguments["path"], "text": "x = 1\n"})
    events = list(agent_events(chat, tools, "What does a.py do?", max_turns=3, system="Be brief."))
    stop = {"type": "stopped", "reason": "assistant_finished"}
    assert events == [
        {"type": "model_start", "turn": 1},
        {"type": "text_delta", "turn": 1, "text": "Reading "},
        {"type": "text_delta", "turn": 1, "text": "a.py."},
        {"type": "model_done", "turn": 1, "done_reason": "stop", "tool_calls": 1, "metrics": {"eval_count": 9}},
        {"type": "tool_start", "turn": 1, "index": 0, "call_id": "mend_1_0", "name": "read_file", "arguments": {"path": "a.py"}},
        {"type": "tool_result", "turn": 1, "index": 0, "call_id": "mend_1_0", "name": "read_file", "status": "ok",
         "result": {"path": "a.py", "text": "x = 1\n"}},
        {"type": "model_start", "turn": 2},
        {"type": "text_delta", "turn": 2, "text": "It sets x."},
        {"type": "model_done", "turn": 2, "done_reason": "stop", "tool_calls": 0, "metrics": {}},
        stop,
    ]
    assert tools.calls == [("read_file", {"path": "a.py"})]
    second_messages, schemas = chat.requests[1]
    assert (second_messages[0], second_messages[-1], schemas) == (
        {"role": "system", "content": "Be brief."},
        {"role": "tool", "content": '{"path":"a.py","text":"x = 1\\n"}', "tool_name": "read_file"},
        SCHEMAS[:1],
    )


@pytest.mark.parametrize("error", [ValueError("no such file"), TypeError("no such file"), FileNotFoundError("no such file")])
def test_a_tool_error_goes_back_to_the_model_as_an_error_result(error):
    def fail(arguments):
        raise error
    call = {"function": {"name": "read_file", "arguments": {"path": "a.py"}}}
    chat = ScriptedChat([[chunk(tool_calls=[call]), chunk(done=True)], [chunk("Sorry."), chunk(done=True)]])
    events = list(agent_events(chat, Table(fail), "t"))
    result = next(event for event in events if event["type"] == "tool_result")
    assert (result["status"], result["result"]) == ("failed", {"error": "no such file"})
    assert chat.requests[1][0][-1]["content"] == '{"error":"no such file"}'


def test_an_invalid_call_is_refused_without_running_and_the_budget_is_kept():
    call = {"function": {"name": "delete_everything", "arguments": {}}}
    chat = ScriptedChat([[chunk(tool_calls=[call]), chunk(done=True)]])
    tools = Table(dict)
    events = list(agent_events(chat, tools, "t", max_turns=1))
    assert [event["type"] for event in events] == ["model_start", "model_done", "tool_result", "stopped"]
    assert (events[2]["status"], events[-1]["reason"], tools.calls) == ("refused", "max_turns", [])


def test_a_failing_chat_ends_in_model_error_and_a_stream_without_done_is_incomplete():
    def broken(messages, tool_schemas):
        raise ConnectionError("connection refused")
    events = list(agent_events(broken, Table(dict), "t"))
    assert events[-1] == {
        "type": "stopped",
        "reason": "model_error",
        "detail": "could not connect: ConnectionError: connection refused",
        "cause": {"transport": {"kind": "connect", "message": "ConnectionError: connection refused"}},
    }
    unfinished = list(agent_events(ScriptedChat([[chunk("Half")]]), Table(dict), "t"))
    assert unfinished[-1] == {"type": "stopped", "reason": "incomplete_model_turn", "detail": "the stream ended without a `done` chunk"}


def test_the_recorded_repair_runs_through_agent_events_with_real_tools(sample_copy):
    turns, record = fixture_turns("repair")
    original = (REPO / "sample-repo" / "path_rules.py").read_text()
    chat = ScriptedChat(turns)
    events = list(agent_events(chat, SampleTools(sample_copy), record["task"], system=record["system_prompt"]))

    assert events[-1] == {"type": "stopped", "reason": "assistant_finished"}
    assert sum(event["type"] == "stopped" for event in events) == 1
    ran = [(event["name"], event["arguments"]) for event in events if event["type"] == "tool_start"]
    assert ran == [(call["name"], call["arguments"]) for call in record["tool_calls"]]
    # Every result but the test output (which has timings) is the recorded one.
    results = [event["result"] for event in events if event["type"] == "tool_result"]
    recorded = [call["result"] for call in record["tool_calls"]]
    assert results[:3] == recorded[:3]
    assert results[3]["exit_code"] == recorded[3]["exit_code"] == 0
    # Each request carried every result so far, in order (the return path).
    tool_messages = [[m for m in messages if m["role"] == "tool"] for messages, _ in chat.requests]
    assert [len(messages) for messages in tool_messages] == [0, 1, 2, 3, 4]

    # The verdict is an independent test run, and the repaired module handles Windows paths.
    after = run_pytest(sample_copy)
    assert (after["exit_code"], "4 passed" in after["output"]) == (0, True)
    spec = importlib.util.spec_from_file_location("repaired_path_rules", sample_copy / "path_rules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.python_sources(["src\\api\\routes.py", "docs\\a.md"]) == ["src/api/routes.py"]
    assert (REPO / "sample-repo" / "path_rules.py").read_text() == original, "the original is untouched"
