"""Loads each file named on the command line with the `atif` package's Trajectory model (which
validates it: step ids, sources, agent-only fields, call ids of observations) and prints, as one
JSON list, what the Rust test compares: the step sources, each agent step's calls and
observations, its token metrics, the agent, the totals and mend's verdict.

Usage: python atif_check.py TRAJECTORY.json...
"""

import json
import sys

from atif import Trajectory


def summary(path: str) -> dict:
    with open(path, encoding="utf-8") as handle:
        trajectory = Trajectory.model_validate(json.load(handle))
    agent_steps = [step for step in trajectory.steps if step.source == "agent"]
    return {
        "schema_version": trajectory.schema_version,
        "agent": [trajectory.agent.name, trajectory.agent.model_name,
                  (trajectory.agent.extra or {}).get("model_digest")],
        "sources": [step.source for step in trajectory.steps],
        "calls": [[(call.function_name, call.arguments) for call in step.tool_calls or []]
                  for step in agent_steps],
        "observed": [[result.source_call_id for result in step.observation.results]
                     if step.observation else [] for step in agent_steps],
        "tokens": [[step.metrics.prompt_tokens, step.metrics.completion_tokens]
                   if step.metrics else None for step in agent_steps],
        "timed": all("duration_ms" in (step.extra or {}) for step in agent_steps),
        "total_steps": trajectory.final_metrics.total_steps,
        "verdict": trajectory.extra["mend"]["verdict"],
    }


if __name__ == "__main__":
    print(json.dumps([summary(path) for path in sys.argv[1:]]))
