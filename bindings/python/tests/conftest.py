import json
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def fixture_turns(name):
    """The recorded chunk dicts of each turn of fixtures/NAME.json, as a client library yields
    them (each raw line parsed)."""
    record = json.loads((REPO / "fixtures" / f"{name}.json").read_text())
    return [[json.loads(line["text"]) for line in turn["lines"] if line["text"].strip()]
            for turn in record["turns"]], record


@pytest.fixture
def sample_copy(tmp_path):
    copy = tmp_path / "sample"
    shutil.copytree(REPO / "sample-repo", copy)
    return copy
