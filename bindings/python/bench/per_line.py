"""Per streamed line from Python: mend_core against a plain Python loop doing the same assembly.

(a) `Session.handle` fed each raw line's bytes, and (b) `agent_events` fed chunk dicts (as a
client library yields them), each against a plain loop that json.loads every raw line and
appends its text, thinking and tool calls — what a lab-loop agent does per line. The lines are
the recorded repair's (fixtures/repair.json), every one but the `done` chunks, repeated into
one long turn. Each figure is this thread's CPU time (not the wall clock, which other load on a
shared machine inflates unevenly), the best of several interleaved rounds. `agent_events` does
the lab loop's own work per chunk and feeds mend's core, which follows the run beside it.
`--write FILE` replaces the Python rows of BENCHMARKS.md.
"""

import argparse
import json
import sys
import time
from pathlib import Path

from mend_core import Session, agent_events

REPO = Path(__file__).resolve().parents[3]
REPEATS = 100
ROUNDS = 25
BEGIN = "<!-- bench-python:begin -->"
END = "<!-- bench-python:end -->"


def recorded_lines():
    record = json.loads((REPO / "fixtures" / "repair.json").read_text())
    return [line["text"].encode() for turn in record["turns"] for line in turn["lines"]
            if line["text"].strip() and not json.loads(line["text"]).get("done")]


def plain_loop(stream):
    content, thinking, calls = [], [], []
    for raw in stream:
        chunk = json.loads(raw)
        message = chunk.get("message") or {}
        if message.get("content"):
            content.append(message["content"])
        if message.get("thinking"):
            thinking.append(message["thinking"])
        if message.get("tool_calls"):
            calls.extend(message["tool_calls"])
        if chunk.get("done"):
            break
    return "".join(content), "".join(thinking), calls


def session_handle(stream):
    session = Session({"model": "m", "system_prompt": "s", "task": "t", "tools": []})
    handle = session.handle
    for raw in stream:
        handle(0, {"type": "stream_line", "line": raw})
    return session


class NoTools:
    schemas = []

    def invoke(self, name, arguments):
        raise ValueError(name)


def events_from_chunks(chunks):
    def chat(messages, tool_schemas):
        return iter(chunks)
    for _ in agent_events(chat, NoTools(), "t", max_turns=1):
        pass


def best_ns_per_line(run, argument, lines):
    start = time.thread_time()
    run(argument)
    return (time.thread_time() - start) / lines * 1e9


def measure():
    lines = recorded_lines()
    stream = lines * REPEATS
    chunks = [json.loads(raw) for raw in stream]
    runs = {"plain": (plain_loop, stream), "handle": (session_handle, stream), "agent_events": (events_from_chunks, chunks)}
    best = {name: float("inf") for name in runs}
    for _ in range(ROUNDS):
        for name, (run, argument) in runs.items():
            best[name] = min(best[name], best_ns_per_line(run, argument, len(stream)))
    return len(lines), len(stream), best


def rows(unique, total, best):
    plain = best["plain"]
    return [
        BEGIN,
        f"Python, per streamed line ({total} lines: the recorded repair's {unique} non-final lines repeated; "
        f"CPU time, best of {ROUNDS} interleaved rounds; `make bench-python`):",
        "",
        "| figure | per line | plain Python loop (json.loads + appends) | ratio | target |",
        "|---|---|---|---|---|",
        f"| (a) `Session.handle` fed the raw line bytes | {best['handle']:.0f} ns | {plain:.0f} ns | "
        f"{plain / best['handle']:.1f}x faster | at least 3x faster |",
        f"| (b) `agent_events` fed chunk dicts (the lab loop's work, and mend's core following) | {best['agent_events']:.0f} ns | {plain:.0f} ns | "
        f"{plain / best['agent_events']:.1f}x faster | not slower |",
        END,
    ]


def write(path, lines):
    text = Path(path).read_text()
    block = "\n".join(lines)
    if BEGIN in text and END in text:
        text = text[: text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    Path(path).write_text(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", help="rewrite the Python rows of this BENCHMARKS.md")
    arguments = parser.parse_args()
    unique, total, best = measure()
    table = rows(unique, total, best)
    print("\n".join(table))
    if arguments.write:
        write(arguments.write, table)
    ratio = best["plain"] / best["handle"]
    if ratio < 3 or best["agent_events"] > best["plain"]:
        print(f"below target: (a) {ratio:.1f}x, (b) {best['plain'] / best['agent_events']:.1f}x", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
