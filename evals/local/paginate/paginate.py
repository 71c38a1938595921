"""Split a listing into pages for a web view."""


def page(items, number, size):
    """Return page ``number`` (1-based) of ``items``, ``size`` items per page.

    A page past the end is empty; ``number`` and ``size`` must be at least 1.
    """
    if number < 1 or size < 1:
        raise ValueError("page number and size start at 1")
    start = number * size
    return items[start:start + size]


def page_count(total, size):
    """How many pages ``total`` items fill, ``size`` per page."""
    return -(-total // size)
