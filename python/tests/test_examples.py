"""The examples run (small)."""

import pathlib
import runpy
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize(
    "name, arguments",
    [
        ("bcts.py", ["--games", "10", "--board", "10x8", "--max-pieces", "300"]),
        ("cross_entropy.py", ["--iterations", "2", "--population", "10", "--games", "3"]),
        ("value_agent.py", ["--episodes", "3", "--max-pieces", "100"]),
        ("maskable_ppo.py", ["--steps", "600", "--envs", "4", "--board", "6x6", "--games", "2"]),
    ],
)
def test_example_runs(name, arguments, monkeypatch, capsys):
    if name == "maskable_ppo.py":
        pytest.importorskip("sb3_contrib")
    monkeypatch.setattr(sys, "argv", [name, *arguments])
    runpy.run_path(str(EXAMPLES / name), run_name="__main__")
    assert capsys.readouterr().out
