"""Board features and after-states on hand-made boards."""

import numpy as np
import pytest

import tetris_lab

# Top row first: heights 2, 3, 2 in the first three columns, one hole under column 1's top.
BOARD = ["..........", ".X........", "X.X.......", "XXX......."]


def grid(rows):
    return np.array([[cell == "X" for cell in row] for row in rows])


def test_features_of_a_hand_made_board():
    names = ["aggregate_height", "holes", "bumpiness"]
    assert tetris_lab.board_features(grid(BOARD), names).tolist() == [7.0, 1.0, 4.0]
    batch = np.stack([grid(BOARD), np.zeros((4, 10), bool)])
    assert tetris_lab.board_features(batch, names).tolist() == [[7.0, 1.0, 4.0], [0.0, 0.0, 0.0]]
    assert tetris_lab.board_features(batch, "bcts").shape == (2, 8)


def test_after_states_of_every_placement():
    empty = np.zeros((20, 10), np.uint8)
    states = tetris_lab.after_states(empty, "I", ["rows_cleared", "holes"])
    assert len(states["action"]) == 17 and states["features"].shape == (17, 2)
    assert not states["rows_cleared"].any()
    # A bottom row full but for the last column: the vertical I there clears it.
    board = empty.copy()
    board[-1, :9] = 1
    states = tetris_lab.after_states(board, 0, ["rows_cleared", "holes"])
    vertical_right = list(states["action"]).index(0 * 10 + 9)
    assert states["rows_cleared"][vertical_right] == 1
    assert states["features"][vertical_right].tolist() == [1.0, 0.0]


@pytest.mark.parametrize(
    "call, field",
    [
        (lambda: tetris_lab.board_features(np.zeros((2, 3)), "bcts"), "boards"),
        (lambda: tetris_lab.board_features(np.zeros((1, 20, 10)), ["holse"]), "features"),
        (lambda: tetris_lab.after_states(np.zeros((20, 10)), "Q"), "piece"),
        (lambda: tetris_lab.after_states(np.zeros((20, 10)), 0, rules="nope"), "rules"),
    ],
)
def test_bad_input_names_the_field(call, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        call()
