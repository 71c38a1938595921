"""mend's core following a run that the lab's loop drives: the same chunks, stream ends,
failures and tool results go into a ``Session``, and its events are kept for the caller.

The core only watches here: nothing it decides reaches the lab's events, messages or tools, and
nothing it does can raise into the loop. Where its rules differ from the lab's — it refuses a call
its validation rejects, ends a turn at ``done``, stops a run that repeats one call — its events
say what mend would have done. It reads the first turn's tool schemas; each call result of the
lab goes to the call the core is waiting for when turn, position and name agree.
"""

import json

from mend_core._native import Session

#: The core needs a model name; the ``chat`` callable decides which model really answers.
_MODEL = "chat"

#: The session is given no deadline, so the time of an input decides nothing: every input is
#: given this one (the core only asks that time never goes back).
_NOW = 0


class CoreView:
    """A core ``Session`` fed what the lab's loop saw; ``events`` are its event dicts."""

    def __init__(self, system, task, max_turns):
        self.events = []
        self.session = None
        self.error = None
        self._config = {"model": _MODEL, "system_prompt": system, "task": task, "max_turns": max_turns}
        self._streaming = False  # the session's is_streaming(), kept here for the per-chunk path
        self._waiting = None  # (turn, index, name, call_id) of the call the core dispatched
        self._received = False

    def request(self, turn, schemas):
        """The lab is about to ask for ``turn`` with these schemas; turn 1 starts the core."""
        self._received = False
        if turn == 1:
            self._start(schemas)

    def _start(self, schemas):
        config = dict(self._config, tools=schemas)
        # Only plain values go to the core: it must not call into the caller's objects, whose
        # methods could have effects the lab's loop would not have had.
        plain = type(schemas) in (list, tuple) and all(type(config[key]) is str for key in ("system_prompt", "task"))
        if not plain or type(config["max_turns"]) is not int:
            self.error = "the core takes a text task and system prompt, and a list of tool schemas"
            return
        try:
            session = Session(config)
        except ValueError as refused:
            self.error = f"the core refused this run's config: {refused}"
            return
        self.session = session
        self._take(session.drain_actions())

    def chunk(self, chunk):
        if not self._streaming:
            return
        self._received = True
        if not isinstance(chunk, dict):
            self._fail("read", f"a chunk is a {type(chunk).__name__}, not a dict")
            return
        try:
            actions = self.session.handle_chunk(_NOW, chunk)
        except ValueError as unreadable:
            self._fail("read", str(unreadable))
            return
        self._take(actions)

    def ended(self):
        if self._streaming:
            self._take(self.session.handle(_NOW, {"type": "stream_end"}))

    def failed(self, exc, text, asking):
        """The lab's loop stopped on ``exc``: a failure of the chat (``asking``) is the core's
        transport failure; a chunk the loop could not read, or an exception the caller threw
        in, leaves a stream the core was still reading, and ``close`` cancels it."""
        message = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
        if self.session is None and self.error is None:
            self.error = f"the loop stopped before its first request: {message}"
        elif asking and self._streaming:
            self._fail("read" if self._received else "connect", message)

    def _fail(self, kind, message):
        failure = {"type": "transport_failed", "error": {"kind": kind, "message": message}}
        self._take(self.session.handle(_NOW, failure))

    def tool_finished(self, turn, index, name, content, failure):
        """The lab ran call ``index`` of ``turn``: its result goes to the core when that is the
        call the core dispatched; a call the core refused has nobody waiting for it."""
        waiting = self._waiting
        if waiting is None or waiting[:2] != (turn, index) or type(name) is not str or name != waiting[2]:
            return
        self._waiting = None
        finished = {"type": "tool_finished", "call_id": waiting[3]}
        try:
            if failure is not None:
                finished["outcome"] = {"status": "failure", "message": failure}
            else:
                # What the model was sent, read back: the core holds JSON values only (no NaN,
                # no integer past 64 bits), which the core's conversion refuses.
                value = json.loads(content, parse_constant=_not_json)
                finished["outcome"] = {"status": "success", "value": value}
            actions = self.session.handle(_NOW, finished)
        except ValueError as unheld:
            message = f"the result is JSON the core cannot hold: {unheld}"
            finished["outcome"] = {"status": "failure", "message": message}
            actions = self.session.handle(_NOW, finished)
        self._take(actions)

    def close(self):
        """The lab's loop is over: a core still running is cancelled, so that its events end
        in one ``stopped`` like every session's."""
        if self.session is not None and self.session.stopped() is None:
            self._take(self.session.handle(_NOW, {"type": "cancel"}))

    def _take(self, actions):
        events = self.events
        for action in actions:
            kind = action.pop("action")
            if kind == "emit":
                events.append(action)
                continue
            # A request, a dispatch or the stop: the phase may have changed.
            self._streaming = self.session.is_streaming()
            if kind == "dispatch_tool":
                # The core emits a call's tool_start right before dispatching it.
                start = events[-1]
                self._waiting = (start["turn"], start["index"], start["name"], action["call_id"])


def _not_json(constant):
    raise ValueError(f"{constant} is not a JSON number")
