"""Shared test helpers: the command-line binary the binding is checked against."""

import os
import pathlib
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

if os.environ.get("TETRIS_LAB_EXPECT_INSTALLED"):
    # CI tests the installed wheel: the package must not come from the source tree.
    import tetris_lab

    source = ROOT / "python"
    assert source not in pathlib.Path(tetris_lab.__file__).resolve().parents, f"tetris_lab imported from {tetris_lab.__file__}"


def _binary():
    given = os.environ.get("TETRIS_LAB_BINARY")
    if given:
        return pathlib.Path(given)
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    built = target / "release" / "tetris-lab"
    if built.exists():
        return built
    found = shutil.which("tetris-lab")
    return pathlib.Path(found) if found else None


@pytest.fixture(scope="session")
def binary():
    """The `tetris-lab` binary (TETRIS_LAB_BINARY, else $CARGO_TARGET_DIR/release/tetris-lab)."""
    path = _binary()
    if path is None or not path.exists():
        pytest.skip("no tetris-lab binary: build it with `cargo build --release` or set TETRIS_LAB_BINARY")
    return path
