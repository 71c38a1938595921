"""The lab's loop, written for these tests from its description: the reference the package is
compared with. It is kept as plain as the description reads, one rule per line.

- ``max_turns`` that is a bool, not an int, or below 1 is ``ValueError("max_turns must be a
  positive integer")``, raised when iteration starts.
- The conversation is one list: the system message, the user's task; the model is asked with
  that same list each turn (``chat(messages, tools.schemas)``, the schemas read each turn).
- A turn: ``model_start``; every chunk of the response is read to the end. Per chunk, in this
  order: its ``message`` (default ``{}``), the message's ``content`` (default ``""``) added to the
  answer's text, its ``thinking`` (default ``""``) to the thinking, its ``tool_calls`` (default
  ``[]``) to the calls; a ``text_delta`` when that content is not empty; a truthy ``done`` marks
  the turn finished with the chunk's ``done_reason`` (the last such chunk wins).
- Any exception while asking or reading (or thrown into the loop at a ``text_delta``) stops the
  loop: ``model_error`` with ``error`` = ``str(exc)``.
- Not finished, or finished with reason ``"length"``: ``incomplete_model_turn``, nothing run.
- The assistant message is ``role``, ``content``, then ``thinking`` if any, ``tool_calls`` if
  any; it joins the conversation. Without calls the loop stops: ``assistant_finished`` when the
  text has something besides whitespace, else ``empty_response``.
- Each call in order: ``function`` (default ``{}``), its ``name`` (default ``""``) and
  ``arguments`` (default ``{}``); ``tool_start``; ``tools.invoke(name, arguments)``, where a
  ValueError, TypeError or OSError becomes ``{"error": str(exc)}`` and anything else escapes;
  the tool message ``role``, ``tool_name``, ``content`` = ``json.dumps(result,
  ensure_ascii=False)`` joins the conversation; ``tool_result``.
- After the last allowed turn: ``stopped`` with ``turn`` = ``max_turns`` and ``max_turns``.
"""

import json

CAUGHT_BY_TOOLS = (ValueError, TypeError, OSError)


def lab_events(chat, tools, task, max_turns=8, system="You fix code."):
    if isinstance(max_turns, bool):
        raise ValueError("max_turns must be a positive integer")
    if not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError("max_turns must be a positive integer")
    history = [{"role": "system", "content": system}, {"role": "user", "content": task}]
    turn = 0
    while turn < max_turns:
        turn += 1
        yield {"type": "model_start", "turn": turn}
        reply = {"role": "assistant", "content": ""}
        reasoning = ""
        requested = []
        complete = False
        done_reason = None
        try:
            response = chat(history, tools.schemas)
            for part in response:
                said = part.get("message", {})
                piece = said.get("content", "")
                reply["content"] += piece
                reasoning += said.get("thinking", "")
                requested.extend(said.get("tool_calls", []))
                if piece:
                    yield {"type": "text_delta", "turn": turn, "text": piece}
                if part.get("done"):
                    complete = True
                    done_reason = part.get("done_reason")
        except Exception as problem:
            yield {"type": "stopped", "turn": turn, "reason": "model_error", "error": str(problem)}
            return
        if not complete or done_reason == "length":
            yield {"type": "stopped", "turn": turn, "reason": "incomplete_model_turn"}
            return
        if reasoning:
            reply["thinking"] = reasoning
        if requested:
            reply["tool_calls"] = requested
        history.append(reply)
        if not requested:
            if reply["content"].strip():
                yield {"type": "stopped", "turn": turn, "reason": "assistant_finished"}
            else:
                yield {"type": "stopped", "turn": turn, "reason": "empty_response"}
            return
        for position, request in enumerate(requested):
            spec = request.get("function", {})
            tool_name = spec.get("name", "")
            tool_arguments = spec.get("arguments", {})
            yield {"type": "tool_start", "turn": turn, "index": position,
                   "name": tool_name, "arguments": tool_arguments}
            try:
                outcome = tools.invoke(tool_name, tool_arguments)
            except CAUGHT_BY_TOOLS as failure:
                outcome = {"error": str(failure)}
            history.append({"role": "tool", "tool_name": tool_name,
                            "content": json.dumps(outcome, ensure_ascii=False)})
            yield {"type": "tool_result", "turn": turn, "index": position,
                   "name": tool_name, "result": outcome}
    yield {"type": "stopped", "turn": max_turns, "reason": "max_turns"}
