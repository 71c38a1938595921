"""mend_core.agent_events, case by case: the lab loop's events and messages for each kind of
run (test_lab_contract.py compares thousands of generated ones), down to the recorded repair of
the sample with real tools on a temporary copy."""

import collections.abc
import importlib.util
import json

import pytest

from conftest import REPO, fixture_turns
from mend_core import DEFAULT_SYSTEM, agent_events
from sample_tools import SCHEMAS, SampleTools, run_pytest
from scripted import Raise, ScriptedChat, ScriptedTools

READ = {"function": {"name": "read_file", "arguments": {"path": "path_rules.py"}}}


def said(content="", done=False, thinking=None, tool_calls=None, **extra):
    """A chunk as ollama.Client.chat(..., stream=True) yields it after .model_dump(exclude_none=True)."""
    message = {"role": "assistant", "content": content}
    if thinking is not None:
        message["thinking"] = thinking
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    chunk = {"model": "m", "created_at": "2026-12-03T12:00:00Z", "message": message, "done": done}
    if done:
        chunk["done_reason"] = "stop"
    return {**chunk, **extra}


@pytest.mark.parametrize("max_turns", [0, -1, True, False, 1.5, "3", None])
def test_a_bad_max_turns_is_a_value_error_at_the_first_next_and_nothing_is_sent(max_turns):
    chat = ScriptedChat([])
    run = agent_events(chat, ScriptedTools(SCHEMAS, []), "task", max_turns=max_turns)
    with pytest.raises(ValueError, match="^max_turns must be a positive integer$"):
        next(run)
    assert chat.requests == []


def test_a_call_then_an_answer_builds_the_lab_loops_messages():
    call = {"function": {"name": "read_file", "arguments": {"path": "path_rules.py"}}}
    chat = ScriptedChat([
        [said("Reading "), said(thinking="The file first."), said("it.", tool_calls=[call]), said(done=True, eval_count=9)],
        [said("It is fine."), said(done=True)],
    ])
    tools = ScriptedTools(SCHEMAS, [{"path": "path_rules.py", "text": "é = 1\n"}])
    events = list(agent_events(chat, tools, "What does it do?", max_turns=3, system="Be brief."))
    assert events == [
        {"type": "model_start", "turn": 1},
        {"type": "text_delta", "turn": 1, "text": "Reading "},
        {"type": "text_delta", "turn": 1, "text": "it."},
        {"type": "tool_start", "turn": 1, "index": 0, "name": "read_file", "arguments": {"path": "path_rules.py"}},
        {"type": "tool_result", "turn": 1, "index": 0, "name": "read_file", "result": {"path": "path_rules.py", "text": "é = 1\n"}},
        {"type": "model_start", "turn": 2},
        {"type": "text_delta", "turn": 2, "text": "It is fine."},
        {"type": "stopped", "turn": 2, "reason": "assistant_finished"},
    ]
    assert chat.requests[1] == repr([
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "What does it do?"},
        {"role": "assistant", "content": "Reading it.", "thinking": "The file first.", "tool_calls": [call]},
        {"role": "tool", "tool_name": "read_file", "content": '{"path": "path_rules.py", "text": "é = 1\\n"}'},
    ])
    assert (chat.schemas, chat.lists[0][0]) == ([SCHEMAS, SCHEMAS], {"role": "system", "content": "Be brief."})


@pytest.mark.parametrize("error", [ValueError("no such file"), TypeError("no such file"), FileNotFoundError("no such file")])
def test_a_tool_error_and_an_unknown_tool_go_back_as_the_tools_objects_error(error):
    unknown = {"function": {"name": "delete_everything", "arguments": {}}}
    chat = ScriptedChat([[said(done=True, tool_calls=[READ, unknown])], [said("Sorry.", done=True)]])
    events = list(agent_events(chat, ScriptedTools(SCHEMAS, [Raise(error)]), "t"))
    results = [event["result"] for event in events if event["type"] == "tool_result"]
    assert results == [{"error": "no such file"}, {"error": "unknown tool: delete_everything"}]
    tool_messages = [message["content"] for message in chat.lists[0] if message["role"] == "tool"]
    assert tool_messages == ['{"error": "no such file"}', '{"error": "unknown tool: delete_everything"}']


@pytest.mark.parametrize("stream, stop", [
    ([said("Half")], {"type": "stopped", "turn": 1, "reason": "incomplete_model_turn"}),
    ([said("Half", done=True, done_reason="length")], {"type": "stopped", "turn": 1, "reason": "incomplete_model_turn"}),
    ([said(" \n", done=True)], {"type": "stopped", "turn": 1, "reason": "empty_response"}),
    ([said("Done.", done=True)], {"type": "stopped", "turn": 1, "reason": "assistant_finished"}),
    ([said("Half"), None], {"type": "stopped", "turn": 1, "reason": "model_error", "error": "'NoneType' object has no attribute 'get'"}),
])
def test_each_way_a_stream_ends(stream, stop):
    tools = ScriptedTools(SCHEMAS, [])
    events = list(agent_events(ScriptedChat([stream]), tools, "t"))
    assert (events[-1], tools.calls) == (stop, [])


def test_a_cut_stream_runs_none_of_its_calls_and_max_turns_runs_the_last_turns_calls():
    cut = said(done=True, done_reason="length", tool_calls=[READ])
    tools = ScriptedTools(SCHEMAS, [])
    assert [event["type"] for event in agent_events(ScriptedChat([[cut]]), tools, "t")] == ["model_start", "stopped"]
    assert tools.calls == []
    again = said(done=True, tool_calls=[READ])
    tools = ScriptedTools(SCHEMAS, [])
    events = list(agent_events(ScriptedChat([[again], [again]]), tools, "t", max_turns=2))
    assert ([event["type"] for event in events], events[-1]) == (
        ["model_start", "tool_start", "tool_result"] * 2 + ["stopped"],
        {"type": "stopped", "turn": 2, "reason": "max_turns"})
    assert len(tools.calls) == 2


def test_the_default_system_message_is_mends():
    chat = ScriptedChat([[said("Done.", done=True)]])
    list(agent_events(chat, ScriptedTools(SCHEMAS, []), "t"))
    assert chat.lists[0][0] == {"role": "system", "content": DEFAULT_SYSTEM}


def test_the_recorded_repair_runs_through_agent_events_with_real_tools(sample_copy):
    turns, record = fixture_turns("repair")
    original = (REPO / "sample-repo" / "path_rules.py").read_text()
    chat = ScriptedChat(turns)
    run = agent_events(chat, SampleTools(sample_copy), record["task"], system=record["system_prompt"])
    events = list(run)

    assert events[-1] == {"type": "stopped", "turn": 5, "reason": "assistant_finished"}
    ran = [(event["name"], event["arguments"]) for event in events if event["type"] == "tool_start"]
    assert ran == [(call["name"], call["arguments"]) for call in record["tool_calls"]]
    # Every result but the test output (which has timings) is the recorded one.
    results = [event["result"] for event in events if event["type"] == "tool_result"]
    recorded = [call["result"] for call in record["tool_calls"]]
    assert results[:3] == recorded[:3]
    assert results[3]["exit_code"] == recorded[3]["exit_code"] == 0
    # Each request carried every result so far, in order, as the lab writes them.
    tool_messages = [message for message in run.messages if message["role"] == "tool"]
    assert [message["content"] for message in tool_messages] == [json.dumps(result, ensure_ascii=False) for result in results]
    assert [request.count("'role': 'tool'") for request in chat.requests] == [0, 1, 2, 3, 4]
    # mend's core followed the same run: the recorded call ids, and the same stop.
    mend_ids = [event["call_id"] for event in run.mend_events if event["type"] == "tool_result"]
    assert (mend_ids, run.session.stopped()) == ([call["call_id"] for call in record["tool_calls"]], record["stop"])

    # The verdict is an independent test run, and the repaired module handles Windows paths.
    after = run_pytest(sample_copy)
    assert (after["exit_code"], "4 passed" in after["output"]) == (0, True)
    spec = importlib.util.spec_from_file_location("repaired_path_rules", sample_copy / "path_rules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.python_sources(["src\\api\\routes.py", "docs\\a.md"]) == ["src/api/routes.py"]
    assert (REPO / "sample-repo" / "path_rules.py").read_text() == original, "the original is untouched"


def test_the_run_is_a_generator_like_the_labs():
    chat = ScriptedChat([[said("Hi.", done=True)]])
    run = agent_events(chat, ScriptedTools(SCHEMAS, []), "t")
    assert (isinstance(run, collections.abc.Generator), iter(run) is run, chat.requests) == (True, True, [])
    assert (next(run), run.send("ignored"), run.send(None)) == (
        {"type": "model_start", "turn": 1}, {"type": "text_delta", "turn": 1, "text": "Hi."},
        {"type": "stopped", "turn": 1, "reason": "assistant_finished"})
    with pytest.raises(StopIteration):
        next(run)
