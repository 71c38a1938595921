import pytest

from paginate import page, page_count


def test_first_page_starts_at_the_first_item():
    assert page(list(range(10)), 1, 3) == [0, 1, 2]


def test_last_page_holds_the_rest():
    assert page(list(range(10)), 4, 3) == [9]


def test_a_page_past_the_end_is_empty():
    assert page(list(range(10)), 5, 3) == []


def test_page_count_rounds_up():
    assert page_count(10, 3) == 4


def test_page_numbers_start_at_one():
    with pytest.raises(ValueError):
        page([1, 2], 0, 2)
