//! Recombination of finished games (`tetris-lab etetris splice`): the best game through the
//! boards of several records.
//!
//! After a piece, the game's state is its board and its score: the next piece is the
//! sequence's, and whether the game is over is the board's (a lock that touches the top row
//! leaves a cell there; a spawn fails on the board alone). So where two records reach the
//! same board after the same piece, either may go on from there, and a game may follow one
//! record up to that meeting point and the other after it, scoring the first's points
//! before and the second's after. Separate searches meet often: the two earlier beam-10,000
//! records in `data/etetris/` have the same board after 1,456 of their 10,000 pieces. The
//! best game through all the records' boards is then a longest path over (piece, board)
//! nodes, found piece by piece (each node keeps its best score and the record that reached
//! it so), and it never scores less than the best record, which is one of the paths.

use super::polish::Line;
use crate::etetris::record::Record;
use crate::etetris::Grid;
use std::collections::HashMap;

/// The best game through the records' boards.
#[derive(Clone, Debug)]
pub struct Spliced {
    /// The game: each piece's key presses, from the record chosen for that piece.
    pub line: Line,
    /// For each piece, the index of the record whose key presses it plays.
    pub sources: Vec<usize>,
}

impl Spliced {
    /// The record of the game.
    pub fn record(&self) -> Record {
        self.line.record()
    }

    /// Pieces at which the game changes from one record to another.
    pub fn switches(&self) -> usize {
        self.sources.windows(2).filter(|pair| pair[0] != pair[1]).count()
    }

    /// How many pieces each record gives, in the records' order.
    pub fn pieces_from(&self, records: usize) -> Vec<usize> {
        let mut counts = vec![0; records];
        for &source in &self.sources {
            counts[source] += 1;
        }
        counts
    }
}

/// How the records meet: the pieces after which at least two of `lines` have the same
/// board, and the stretches of consecutive such pieces.
pub fn meetings(lines: &[Line]) -> (usize, usize) {
    let longest = lines.iter().map(Line::pieces).max().unwrap_or(0);
    let (mut pieces, mut stretches, mut before) = (0, 0, false);
    for piece in 1..=longest {
        let boards: Vec<&Grid> =
            lines.iter().filter(|line| line.pieces() >= piece).map(|line| &line.boards[piece]).collect();
        let distinct: std::collections::HashSet<&Grid> = boards.iter().copied().collect();
        let met = distinct.len() < boards.len();
        pieces += met as usize;
        stretches += (met && !before) as usize;
        before = met;
    }
    (pieces, stretches)
}

/// The best way to (or on from) a board after a piece: its points and the record it takes
/// (into the board for [`ways_in`], out of it for [`ways_out`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Way {
    pub score: u64,
    pub source: usize,
}

/// `ways[t]`: each board some game has after `t` pieces, with the best-scoring way to it
/// from the empty board (the earlier record among equals).
pub(super) fn ways_in(lines: &[Line]) -> Vec<HashMap<Grid, Way>> {
    let longest = lines.iter().map(Line::pieces).max().unwrap_or(0);
    let mut ways: Vec<HashMap<Grid, Way>> = Vec::with_capacity(longest + 1);
    ways.push(HashMap::from([(Grid::default(), Way { score: 0, source: usize::MAX })]));
    for piece in 1..=longest {
        let here = step_in(lines, piece, |board| ways[piece - 1][board].score);
        ways.push(here);
    }
    ways
}

/// One step of [`ways_in`]: each board some game has after `piece` pieces, with the best way
/// to it through a record's piece from a board worth `score_before` (the earlier record
/// among equals). [`super::bridge::plan`] takes the same step from boards valued otherwise.
pub(super) fn step_in(lines: &[Line], piece: usize, score_before: impl Fn(&Grid) -> u64) -> HashMap<Grid, Way> {
    let mut here: HashMap<Grid, Way> = HashMap::new();
    for (source, line) in lines.iter().enumerate().filter(|(_, line)| line.pieces() >= piece) {
        let score = score_before(&line.boards[piece - 1]) + u64::from(line.scores[piece] - line.scores[piece - 1]);
        let node = here.entry(line.boards[piece]).or_insert(Way { score, source });
        if score > node.score {
            *node = Way { score, source };
        }
    }
    here
}

/// `ways[t]`: each board some game has after `t` pieces, with the best-scoring way on from
/// it to the end of one of the games (the earlier record among equals; `source` is
/// `usize::MAX` where a game ends there and that is best).
pub(super) fn ways_out(lines: &[Line]) -> Vec<HashMap<Grid, Way>> {
    let longest = lines.iter().map(Line::pieces).max().unwrap_or(0);
    let mut ways: Vec<HashMap<Grid, Way>> = vec![HashMap::new(); longest + 1];
    for piece in (0..=longest).rev() {
        let mut here: HashMap<Grid, Way> = HashMap::new();
        for (source, line) in lines.iter().enumerate().filter(|(_, line)| line.pieces() >= piece) {
            let way = if line.pieces() == piece {
                Way { score: 0, source: usize::MAX }
            } else {
                let after = ways[piece + 1][&line.boards[piece + 1]].score;
                Way { score: after + u64::from(line.scores[piece + 1] - line.scores[piece]), source }
            };
            let node = here.entry(line.boards[piece]).or_insert(way);
            if way.score > node.score {
                *node = way;
            }
        }
        ways[piece] = here;
    }
    ways
}

/// The records (indices into `lines`) that [`ways_in`]'s best way to `board` after `piece`
/// pieces takes, one per piece.
pub(super) fn sources_into(lines: &[Line], ways: &[HashMap<Grid, Way>], piece: usize, board: Grid) -> Vec<usize> {
    let (mut piece, mut board) = (piece, board);
    let mut sources = vec![0; piece];
    while piece > 0 {
        let source = ways[piece][&board].source;
        sources[piece - 1] = source;
        board = lines[source].boards[piece - 1];
        piece -= 1;
    }
    sources
}

/// The records (indices into `lines`) that [`ways_out`]'s best way on from `board` after
/// `piece` pieces takes, one per piece, to where its game ends.
pub(super) fn sources_out_of(lines: &[Line], ways: &[HashMap<Grid, Way>], piece: usize, board: Grid) -> Vec<usize> {
    let (mut piece, mut board) = (piece, board);
    let mut sources = Vec::new();
    loop {
        let source = ways[piece][&board].source;
        if source == usize::MAX {
            return sources;
        }
        sources.push(source);
        board = lines[source].boards[piece + 1];
        piece += 1;
    }
}

/// Appends to `line` (a game whose last board is one of `lines`') the pieces of its
/// records named by `sources`, from its current end on.
pub(super) fn follow(line: &mut Line, lines: &[Line], sources: impl IntoIterator<Item = usize>) {
    for source in sources {
        let index = line.pieces();
        let from = &lines[source];
        debug_assert_eq!(from.boards[index], line.boards[index], "a game follows a record from a board it has");
        line.ops.push(from.ops[index].clone());
        line.boards.push(from.boards[index + 1]);
        line.scores.push(line.scores[index] + from.scores[index + 1] - from.scores[index]);
    }
}

/// The best-scoring game that follows, piece by piece, one of `lines` (games of the contest
/// from its empty board), changing from one to another only where both have the same
/// board after the same piece. It ends where one of the games ends. Among equal scores the
/// earlier record wins, at every node and at the end, so the result does not depend on
/// anything but the order of `lines`. `None` when `lines` is empty.
pub fn splice(lines: &[Line]) -> Option<Spliced> {
    let reached = ways_in(lines);
    // The end: the best of the games' last nodes (the earliest game among equals).
    let (board, piece, _) = lines
        .iter()
        .map(|line| {
            let end = line.pieces();
            (line.boards[end], end, reached[end][&line.boards[end]].score)
        })
        .fold(None, |best: Option<(Grid, usize, u64)>, end| match best {
            Some(best) if best.2 >= end.2 => Some(best),
            _ => Some(end),
        })?;
    let sources = sources_into(lines, &reached, piece, board);
    let mut line = Line::empty();
    follow(&mut line, lines, sources.iter().copied());
    Some(Spliced { line, sources })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::etetris::record::replay;
    use crate::etetris::solver::{BeamSearch, MoveSet, Options};
    use crate::etetris::{sequence, Weights};

    /// A game of `pieces` pieces found by the seed's search at `beam` with the seed's
    /// weights scaled (so that different settings play different games).
    pub(in crate::etetris) fn game(beam: usize, pieces: usize, holes_scale: f64) -> Line {
        let mut weights = Weights::default();
        weights.features[3] *= holes_scale;
        let mut search = BeamSearch::new(Options::new(beam, MoveSet::Full, weights));
        let spawns = sequence(pieces);
        let solution = search.solve(Grid::default(), &spawns, &mut |_| {});
        let record =
            crate::etetris::solver::write_record(Grid::default(), &spawns, &solution.placements, MoveSet::Full)
                .expect("the search's placements make a record");
        Line::new(&record)
    }

    #[test]
    fn one_game_is_its_own_splice() {
        let line = game(20, 300, 1.0);
        let spliced = splice(std::slice::from_ref(&line)).unwrap();
        assert_eq!(spliced.line.scores, line.scores);
        assert_eq!(spliced.line.boards, line.boards);
        assert_eq!(spliced.switches(), 0);
        assert!(splice(&[]).is_none());
        // Games of other lengths: the game cut after 200 pieces (a record may stop before
        // the game's end) and the whole game; the splice ends where the best-scored ends.
        let short = Line {
            ops: line.ops[..200].to_vec(),
            boards: line.boards[..=200].to_vec(),
            scores: line.scores[..=200].to_vec(),
        };
        for lines in [[short.clone(), line.clone()], [line.clone(), short.clone()]] {
            let spliced = splice(&lines).unwrap();
            assert_eq!((spliced.line.pieces(), spliced.line.score()), (300, line.score()));
        }
    }

    #[test]
    fn the_splice_takes_the_better_stretch_between_meeting_boards_and_replays_to_its_score() {
        // Nearby weights at one width: games that part and meet again.
        let lines: Vec<Line> = [1.0, 0.98, 1.02, 0.95, 1.05].iter().map(|&h| game(100, 2000, h)).collect();
        let spliced = splice(&lines).unwrap();
        let best = lines.iter().map(Line::score).max().unwrap();
        assert!(spliced.line.score() >= best, "{} < {best}", spliced.line.score());
        // The game is a real one: replayed, it scores what the splice says, board for board.
        let replayed = Line::new(&spliced.record());
        assert_eq!(replayed.scores, spliced.line.scores);
        assert_eq!(replayed.boards, spliced.line.boards);
        assert_eq!(replay(&spliced.record()).score as u32, spliced.line.score());
        // Each piece's key presses are those of the record it names, at a board that record
        // has before that piece.
        for (index, &source) in spliced.sources.iter().enumerate() {
            assert_eq!(spliced.line.ops[index], lines[source].ops[index]);
            assert_eq!(spliced.line.boards[index], lines[source].boards[index], "piece {}", index + 1);
        }
        assert_eq!(spliced.pieces_from(lines.len()).iter().sum::<usize>(), spliced.line.pieces());
        // These settings meet and part: the splice gains over every one of them.
        assert!(
            spliced.switches() > 0 && spliced.line.score() > best,
            "{} switches, {} against {best}",
            spliced.switches(),
            spliced.line.score()
        );
    }

    #[test]
    fn meetings_count_the_pieces_after_which_two_records_share_a_board() {
        let a = game(20, 200, 1.0);
        let mut b = a.clone();
        // b parts from a after piece 50 and meets it again from piece 120 to 129.
        let other = Grid::parse("#.........").unwrap();
        for piece in (51..120).chain(130..=200) {
            b.boards[piece] = other;
        }
        assert_eq!(meetings(&[a.clone(), b.clone()]), (50 + 10, 2));
        assert_eq!(meetings(std::slice::from_ref(&a)), (0, 0));
        // A third record sharing nothing changes nothing.
        let mut c = a.clone();
        c.boards.iter_mut().skip(1).for_each(|board| *board = Grid::parse("##........").unwrap());
        assert_eq!(meetings(&[a, b, c]), (60, 2));
    }

    #[test]
    fn a_stretch_is_taken_only_where_the_boards_meet() {
        // Two games from the same first pieces: equal boards up to where they part, then
        // the splice may not mix them (their boards never meet again here).
        let a = game(20, 200, 1.0);
        let mut b = a.clone();
        // b: a's first 100 pieces, then a's own continuation scored higher at piece 150
        // (a board of its own, so it cannot be reached from a's boards).
        let other = Grid::parse("#.........").unwrap();
        for piece in 150..=b.pieces() {
            b.boards[piece] = other;
            b.scores[piece] = a.scores[piece] + 1_000;
        }
        let spliced = splice(&[a.clone(), b.clone()]).unwrap();
        // The end is b's (the higher score), reached through b alone from piece 150 on.
        assert_eq!(spliced.line.score(), b.score());
        assert!(spliced.sources[149..].iter().all(|&source| source == 1));
    }
}
