"""mend_core.Session: the core's contract from Python, with whole dicts compared."""

import json

import pytest

from mend_core import Session

READ_FILE = {"type": "function", "function": {
    "name": "read_file", "description": "Read a file",
    "parameters": {"type": "object", "properties": {"path": {"type": "string", "description": "which file"}},
                   "required": ["path"], "additionalProperties": False}}}


def config(**overrides):
    return {"model": "gemma4:e2b", "system_prompt": "You repair code.", "task": "Fix the bug.",
            "tools": [READ_FILE], **overrides}


def line(message, done=False, **extra):
    return json.dumps({"model": "gemma4:e2b", "message": {"role": "assistant", **message}, "done": done, **extra}).encode()


def feed(session, *lines, now=1):
    actions = []
    for raw in lines:
        actions.extend(session.handle(now, {"type": "stream_line", "line": raw}))
    return actions


def without_body(actions):
    """`send_request` actions with their (long) bodies reduced to the last message."""
    return [{**action, "body": action["body"]["messages"][-1], "http": {**action["http"], "body": json.loads(action["http"]["body"])["messages"][-1]}}
            if action["action"] == "send_request" else action for action in actions]


def test_a_session_starts_with_model_start_and_the_whole_request_of_turn_1():
    session = Session(config())
    first = session.drain_actions()
    body = first[1]["body"]
    assert first == [
        {"action": "emit", "type": "model_start", "turn": 1},
        {"action": "send_request", "turn": 1, "protocol": "ollama", "body": body, "http": {
            "method": "POST", "path": "/api/chat", "headers": {"content-type": "application/json"},
            "api_key_header": None, "body": json.dumps(body, separators=(",", ":")).encode()}},
    ]
    assert body["messages"] == [{"role": "system", "content": "You repair code."}, {"role": "user", "content": "Fix the bug."}]
    assert (session.turn(), session.is_streaming(), session.stopped(), session.next_deadline()) == (1, True, None, None)


def test_other_protocols_say_where_the_key_goes_and_never_hold_one():
    http = Session(config(protocol="anthropic")).drain_actions()[1]["http"]
    assert {key: value for key, value in http.items() if key != "body"} == {
        "method": "POST", "path": "/v1/messages",
        "headers": {"content-type": "application/json", "anthropic-version": "2023-06-01"},
        "api_key_header": {"name": "x-api-key", "prefix": ""}}
    openai = Session(config(protocol="openai")).drain_actions()[1]["http"]
    assert (openai["path"], openai["api_key_header"]) == ("/v1/chat/completions", {"name": "authorization", "prefix": "Bearer "})


def test_a_config_in_the_older_words_still_reads():
    older = Session(config(codec="openai_sse")).drain_actions()[1]
    assert (older["protocol"], older["http"]["path"]) == ("openai", "/v1/chat/completions")
    with pytest.raises(ValueError, match="`codec` is the older name of `protocol`: give only `protocol`"):
        Session(config(codec="openai_sse", protocol="openai"))


def test_lines_as_bytes_or_str_give_deltas_then_a_dispatch_then_the_result_goes_back():
    session = Session(config())
    session.drain_actions()
    call = {"id": "call_1", "function": {"name": "read_file", "arguments": {"path": "a.py"}}}
    actions = feed(session, line({"content": "Reading."}), line({"content": "", "tool_calls": [call]}).decode(),
                   line({"content": ""}, done=True, done_reason="stop"))
    assert actions == [
        {"action": "emit", "type": "text_delta", "turn": 1, "text": "Reading."},
        {"action": "emit", "type": "model_done", "turn": 1, "done_reason": "stop", "tool_calls": 1, "metrics": {}},
        {"action": "emit", "type": "tool_start", "turn": 1, "index": 0, "call_id": "call_1", "name": "read_file", "arguments": {"path": "a.py"}},
        {"action": "dispatch_tool", "call_id": "call_1", "name": "read_file", "arguments": {"path": "a.py"}},
    ]
    finished = {"type": "tool_finished", "call_id": "call_1", "outcome": {"status": "success", "value": {"text": "x = 1\n"}}}
    result = {"role": "tool", "content": '{"text":"x = 1\\n"}', "tool_name": "read_file", "tool_call_id": "call_1"}
    assert without_body(session.handle(5, finished)) == [
        {"action": "emit", "type": "tool_result", "turn": 1, "index": 0, "call_id": "call_1", "name": "read_file", "status": "ok", "result": {"text": "x = 1\n"}},
        {"action": "emit", "type": "model_start", "turn": 2},
        {"action": "send_request", "turn": 2, "protocol": "ollama", "body": result,
         "http": {"method": "POST", "path": "/api/chat", "headers": {"content-type": "application/json"}, "api_key_header": None, "body": result}},
    ]


def test_one_stop_and_nothing_after_it():
    session = Session(config())
    session.drain_actions()
    stop = {"reason": "cancelled"}
    assert session.handle(0, {"type": "cancel"}) == [{"action": "emit", "type": "stopped", **stop}, {"action": "stop", **stop}]
    assert (session.stopped(), session.is_streaming(), session.handle(1, {"type": "stream_end"})) == (stop, False, [])


def test_the_deadline_is_the_callers_to_keep():
    session = Session(config(deadline=500))
    session.drain_actions()
    assert session.next_deadline() == 500
    early = session.handle(100, {"type": "deadline_passed"})
    assert early == [{"action": "emit", "type": "input_rejected", "input": "deadline_passed",
                      "reason": "deadline_not_reached", "deadline": 500, "now": 100}]
    late = session.handle(500, {"type": "deadline_passed"})
    assert late[-1] == {"action": "stop", "reason": "deadline_exceeded", "detail": "the run passed its deadline at 500 ms"}
    assert session.next_deadline() is None


def test_a_snapshot_mid_stream_goes_on_exactly_like_the_original():
    original = Session(config())
    feed(original, line({"content": "Half "}))
    restored = Session.from_json(original.to_json())
    rest = [line({"content": "done."}), line({"content": ""}, done=True, done_reason="stop")]
    assert feed(restored, *rest) == feed(original, *rest)
    assert restored.conversation() == original.conversation()
    assert restored.conversation()[-1] == {"role": "assistant", "content": "Half done."}


def test_a_follow_up_continues_a_stopped_conversation_and_not_a_running_one():
    session = Session(config())
    with pytest.raises(RuntimeError, match="still running"):
        session.follow_up("more")
    feed(session, line({"content": "Done."}, done=True, done_reason="stop"))
    following = session.follow_up("And now the tests?")
    request = following.drain_actions()[1]
    assert (request["turn"], request["body"]["messages"][-1]) == (1, {"role": "user", "content": "And now the tests?"})


@pytest.mark.parametrize("bad, message", [
    (config(max_turns=0), "max_turns must be a positive integer"),
    (config(max_turns=True), "invalid config"),
    (config(model=" "), "the model name is empty"),
    (config(max_turn=3), 'unknown config key "max_turn"'),
    (config(tools=[READ_FILE, READ_FILE]), "the tool `read_file` is offered twice"),
    (["not", "a", "dict"], "the config must be a dict"),
])
def test_a_bad_config_is_a_value_error_with_the_cores_message(bad, message):
    with pytest.raises(ValueError, match=message):
        Session(bad)


@pytest.mark.parametrize("bad, message", [
    ({"type": "stream_line", "line": 7}, "is bytes or str"),
    ({"type": "stream_line"}, "needs a \"line\""),
    ({"type": "no_such_input"}, "invalid input"),
    ("cancel", "is a dict"),
])
def test_a_bad_input_is_a_value_error_and_changes_nothing(bad, message):
    session = Session(config())
    before = session.to_json()
    with pytest.raises(ValueError, match=message):
        session.handle(0, bad)
    assert session.to_json() == before


def test_garbage_bytes_end_in_model_error_not_a_crash():
    session = Session(config())
    actions = session.handle(0, {"type": "stream_line", "line": b"\xff\xfe{not json"})
    assert actions[-1]["action"] == "stop" and actions[-1]["reason"] == "model_error"
    with pytest.raises(ValueError, match="not a mend_core session"):
        Session.from_json("{}")


def test_first_actions_is_the_older_name_of_drain_actions_and_says_so():
    older, newer = Session(config()), Session(config())
    with pytest.warns(DeprecationWarning, match=r"use Session\.drain_actions\(\)"):
        taken_by_the_older_name = older.first_actions()
    assert taken_by_the_older_name == newer.drain_actions()
    assert [action["action"] for action in taken_by_the_older_name] == ["emit", "send_request"]
    # Either way the queue is empty afterwards: nothing is sent twice.
    assert (older.drain_actions(), newer.drain_actions()) == ([], [])


def test_an_input_returns_what_is_queued_behind_the_first_actions_not_yet_taken():
    session = Session(config())
    first = session.drain_actions()
    again = Session(config())
    assert again.handle(0, {"type": "cancel"}) == first + session.handle(0, {"type": "cancel"})
    assert again.stopped() == session.stopped() == {"reason": "cancelled"}


def test_a_line_may_say_when_it_arrived_and_a_saved_session_keeps_what_it_still_owes():
    saved = Session(config()).to_json()
    restored, fresh = Session.from_json(saved), Session(config())
    assert restored.drain_actions() == fresh.drain_actions()
    chunk = line({"content": "Hi."})
    assert restored.handle(9, {"type": "stream_line", "line": chunk, "at_ms": 4}) == fresh.handle(9, {"type": "stream_line", "line": chunk})
    with pytest.raises(TypeError):
        fresh.handle(10, {"type": "stream_line", "line": chunk, "at_ms": "soon"})
