"""mend_core: mend's proven coding-agent session, for Python.

``Session`` is mend-core's sans-IO state machine (Rust, through PyO3): feed it inputs as dicts,
perform the actions it returns. ``agent_events`` runs a whole agent loop on top of it, with a
``chat`` callable and a tool table supplied by the caller. Input, action and event dicts have the
serde shapes documented in mend's docs/events.md.
"""

from mend_core._native import Session
from mend_core.agent import DEFAULT_SYSTEM, agent_events

__all__ = ["DEFAULT_SYSTEM", "Session", "agent_events"]
