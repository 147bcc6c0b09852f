"""`tetris_lab.play` and `fitness` against the command line, and their errors."""

import csv
import subprocess

import numpy as np
import pytest

import tetris_lab


def cli_play(binary, tmp_path, *arguments):
    out = tmp_path / "games.csv"
    subprocess.run([str(binary), "play", *arguments, "--csv", str(out)], check=True, capture_output=True)
    with open(out, newline="") as file:
        return list(csv.DictReader(file))


def assert_same(result, rows):
    assert len(result["lines"]) == len(rows)
    for column in ("game", "seed", "lines", "pieces", "score"):
        assert result[column].tolist() == [int(row[column]) for row in rows], column
    assert result["end"].tolist() == [row["end"] for row in rows]
    assert result["level"].tolist() == [int(row["level"]) if row["level"] else -1 for row in rows]


@pytest.mark.parametrize(
    "preset, arguments, keywords",
    [
        ("bcts", ["--board", "10x8", "--games", "12", "--seed", "7"], dict(board="10x8", games=12, seed=7)),
        ("dellacherie", ["--games", "6", "--max-pieces", "300"], dict(games=6, max_pieces=300)),
        ("lee", ["--games", "3", "--max-pieces", "200", "--seed", "3"], dict(games=3, max_pieces=200, seed=3)),
        (
            "el-tetris",
            ["--rules", "simplified", "--board", "8x8", "--games", "5", "--threads", "1"],
            dict(rules="simplified", board=(8, 8), games=5, threads=1),
        ),
    ],
)
def test_play_is_the_command_line_s(binary, tmp_path, preset, arguments, keywords):
    rows = cli_play(binary, tmp_path, "--preset", preset, *arguments)
    assert_same(tetris_lab.play(preset, **keywords), rows)


def test_weights_as_dict_vector_or_file(binary, tmp_path):
    weights = {name: -1.0 for name in tetris_lab.features("bcts")}
    weights["eroded_cells"] = 2.0
    file = tmp_path / "weights.toml"
    file.write_text("".join(f"{name} = {value}\n" for name, value in weights.items()))
    rows = cli_play(binary, tmp_path, "--preset", "bcts", "--board", "10x8", "--games", "8", "--weights", str(file))
    for given in (weights, np.array(list(weights.values())), file):
        assert_same(tetris_lab.play("bcts", board="10x8", games=8, weights=given), rows)


def test_fitness_is_the_mean_of_the_same_games():
    played = tetris_lab.play("bcts", board="10x8", games=20, seed=4)
    published = list(tetris_lab.weights("bcts").values())
    mean, low, high = tetris_lab.fitness(published, "bcts", board="10x8", games=20, seed=4)
    assert mean == pytest.approx(played["lines"].mean())
    assert low <= mean <= high
    assert tetris_lab.fitness(published, "bcts", board="10x8", games=20, seed=4).mean == mean


@pytest.mark.parametrize(
    "keywords, field",
    [
        (dict(preset="bctss"), "preset"),
        (dict(preset="bcts", board="10by8"), "board"),
        (dict(preset="bcts", board="40x8"), "board"),
        (dict(preset="bcts", rules="simplifed"), "rules"),
        (dict(preset="bcts", weights=[1.0, 2.0]), "weights"),
        (dict(preset="bcts", weights={"holes": 1.0}), "weights"),
        (dict(preset="bcts", games=0), "games"),
        (dict(preset="bcts", max_pieces=0), "max_pieces"),
        (dict(preset="bcts", threads=0), "threads"),
    ],
)
def test_bad_arguments_are_value_errors_naming_the_field(keywords, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        tetris_lab.play(**keywords)


def test_names():
    assert "bcts" in tetris_lab.presets() and "simplified" in tetris_lab.rule_sets()
    assert tetris_lab.features("dellacherie")[0] == "landing_height"
    assert "holes" in tetris_lab.features()
    assert tetris_lab.PIECES == "IOTSZJL"
