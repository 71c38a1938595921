"""make live-local's repair check: did the real llama-server's grammar give back a call that ran?

Reads what `mend run --json` printed (EVENTS), the run's record (RECORD) and the request bodies the
repair proxy saw (REQUESTS). Passes when:
  - the repair went to the real server under the tools' schema (the second chat request carries
    `response_format: json_schema`), and mend said so (`repair_requested`, broken turn 1);
  - the answer became a call (`recovered_from_text`, format `repaired_by_grammar`) that validated and
    ran (`tool_start`, then a `tool_result` that is not `refused`: a refused call never ran);
  - the record marks the repair (`repair_of`) and keeps the repaired call.
Whether the model then fixes the bug is not checked. Prints the evidence; exit 1 with every failure
named otherwise.

Usage: live-local-check-repair.py EVENTS RECORD REQUESTS
"""

import json
import sys

CALL_ID = "repair_1_0"


def read_lines(path):
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def first(events, kind, **fields):
    for event in events:
        if event.get("type") == kind and all(event.get(k) == v for k, v in fields.items()):
            return event
    return None


def check_requests(requests, failures):
    """The repair request (the second chat) went through to llama-server under the schema."""
    if len(requests) < 2:
        failures.append(f"the proxy saw {len(requests)} chat request(s): no repair request was sent")
        return
    response_format = requests[1].get("response_format") or {}
    schema = (response_format.get("json_schema") or {}).get("schema") or {}
    if response_format.get("type") != "json_schema" or "oneOf" not in schema:
        failures.append(
            "the repair request carried no response_format json_schema with the tools' oneOf: "
            + json.dumps(response_format)[:300]
        )
        return
    names = [branch["properties"]["name"]["enum"][0] for branch in schema["oneOf"]]
    print(f"repair request: response_format json_schema, oneOf over {names}")


def check_events(events, failures):
    """mend asked for the repair, read the answer as a call, and ran it."""
    requested = first(events, "repair_requested", broken_turn=1)
    if requested is None:
        unusable = first(events, "repair_unusable")
        failures.append(
            "no repair_requested event for turn 1"
            + (f" (repair_unusable: {json.dumps(unusable)})" if unusable else "")
        )
        return
    print("event:", json.dumps(requested))
    turn = requested["turn"]
    recovered = first(events, "recovered_from_text", turn=turn)
    formats = [call.get("format") for call in (recovered or {}).get("calls", [])]
    if formats != ["repaired_by_grammar"]:
        unusable = first(events, "repair_unusable", turn=turn)
        failures.append(
            f"turn {turn}: no call repaired_by_grammar (recovered_from_text: "
            f"{json.dumps(recovered)}, repair_unusable: {json.dumps(unusable)}); the server's answer "
            "is in the record's turn " + str(turn)
        )
        return
    print("event:", json.dumps(recovered)[:400])
    result = first(events, "tool_result", call_id=CALL_ID)
    if result is None:
        failures.append(f"the repaired call {CALL_ID} has no tool_result")
        return
    if result["status"] == "refused":
        failures.append(f"the repaired call did not validate: {json.dumps(result)[:500]}")
        return
    start = first(events, "tool_start", call_id=CALL_ID)
    if start is None:
        failures.append(f"the repaired call {CALL_ID} has a result but never started")
        return
    print("event:", json.dumps(start))
    print("event:", json.dumps(result)[:400])


def streamed_text(turn):
    """The text a recorded OpenAI-compatible stream carried: what the server's grammar produced."""
    text = ""
    for line in turn["lines"]:
        data = line.get("text", "")
        if not data.startswith("data: {"):
            continue
        for choice in json.loads(data[len("data: "):]).get("choices", []):
            text += (choice.get("delta") or {}).get("content") or ""
    return text


def check_record(record, failures):
    """The record keeps the repair: its turn marked, the call with its format."""
    message = record["messages"][0]
    repairs = [turn for turn in message["turns"] if turn.get("repair_of") == 1]
    if not repairs:
        failures.append("the record marks no turn `repair_of: 1`")
    else:
        print(f"the server's answer under the schema: {json.dumps(streamed_text(repairs[0]))}")
    repairs = [turn["turn"] for turn in repairs]
    calls = [call for call in message["tool_calls"] if call.get("call_id") == CALL_ID]
    formats = [(call.get("recovered_from_text") or {}).get("format") for call in calls]
    if formats != ["repaired_by_grammar"]:
        failures.append(f"the record's calls {CALL_ID}: formats {formats}, not [repaired_by_grammar]")
    elif calls[0]["status"] == "refused":
        failures.append(f"the record's {CALL_ID} was refused: {json.dumps(calls[0])[:500]}")
    else:
        print(f"record: turn {repairs} repair_of 1; {CALL_ID} {calls[0]['name']} "
              f"{json.dumps(calls[0]['arguments'])} -> {calls[0]['status']}")


def main():
    events_path, record_path, requests_path = sys.argv[1:4]
    failures = []
    check_requests(read_lines(requests_path), failures)
    check_events(read_lines(events_path), failures)
    with open(record_path, encoding="utf-8") as record:
        check_record(json.load(record), failures)
    for failure in failures:
        print(f"live-local: repair check: {failure}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
