from path_rules import python_sources


def test_selects_only_python_under_src():
    changed = ["src/app.py", "docs/setup.md", "tests/test_app.py"]
    assert python_sources(changed) == ["src/app.py"]


def test_preserves_nested_modules():
    assert python_sources(["src/api/routes.py"]) == ["src/api/routes.py"]


def test_accepts_windows_separators():
    assert python_sources(["src\\api\\routes.py"]) == ["src/api/routes.py"]


def test_empty_changes_select_nothing():
    assert python_sources([]) == []
