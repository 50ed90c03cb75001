"""The README's Python example runs as written and prints what it says."""

import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_example_runs(capsys):
    if not README.exists():
        pytest.skip(f"no {README}")
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) == 1, "README.md should have one ```python block"
    exec(compile(blocks[0], str(README), "exec"), {"__name__": "readme"})
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "['mass', 'width']"
    assert re.fullmatch(r"NLL = -?[0-9.]+, gradient = \(-?[0-9.]+, -?[0-9.]+\)", lines[1]), lines[1]
