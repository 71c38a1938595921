"""mend's view of a run that agent_events drives: the core's events beside the lab's, never in
them."""

from mend_core import agent_events
from sample_tools import SCHEMAS
from scripted import ScriptedChat, ScriptedTools, ToolsWithoutSchemas

READ = {"function": {"name": "read_file", "arguments": {"path": "a.py"}}}
UNKNOWN = {"function": {"name": "delete_everything", "arguments": {}}}


def final(content="", **extra):
    return {"message": {"role": "assistant", "content": content}, "done": True, "done_reason": "stop", **extra}


def test_the_core_reports_metrics_ids_and_its_own_refusal_while_the_tools_object_decides():
    chat = ScriptedChat([
        [{"message": {"content": "Reading."}, "done": False},
         {"message": {"content": "", "tool_calls": [UNKNOWN, READ]}, "done": True, "done_reason": "stop",
          "eval_count": 9, "prompt_eval_count": 120}],
        [final("Done.")],
    ])
    tools = ScriptedTools(SCHEMAS, [{"path": "a.py", "text": "é"}])
    run = agent_events(chat, tools, "Read a.py.", max_turns=3)
    assert list(run) == [
        {"type": "model_start", "turn": 1},
        {"type": "text_delta", "turn": 1, "text": "Reading."},
        {"type": "tool_start", "turn": 1, "index": 0, "name": "delete_everything", "arguments": {}},
        {"type": "tool_result", "turn": 1, "index": 0, "name": "delete_everything",
         "result": {"error": "unknown tool: delete_everything"}},
        {"type": "tool_start", "turn": 1, "index": 1, "name": "read_file", "arguments": {"path": "a.py"}},
        {"type": "tool_result", "turn": 1, "index": 1, "name": "read_file", "result": {"path": "a.py", "text": "é"}},
        {"type": "model_start", "turn": 2},
        {"type": "text_delta", "turn": 2, "text": "Done."},
        {"type": "stopped", "turn": 2, "reason": "assistant_finished"},
    ]
    refusal = "unknown tool `delete_everything`; the available tools are: read_file, replace_text, run_tests"
    assert run.mend_events == [
        {"type": "model_start", "turn": 1},
        {"type": "text_delta", "turn": 1, "text": "Reading."},
        {"type": "model_done", "turn": 1, "done_reason": "stop", "tool_calls": 2,
         "metrics": {"prompt_eval_count": 120, "eval_count": 9}},
        {"type": "tool_result", "turn": 1, "index": 0, "call_id": "mend_1_0", "name": "delete_everything",
         "status": "refused", "result": {"error": refusal}},
        {"type": "tool_start", "turn": 1, "index": 1, "call_id": "mend_1_1", "name": "read_file", "arguments": {"path": "a.py"}},
        {"type": "tool_result", "turn": 1, "index": 1, "call_id": "mend_1_1", "name": "read_file", "status": "ok",
         "result": {"path": "a.py", "text": "é"}},
        {"type": "model_start", "turn": 2},
        {"type": "text_delta", "turn": 2, "text": "Done."},
        {"type": "model_done", "turn": 2, "done_reason": "stop", "tool_calls": 0, "metrics": {}},
        {"type": "stopped", "reason": "assistant_finished"},
    ]
    assert tools.calls == [repr(("delete_everything", {})), repr(("read_file", {"path": "a.py"}))]
    assert (run.session.stopped(), run.mend_error) == ({"reason": "assistant_finished"}, None)


def test_a_cut_stream_and_a_failed_connection_get_the_cores_detail_and_cause():
    cut = agent_events(ScriptedChat([[final("Half", done_reason="length")]]), ScriptedTools(SCHEMAS, []), "t")
    assert list(cut)[-1] == {"type": "stopped", "turn": 1, "reason": "incomplete_model_turn"}
    assert cut.mend_events[-1] == {
        "type": "stopped", "reason": "incomplete_model_turn", "cause": "token_limit",
        "detail": "the model's output was cut off by the token limit (done_reason: length)"}

    def refused(messages, schemas):
        raise ConnectionError("connection refused")
    failed = agent_events(refused, ScriptedTools(SCHEMAS, []), "t")
    assert list(failed) == [{"type": "model_start", "turn": 1},
                            {"type": "stopped", "turn": 1, "reason": "model_error", "error": "connection refused"}]
    assert failed.mend_events[-1] == {
        "type": "stopped", "reason": "model_error", "detail": "could not connect: ConnectionError: connection refused",
        "cause": {"transport": {"kind": "connect", "message": "ConnectionError: connection refused"}}}


def test_a_consumer_that_stops_early_leaves_the_core_cancelled():
    run = agent_events(ScriptedChat([[{"message": {"content": "Hello"}}, final(" there.")]]), ScriptedTools(SCHEMAS, []), "t")
    for event in run:
        if event["type"] == "text_delta":
            break
    run.close()
    assert (run.mend_events[-1], run.session.stopped()) == ({"type": "stopped", "reason": "cancelled"}, {"reason": "cancelled"})


def test_a_run_the_core_cannot_take_still_runs_as_the_lab_does():
    run = agent_events(ScriptedChat([[final("Fine.")]]), ScriptedTools(SCHEMAS, []), {"not": "text"})
    assert list(run) == [{"type": "model_start", "turn": 1}, {"type": "text_delta", "turn": 1, "text": "Fine."},
                         {"type": "stopped", "turn": 1, "reason": "assistant_finished"}]
    assert (run.session, run.mend_events, run.mend_error) == (
        None, [], "the core takes a text task and system prompt, and a list of tool schemas")
    schemaless = agent_events(ScriptedChat([[final("Fine.")]]), ScriptedTools(["not a schema"], []), "t")
    assert [event["type"] for event in schemaless] == ["model_start", "text_delta", "stopped"]
    assert (schemaless.session, schemaless.mend_error.startswith("the core refused this run's config: invalid config")) == (None, True)


def test_the_conversation_is_the_list_chat_was_given():
    chat = ScriptedChat([[final("Done.")]])
    run = agent_events(chat, ScriptedTools(SCHEMAS, []), "t", system="Be brief.")
    assert run.messages == []
    list(run)
    assert run.messages is chat.lists[0]
    assert run.messages == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "t"},
                            {"role": "assistant", "content": "Done."}]


def test_a_chunk_the_loop_cannot_read_leaves_the_core_cancelled_not_failed():
    unreadable = {"message": {"role": "assistant", "content": None}, "done": False}
    run = agent_events(ScriptedChat([[{"message": {"content": "Hi"}}, unreadable, final()]]), ScriptedTools(SCHEMAS, []), "t")
    assert list(run)[-1] == {"type": "stopped", "turn": 1, "reason": "model_error",
                             "error": 'can only concatenate str (not "NoneType") to str'}
    assert run.mend_events == [{"type": "model_start", "turn": 1}, {"type": "text_delta", "turn": 1, "text": "Hi"},
                               {"type": "stopped", "reason": "cancelled"}]


def test_tools_whose_schemas_fail_stop_the_loop_before_the_core_starts():
    tools = ToolsWithoutSchemas(SCHEMAS, [])
    run = agent_events(ScriptedChat([[final("Fine.")]]), tools, "t")
    assert list(run) == [{"type": "model_start", "turn": 1},
                         {"type": "stopped", "turn": 1, "reason": "model_error", "error": "no schemas today"}]
    assert (run.session, run.mend_events, run.mend_error) == (
        None, [], "the loop stopped before its first request: RuntimeError: no schemas today")
