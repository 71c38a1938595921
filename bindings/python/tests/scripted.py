"""Scripted runs built from a seed: a chat that answers each request with the next scripted
stream, a tools object that answers each call with the next scripted outcome, and what a
consumer does with the events. The same seed builds the same run, fresh, as often as asked, so
two loops can be fed identical inputs and their outputs compared whole.

The streams are mostly what a server sends (text, thinking, tool calls, a final ``done``) and
sometimes what it should not: no ``done``, a ``length`` cut, chunks after ``done``, a failure
mid-stream, null fields, chunks that are not dicts (mappings or not), calls without a function or with arguments
that are not an object, unknown tools, results that are not dicts or not JSON at all.
"""

import random
from collections import UserDict

from sample_tools import SCHEMAS

TOOL_NAMES = ("read_file", "replace_text", "run_tests")
OTHER_NAMES = ("delete_everything", "", "Read_File", "read_file ")
TEXTS = ("", "", " ", "\n\t", "Reading path_rules.py.", "The fix: normalise the separators.", "é漢字🙂 ünï",
         "\x1c", "\u2028", "\u00a0", "\u200b", 'quote " and \\ backslash', "</s>", "Done.", "  Done.  ")
EXCEPTIONS = (
    lambda: ConnectionError("connection refused"),
    lambda: ConnectionResetError(104, "Connection reset by peer"),
    lambda: RuntimeError("the stream broke"),
    lambda: ValueError(""),
    lambda: TimeoutError("timed out"),
)


class Raise:
    """A scripted exception: from the chat call, mid-stream, or from a tool."""

    def __init__(self, exception):
        self.exception = exception


class ScriptedChat:
    """Answers request n with stream n; keeps each request's messages as they were then, the
    list objects it was given and the schemas."""

    def __init__(self, streams):
        self.streams = list(streams)
        self.requests, self.lists, self.schemas = [], [], []

    def __call__(self, messages, schemas):
        self.requests.append(repr(messages))
        self.lists.append(messages)
        self.schemas.append(schemas)
        stream = self.streams.pop(0) if self.streams else [{"message": {"content": "Out of script."}, "done": True}]
        if isinstance(stream, Raise):
            raise stream.exception
        return self._read(stream)

    @staticmethod
    def _read(stream):
        for item in stream:
            if isinstance(item, Raise):
                raise item.exception
            yield item


class ScriptedTools:
    """The tools object: it decides unknown names and arguments that are not an object itself,
    and answers the others with the next scripted outcome."""

    def __init__(self, schemas, outcomes):
        self.schemas = schemas
        self.outcomes = list(outcomes)
        self.calls = []

    def invoke(self, name, arguments):
        self.calls.append(repr((name, arguments)))
        if name not in TOOL_NAMES:
            raise ValueError(f"unknown tool: {name}")
        if not isinstance(arguments, dict):
            raise ValueError("tool arguments must be an object")
        outcome = self.outcomes.pop(0) if self.outcomes else {"ok": True}
        if isinstance(outcome, Raise):
            raise outcome.exception
        return outcome


class ToolsWithoutSchemas(ScriptedTools):
    @property
    def schemas(self):
        raise RuntimeError("no schemas today")

    @schemas.setter
    def schemas(self, value):
        pass


class Consumer:
    """What the caller does at its ``at``-th event: ``throw`` an exception in, or ``close``."""

    def __init__(self, kind, at):
        self.kind, self.at = kind, at


def build(seed):
    """One whole run: the arguments of ``agent_events`` and what the consumer does."""
    rng = random.Random(seed)
    max_turns = rng.choice((1, 1, 2, 3, 4, 6))
    if rng.random() < 0.03:
        max_turns = rng.choice((0, -2, True, False, 2.0, "3", None))
    streams = [stream(rng) for _ in range(max_turns if isinstance(max_turns, int) else 1)]
    outcomes = [outcome(rng) for _ in range(12)]
    tools_type = ToolsWithoutSchemas if rng.random() < 0.02 else ScriptedTools
    schemas = rng.choice((SCHEMAS, SCHEMAS, SCHEMAS[:1], [], ["not a schema"]))
    task = rng.choice(TEXTS[4:]) if rng.random() < 0.97 else rng.choice((None, 42, {"task": "x"}))
    consumer = None
    if rng.random() < 0.1:
        consumer = Consumer(rng.choice(("throw", "close")), rng.randint(1, 8))
    return {"chat": ScriptedChat(streams), "tools": tools_type(schemas, outcomes), "task": task,
            "max_turns": max_turns, "system": rng.choice(TEXTS[4:])}, consumer


def stream(rng):
    roll = rng.random()
    if roll < 0.04:
        return Raise(rng.choice(EXCEPTIONS)())
    chunks = [chunk(rng) for _ in range(rng.randint(0, 5))]
    ending = rng.random()
    if ending < 0.06:
        return chunks  # no done
    if ending < 0.11:
        return chunks + [Raise(rng.choice(EXCEPTIONS)())]
    chunks.append(done(rng))
    if ending < 0.17:
        chunks.extend(chunk(rng) for _ in range(rng.randint(1, 2)))
        if rng.random() < 0.5:
            chunks.append(done(rng))
    return chunks


def chunk(rng):
    if rng.random() < 0.03:
        return rng.choice(("not a chunk", ["a", "list"], None, 7))
    message = {"role": "assistant"}
    roll = rng.random()
    if roll < 0.5:
        message["content"] = rng.choice(TEXTS)
    if rng.random() < 0.2:
        message["thinking"] = rng.choice(TEXTS)
    if rng.random() < 0.25:
        message["tool_calls"] = [call(rng) for _ in range(rng.randint(1, 2))]
    if rng.random() < 0.03:
        message[rng.choice(("content", "thinking", "tool_calls"))] = None
    if message.get("tool_calls") and rng.random() < 0.05:
        message["tool_calls"] = (call for call in message["tool_calls"])  # any iterable extends
    if rng.random() < 0.02:
        return {"model": "m", "message": rng.choice((None, ["x"], "text")), "done": False}
    if rng.random() < 0.05:
        return {"model": "m", "done": False}
    if rng.random() < 0.02:
        message = UserDict(message)  # a mapping that is not a dict, and has .get
    whole = {"model": "m", "created_at": "2026-12-03T12:00:00Z", "message": message, "done": False}
    return UserDict(whole) if rng.random() < 0.02 else whole


def done(rng):
    final = chunk(rng)
    if not isinstance(final, (dict, UserDict)):
        final = {"message": {"content": ""}}
    final["done"] = True if rng.random() < 0.9 else rng.choice((1, "yes", 0, "", None))
    reason = rng.random()
    if reason < 0.7:
        final["done_reason"] = "stop"
    elif reason < 0.8:
        final["done_reason"] = "length"
    elif reason < 0.9:
        final["done_reason"] = rng.choice((None, "load", "unload"))
    if rng.random() < 0.5:
        final.update(prompt_eval_count=rng.randint(0, 5000), eval_count=rng.randint(0, 500),
                     total_duration=rng.randint(0, 10**10))
    return final


def call(rng):
    roll = rng.random()
    if roll < 0.01:
        return "read_file"
    name = rng.choice(TOOL_NAMES + TOOL_NAMES + OTHER_NAMES)
    function = {"name": name, "arguments": arguments(rng, name)}
    if roll < 0.04:
        del function["name"]
    elif roll < 0.07:
        del function["arguments"]
    elif roll < 0.12:
        function["arguments"] = rng.choice((["path_rules.py"], "{\"path\": \"a.py\"}", None))
    elif roll < 0.14:
        function["name"] = rng.choice((7, None))
    result = {"function": function}
    if roll > 0.97:
        result = {"id": "call_x"}
    if rng.random() < 0.4:
        result["id"] = f"call_{rng.randint(0, 3)}"
    return result


def arguments(rng, name):
    if name == "read_file":
        return {"path": rng.choice(("path_rules.py", "tests/test_path_rules.py", "../etc/passwd", "é.py"))}
    if name == "replace_text":
        return {"old": rng.choice(TEXTS), "new": rng.choice(TEXTS)}
    return rng.choice(({}, {}, {"verbose": True}, {"x": [1, 2.5, None]}))


def outcome(rng):
    roll = rng.random()
    if roll < 0.15:
        return Raise(rng.choice((
            lambda: ValueError("old must match exactly once; read the current file again"),
            lambda: TypeError("replace_text() missing 1 required positional argument: 'new'"),
            lambda: FileNotFoundError(2, "No such file or directory"),
            lambda: PermissionError("denied"),
            lambda: OSError(""),
        ))())
    if roll < 0.17:
        return Raise(rng.choice((lambda: KeyError("path"), lambda: RuntimeError("a bug in the tool")))())
    if roll < 0.18:
        return {"not", "json"}
    return rng.choice((
        {"path": "path_rules.py", "text": "def f():\n    return 'é漢字🙂'\n"},
        {"exit_code": 0, "output": "4 passed in 0.01s"},
        {"exit_code": None, "error": "sample tests exceeded 15 seconds"},
        {"path": "path_rules.py", "replaced": 1},
        [1, "é", None], "plain text", 7, 2.5, None, True, (1, 2), {1: "an int key"},
        {"nested": {"k": [None, 1.0, -0.0]}}, float("nan"), 10**30,
    ))
