//! `eltetris`: El-Tetris' own game (Islam El-Ashi, `ielashi/eltetris`, `src/eltetris.js` and
//! `src/pieces.js`): 10 x 20, uniform pieces, no hold or preview. Candidates are El-Tetris'
//! orientations in its own order (below), each at box columns 0..W-width ascending, falling
//! from the top rows. A placement whose piece would stick out above the top row (it
//! overlaps already with its box against the top) ends the game, checked before full rows
//! are removed, and El-Tetris' AI never rates one: when every placement sticks out, the
//! game is over.

use super::standard::drop_from;

/// [`drop_from`] kept out of line here: inlined into [`ElTetris::candidates`] it costs
/// about 250 instructions more per decision (callgrind, `el-tetris` 10x20), as the
/// compiler chose once the one-piece policy grew.
#[inline(never)]
fn drop_out_of_line(board: &Board, shape: &DropShape, left: usize, start: usize) -> usize {
    drop_from(board, shape, left, start)
}
use super::{fixed_size, OrientationTable, Outcome, RuleSet, RuleSetEntry};
use crate::board::Board;
use crate::piece::{DropShape, Piece, Shape};
use crate::placement::Placement;
use crate::randomizer::RandomizerKind;

pub const ENTRY: RuleSetEntry = RuleSetEntry {
    name: "eltetris",
    summary: "El-Tetris' game: 10x20, uniform pieces, fall from the top rows, game over when a piece sticks out",
    build: |size| {
        fixed_size("eltetris", size, (10, 20))?;
        Ok(Box::new(ElTetris::new()))
    },
};

pub struct ElTetris {
    table: OrientationTable,
}

/// El-Tetris' orientations, drawn top row first, in the order its table lists them (its
/// pieces array is I, T, O, J, L, S, Z; the piece order does not matter here, only each
/// piece's orientation order). Every orientation after the first is the previous one
/// turned a quarter counter-clockwise.
const ORIENTATIONS: [(Piece, &[&[&str]]); 7] = [
    (Piece::I, &[&["#", "#", "#", "#"], &["####"]]),
    (Piece::T, &[&["#.", "##", "#."], &[".#.", "###"], &[".#", "##", ".#"], &["###", ".#."]]),
    (Piece::O, &[&["##", "##"]]),
    (Piece::J, &[&["#..", "###"], &[".#", ".#", "##"], &["###", "..#"], &["##", "#.", "#."]]),
    (Piece::L, &[&["###", "#.."], &["#.", "#.", "##"], &["..#", "###"], &["##", ".#", ".#"]]),
    (Piece::S, &[&["#.", "##", ".#"], &[".##", "##."]]),
    (Piece::Z, &[&[".#", "##", "#."], &["##.", ".##"]]),
];

/// A shape from a picture, top row first; the origin is the box's bottom-left cell.
fn shape_from_picture(rows: &[&str]) -> Shape {
    let mut cells = [(0i8, 0i8); 4];
    let mut n = 0;
    for (r, line) in rows.iter().enumerate() {
        for (x, ch) in line.chars().enumerate() {
            if ch == '#' {
                cells[n] = (x as i8, (rows.len() - 1 - r) as i8);
                n += 1;
            }
        }
    }
    debug_assert_eq!(n, 4, "{rows:?}");
    Shape::new(cells)
}

impl ElTetris {
    pub fn new() -> ElTetris {
        let mut shapes: [Vec<_>; 7] = Default::default();
        for (piece, pictures) in ORIENTATIONS {
            shapes[piece.index()] = pictures
                .iter()
                .map(|p| {
                    let shape = shape_from_picture(p);
                    (shape, shape.drop_shape())
                })
                .collect();
        }
        ElTetris { table: OrientationTable::new(shapes) }
    }
}

impl Default for ElTetris {
    fn default() -> Self {
        Self::new()
    }
}

impl RuleSet for ElTetris {
    fn name(&self) -> &'static str {
        "eltetris"
    }
    fn version(&self) -> &'static str {
        "eltetris/2"
    }
    fn describe(&self) -> String {
        "eltetris 10x20 (uniform pieces, fall from the top rows)".into()
    }
    fn new_board(&self) -> Board {
        Board::new(10, 20)
    }
    fn randomizer(&self) -> RandomizerKind {
        RandomizerKind::Uniform
    }
    /// El-Tetris puts the piece's box against the top row and lets it fall row by row; if it
    /// overlaps there the move ends the game and is not offered. A piece can thus come to
    /// rest under an overhang of the top rows that a drop from above the board would hit.
    fn candidates(&self, board: &Board, piece: Piece, out: &mut Vec<Placement>) {
        out.clear();
        let (width, height) = (board.width(), board.height());
        for (k, (_, shape)) in self.table.of(piece).iter().enumerate() {
            let start = height - shape.height as usize;
            for left in 0..=width - shape.width as usize {
                let masks = shape.masks_at(left);
                if (0..shape.height as usize).any(|i| board.row(start + i) & masks[i] != 0) {
                    continue;
                }
                out.push(Placement::straight(piece, k, left, drop_out_of_line(board, shape, left, start), *shape));
            }
        }
    }
    /// Only reached with an offered placement, which never sticks out; kept as the rules
    /// state it.
    fn lock(&self, board: &mut Board, placement: &Placement) -> Outcome {
        let game_over = placement.highest_row() >= board.height();
        let info = placement.apply(board);
        Outcome { info, score: 0, game_over }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::test_boards::golden;
    use crate::policy::{GameView, Scratch};
    use crate::rules::standard::tests::lcg_pieces;

    #[test]
    fn orientations_in_el_tetris_order_each_a_counter_clockwise_turn() {
        let rules = ElTetris::new();
        for piece in Piece::ALL {
            let shapes = rules.table.of(piece);
            for k in 1..shapes.len() {
                let turned = shapes[k - 1].0.rotated_clockwise(3);
                assert_eq!(turned.normalized(), shapes[k].0.normalized(), "{piece} orientation {k}");
            }
        }
        // The upright I comes first, then the flat one; T starts pointing right.
        let i = rules.table.of(Piece::I);
        assert_eq!((i[0].1.width, i[1].1.width), (1, 4));
        let t = rules.table.of(Piece::T)[0].1;
        assert_eq!((t.width, t.rows[0], t.rows[1], t.rows[2]), (2, 0b01, 0b11, 0b01));
    }

    #[test]
    fn candidates_loop_over_orientations_then_box_columns() {
        let rules = ElTetris::new();
        let board = rules.new_board();
        let mut out = Vec::new();
        rules.candidates(&board, Piece::T, &mut out);
        let order: Vec<(u8, i8)> = out.iter().map(|p| (p.orientation, p.column)).collect();
        let mut expected = Vec::new();
        for (k, width) in [(0u8, 2i8), (1, 3), (2, 2), (3, 3)] {
            for column in 0..=10 - width {
                expected.push((k, column));
            }
        }
        assert_eq!(order, expected);
        rules.candidates(&board, Piece::I, &mut out);
        assert_eq!(out.len(), 17);
        assert_eq!((out[0].shape.height, out[10].shape.width), (4, 4));
    }

    #[test]
    fn placements_sticking_out_are_never_offered() {
        let rules = ElTetris::new();
        // Columns 0-8 are full to the top: only an upright I over column 9 stays inside.
        let board = Board::parse(&"#########.\n".repeat(20), Some(10), 20).unwrap();
        let mut out = Vec::new();
        rules.candidates(&board, Piece::I, &mut out);
        let kept: Vec<(u8, u8, u8)> = out.iter().map(|p| (p.orientation, p.left, p.bottom)).collect();
        assert_eq!(kept, vec![(0, 9, 0)]);
        // Nothing is offered for an O: the preset has no move and the game ends.
        rules.candidates(&board, Piece::O, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn pieces_fall_from_the_top_rows_and_can_pass_under_a_top_overhang() {
        let rules = ElTetris::new();
        // Only the top-left cell is filled. A flat S with its box against the top row has
        // its lower-left cell under that cell, so it falls to the floor; a flat Z overlaps it.
        let board = Board::parse(&format!("#.........\n{}", "..........\n".repeat(19)), Some(10), 20).unwrap();
        let mut out = Vec::new();
        rules.candidates(&board, Piece::S, &mut out);
        assert!(out.iter().any(|p| (p.orientation, p.left, p.bottom) == (1, 0, 0)), "{out:?}");
        rules.candidates(&board, Piece::Z, &mut out);
        assert!(!out.iter().any(|p| p.orientation == 1 && p.left == 0), "{out:?}");
        assert_eq!(out.len(), 16);
    }

    /// El-Tetris' own choice (its orientation index, box column, evaluation) for each piece
    /// on the golden boards B0..B4, obtained by running its JavaScript (`pickMove`,
    /// `evaluateBoard`) on these boards.
    const ORIGINAL_CHOICES: [[(char, u8, i8, f64); 7]; 5] = [
        [
            ('I', 1, 0, -222.202484528403),
            ('O', 0, 0, -224.4525639409444),
            ('T', 1, 0, -234.2739377393683),
            ('S', 1, 0, -260.8705937776104),
            ('Z', 1, 0, -260.8705937776104),
            ('J', 0, 0, -224.4525639409444),
            ('L', 2, 7, -224.4525639409444),
        ],
        [
            ('I', 0, 9, -261.76991180061236),
            ('O', 0, 8, -310.95531335088083),
            ('T', 3, 1, -266.6380180868632),
            ('S', 0, 1, -278.7094712978285),
            ('Z', 0, 2, -285.145247871526),
            ('J', 3, 6, -267.438118023293),
            ('L', 3, 8, -249.69845858964706),
        ],
        [
            ('I', 0, 0, -304.9497532484868),
            ('O', 0, 3, -314.99575346250936),
            ('T', 3, 7, -280.51334137445826),
            ('S', 0, 3, -286.149018011726),
            ('Z', 0, 8, -292.5847945854235),
            ('J', 3, 8, -329.00282442208936),
            ('L', 3, 3, -312.745674049968),
        ],
        [
            ('I', 0, 9, -272.2946509359595),
            ('O', 0, 2, -333.787434802971),
            ('T', 3, 0, -329.8054078455849),
            ('S', 0, 0, -332.0554872581263),
            ('Z', 0, 1, -348.3126376302477),
            ('J', 3, 1, -300.9586723948014),
            ('L', 3, 0, -291.13729859637755),
        ],
        [
            ('I', 0, 2, -268.2382179597228),
            ('O', 0, 5, -244.09531153779224),
            ('T', 2, 1, -246.3453909503336),
            ('S', 0, 1, -246.3453909503336),
            ('Z', 0, 5, -289.1991973606971),
            ('J', 3, 8, -253.89572912438754),
            ('L', 1, 5, -265.9881385471814),
        ],
    ];

    #[test]
    fn the_preset_chooses_as_el_tetris_on_the_golden_boards() {
        let built = crate::presets::find("el-tetris").unwrap().build(None, None).unwrap();
        let mut scratch = Scratch::default();
        for (board, expected) in golden(20).iter().zip(ORIGINAL_CHOICES) {
            for (letter, orientation, column, value) in expected {
                let view = GameView {
                    board,
                    current: Piece::from_letter(letter).unwrap(),
                    preview: &[],
                    hold: None,
                    can_hold: false,
                };
                let d = built.policy.choose(&*built.rules, &view, &mut scratch).unwrap();
                let got = (d.placement.orientation, d.placement.column);
                assert_eq!(got, (orientation, column), "{letter} on {board:?}");
                assert!((d.value - value).abs() < 1e-9, "{letter}: {} vs {value}", d.value);
            }
        }
    }

    /// Plays `pieces` with the `el-tetris` preset from `board`: every (orientation, column),
    /// the rows cleared, and the index of the piece with no placement (if any).
    fn play(mut board: Board, pieces: &[Piece]) -> (Vec<(u8, i8)>, u64, Option<usize>, Board) {
        let built = crate::presets::find("el-tetris").unwrap().build(None, None).unwrap();
        let (rules, policy) = (&*built.rules, &*built.policy);
        let mut scratch = Scratch::default();
        let (mut moves, mut rows) = (Vec::new(), 0);
        for (i, &piece) in pieces.iter().enumerate() {
            let view = GameView { board: &board, current: piece, preview: &[], hold: None, can_hold: false };
            let Some(d) = policy.choose(rules, &view, &mut scratch) else {
                return (moves, rows, Some(i), board);
            };
            moves.push((d.placement.orientation, d.placement.column));
            let outcome = rules.lock(&mut board, &d.placement);
            assert!(!outcome.game_over);
            rows += outcome.info.rows_cleared as u64;
        }
        (moves, rows, None, board)
    }

    // Expectations below: El-Tetris' JavaScript (`pickMove`, `playMove`) run on the same
    // boards and piece sequences.

    #[test]
    fn matches_el_tetris_on_a_tall_ragged_board() {
        let rows = [
            "#.##.#.#..",
            "###.###...",
            "######..#.",
            "#.##.###.#",
            "##..#.#...",
            "#..#.###.#",
            "####.###.#",
            ".###..###.",
            ".#.###.###",
            ".#.#.#.#..",
            ".#.#.###..",
            "#..#.#.#..",
            "##..#.###.",
            "#.#.#.....",
            "#.#.#.####",
            ".#..###...",
        ];
        let board = Board::parse(&rows.join("\n"), Some(10), 20).unwrap();
        let pieces: Vec<Piece> = "ISJZOZOTIS".chars().map(|c| Piece::from_letter(c).unwrap()).collect();
        let (moves, rows, over, _) = play(board, &pieces);
        // The last S ends with a cell under the overhang of the full top rows.
        let expected = [(0, 9), (0, 0), (2, 2), (1, 0), (0, 3), (0, 6), (0, 5), (3, 1), (1, 4), (1, 7)];
        assert_eq!(moves, expected);
        assert_eq!((rows, over), (0, None));
    }

    #[test]
    fn rates_placements_under_a_top_overhang_on_the_real_board() {
        // El-Tetris plays the T pointing right at column 7 (value -1079.5645525981495); the
        // T pointing left at column 6 ends under the top-row cell of column 6.
        let rows = [
            ".....##...",
            ".#####....",
            "##.####...",
            "##.####..#",
            "#######.##",
            "######.###",
            "######..##",
            "#########.",
            "#########.",
            "#########.",
            "###.######",
            "#####.####",
            "###.######",
            "#####.####",
            ".#########",
            "######.#..",
            "..#.###.##",
            ".###.##.##",
            "..#..#####",
            "###.#.####",
        ];
        let board = Board::parse(&rows.join("\n"), Some(10), 20).unwrap();
        let (moves, _, _, _) = play(board, &[Piece::T]);
        assert_eq!(moves, vec![(0, 7)]);
    }

    #[test]
    fn matches_el_tetris_over_two_thousand_uniform_pieces() {
        let (_, rows, over, end) = play(Board::new(10, 20), &lcg_pieces(1, "IOTSZJL", 2000));
        assert_eq!((rows, over), (797, None));
        let expected = Board::parse("###..#..#.\n###.###.#.\n###.######\n#######.##", Some(10), 20).unwrap();
        assert_eq!(end, expected);
    }

    #[test]
    fn matches_el_tetris_to_the_end_of_a_game_heavy_in_s_and_z() {
        let (_, rows, over, _) = play(Board::new(10, 20), &lcg_pieces(1, "IOTSZJLSZSZSZSZS", 3000));
        assert_eq!((rows, over), (201, Some(546)));
    }
}
