"""mend_core: mend's coding-agent session, for Python.

``Session`` is mend-core's sans-IO state machine (Rust, through PyO3): feed it inputs as dicts,
perform the actions it returns. ``agent_events`` is the lab loop's contract — its events, its
messages, its stops — with a ``chat`` callable and a tools object supplied by the caller, and
mend's core following the same run beside it (``AgentRun.mend_events``). Input, action and
event dicts of the core have the serde shapes documented in mend's docs/events.md.
"""

from mend_core._native import Session
from mend_core.agent import DEFAULT_SYSTEM, AgentRun, agent_events

__all__ = ["DEFAULT_SYSTEM", "AgentRun", "Session", "agent_events"]
