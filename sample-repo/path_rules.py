"""Select the changed Python sources a CI job should check."""

from pathlib import PurePosixPath


def python_sources(changed_paths):
    """Return, in input order, each path under ``src`` that names a ``.py`` file.

    The paths come back written with forward slashes.
    """
    selected = []
    for name in changed_paths:
        path = PurePosixPath(name)
        if path.parts[:1] == ("src",) and path.suffix == ".py":
            selected.append(path.as_posix())
    return selected
