"""The Python code the README and docs/python.md show runs as written."""

import re

import pytest

from conftest import ROOT

PAGES = [ROOT / "README.md", ROOT / "docs" / "python.md"]


def blocks():
    for page in PAGES:
        for number, code in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), re.S)):
            yield pytest.param(code, id=f"{page.name}-{number}")


@pytest.mark.parametrize("code", list(blocks()))
def test_block_runs(code):
    if "sb3" in code:
        pytest.importorskip("sb3_contrib")
    # A block may go on from the page's earlier ones: the imports and a weights vector come
    # first, and the batched block's `actions`, which the page leaves to the reader, are
    # legal ones.
    code = code.replace("envs.step(actions)", "envs.step(np.array([np.flatnonzero(m)[0] for m in masks]))")
    preamble = (
        "import numpy as np\nimport gymnasium as gym\nimport tetris_lab\n"
        "weights = tetris_lab.weights('dellacherie-simplified')\n"
    )
    exec(compile(preamble + code, "<docs>", "exec"), {})
