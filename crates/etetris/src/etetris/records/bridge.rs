//! Bridges between records (`tetris-lab etetris splice --bridge`): new ways from one record's board
//! to another record's later board, found by beam search, so that a splice can change
//! records where they never meet.
//!
//! A lock scores its rows times the cells on the board (`cells x 1, 3, 6, 10`), so two
//! games after the same piece with the same number of cells have banked the same lines
//! and stand to score alike; where they differ is the stacking. The splice's graph
//! ([`super::splice`]) is first read as if a game could change, for free, to any board
//! with as many cells after the same piece: the best game then is the *plan*, and each
//! change it makes is a *jump* from the board the points were best on to the board the
//! rest of the game was best from. For each jump, a beam search from the first board
//! ([`BeamSearch::find_bridge`], pulled towards the plan's boards by `guide`) looks for a
//! way onto any of the records' boards after the pieces that follow, with more points than
//! the best way there known, and keeps the one that leads to the best game (its points
//! plus the best known from where it lands). Each bridge found is written as a whole game
//! (the best way to its first board, the bridge, the best way on from its last),
//! replayable like any record; a splice of the records and these games is then never
//! worse than the splice of the records alone. The searches may instead start every N
//! pieces along the splice's game ([`Starts::Every`]) or along the plan's detours
//! ([`Starts::Detours`]), and with `chain` ([`Bridging::new`]) each bridge found joins the
//! records for the searches after it. With [`Starts::Carry`] there is one search
//! instead, over the whole game, with every record's boards carried into its beam after
//! each piece: it looks for bridges from all of the records' boards at once.

use super::polish::{place, Line};
use super::splice::{follow, sources_into, sources_out_of, splice, step_in, ways_in, ways_out, Way};
use crate::etetris::game::{sequence, Grid, Placement, PIECE_LIMIT};
use crate::etetris::solver::{BeamSearch, Branch, BridgeTargets, Landing, Options, Start};
use anyhow::{ensure, Result};
use std::collections::HashMap;
use std::ops::ControlFlow;

/// The pieces a bridge may take when `--window` is not given.
pub const DEFAULT_WINDOW: usize = 80;

/// How the bridges are searched: where they start ([`Starts`]), in which pieces, how
/// strongly they are pulled towards the boards they aim at, and whether each bridge found
/// joins the records at once. Made by [`Bridging::new`] alone, which checks the flags of
/// `splice --bridge` together.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bridging {
    starts: Starts,
    /// Only the starts at pieces `within.0..within.1` are searched (`None`: all): a region
    /// of the game searched closely (with [`Starts::Carry`], see there).
    within: Option<(usize, usize)>,
    /// Added to the key per cell a board differs from the board aimed at after the same
    /// piece (0: off), as polish's guide.
    guide: f64,
    /// Each bridge found joins the records at once, so the later searches start from its
    /// boards with its points banked and may land on it: a bridge out of a record the plan
    /// visits can then follow the bridge into it within one run (without, each search knows
    /// only the records given, and a way in and a way out found in the same run need not
    /// meet). [`Starts::Carry`] always chains.
    chain: bool,
}

/// Where the bridges' searches start, and how far each goes. The modes exclude each other:
/// a flag of one ([`BridgeFlags`]) given with another's is refused by [`Bridging::new`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Starts {
    /// At the plan's jumps, each over at most `window` pieces, pulled towards `aim`.
    Jumps { window: usize, aim: Aim },
    /// Every `every` pieces along the splice's game instead (`--every`), from its board,
    /// pulled towards its own later boards, onto any of the records' boards with more
    /// points than the best way there known: a polish pass that may land on every record.
    Every { every: usize, window: usize },
    /// Every `every` pieces along the plan's detours instead (`--detours`: the stretches
    /// where the plan's board is not the splice's game's), from the plan's board, pulled
    /// towards `aim`: a detour that leaves the game where the records meet needs only a way
    /// back, and the jump that ends it is one place to start it among many. With `lead`
    /// above 0, also on the game within `lead` pieces before a detour (from the plan's
    /// board there, which the detour then leaves): a way into a detour that does not leave
    /// where a record meets the game, with room to turn the game's stacking into the
    /// detour's.
    Detours { every: usize, lead: usize, window: usize, aim: Aim },
    /// One search instead (`--carry`), from the empty board over the whole game (to its
    /// last piece but one), with the records' boards carried along: after each piece every
    /// board of the records joins the beam with the points of the best way to it known (or
    /// gives them to the same board in the beam, where it has fewer), so the search goes on
    /// from all the records at once and the cut keeps the best of them and of their new
    /// branches. A branch that reaches a record's board with more points than the best way
    /// there known is a bridge between two of the records' boards: the search keeps those
    /// of the [`CARRIED_WAYS`] largest totals (with the points from there on), and each
    /// becomes a game, the largest first, if it still gains once those before it joined
    /// the records. With [`Bridging::within`] (A, B), the search starts after piece A on
    /// the splice's game's board, with its points, and carries the records' boards up to
    /// piece B: a region of the game searched alone, for a fraction of the whole search's
    /// time.
    Carry { aim: Aim },
}

impl Starts {
    /// The pieces a bridge may take (`None`: with `Carry`, up to the region's end).
    pub fn window(self) -> Option<usize> {
        match self {
            Starts::Jumps { window, .. } | Starts::Every { window, .. } | Starts::Detours { window, .. } => {
                Some(window)
            }
            Starts::Carry { .. } => None,
        }
    }

    /// The boards the searches are pulled towards (`None`: along the game, the game's own).
    pub fn aim(self) -> Option<Aim> {
        match self {
            Starts::Jumps { aim, .. } | Starts::Detours { aim, .. } | Starts::Carry { aim } => Some(aim),
            Starts::Every { .. } => None,
        }
    }
}

/// The flags of `splice --bridge` that say how the bridges are searched, as given (`None`
/// or 0: not given); [`Bridging::new`] checks them together.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BridgeFlags {
    /// `--window` [default: [`DEFAULT_WINDOW`]].
    pub window: Option<usize>,
    /// `--every`, `--detours` and `--lead` (0: off).
    pub every: usize,
    pub detours: usize,
    pub lead: usize,
    /// `--aim` [default: the plan].
    pub aim: Option<Aim>,
    /// `--carry`, `--chain`.
    pub carry: bool,
    pub chain: bool,
    /// `--guide`.
    pub guide: f64,
    /// `--within A..B` (A < B).
    pub within: Option<(usize, usize)>,
}

impl Bridging {
    /// The bridging `flags` ask for, checked together; each error names the flags.
    pub fn new(flags: BridgeFlags) -> Result<Bridging> {
        let BridgeFlags { window, every, detours, lead, aim, carry, chain, guide, within } = flags;
        if carry {
            for (given, flag) in [
                (every > 0, "--every"),
                (detours > 0, "--detours"),
                (window.is_some(), "--window"),
                (lead > 0, "--lead"),
            ] {
                ensure!(!given, "--carry is one search over the whole game: {flag} cannot be given with it");
            }
        }
        ensure!(
            every == 0 || detours == 0,
            "--every and --detours cannot be given together: bridges start along the game or along the detours, not both"
        );
        ensure!(
            every == 0 || aim.is_none(),
            "--aim cannot be given with --every: along the game the searches aim at the game's own boards"
        );
        ensure!(lead == 0 || detours > 0, "--lead starts before each detour: give --detours too");
        let window = window.unwrap_or(DEFAULT_WINDOW);
        ensure!((1..=PIECE_LIMIT).contains(&window), "--window must be in 1..={PIECE_LIMIT}, got {window}");
        ensure!(every < PIECE_LIMIT, "--every must be below {PIECE_LIMIT}, got {every}");
        ensure!(detours < PIECE_LIMIT, "--detours must be below {PIECE_LIMIT}, got {detours}");
        ensure!(lead < PIECE_LIMIT, "--lead must be below {PIECE_LIMIT}, got {lead}");
        ensure!(guide.is_finite() && guide >= 0.0, "--guide must be a number of at least 0, got {guide}");
        if let Some((first, end)) = within {
            ensure!(
                first < end && end <= PIECE_LIMIT,
                "--within {first}..{end}: a range A..B needs A < B <= {PIECE_LIMIT}"
            );
        }
        let aim = aim.unwrap_or_default();
        let starts = match () {
            _ if carry => Starts::Carry { aim },
            _ if every > 0 => Starts::Every { every, window },
            _ if detours > 0 => Starts::Detours { every: detours, lead, window, aim },
            _ => Starts::Jumps { window, aim },
        };
        Ok(Bridging { starts, within, guide, chain })
    }

    pub fn starts(&self) -> Starts {
        self.starts
    }

    /// The region searched (`None`: the whole game).
    pub fn within(&self) -> Option<(usize, usize)> {
        self.within
    }

    pub fn guide(&self) -> f64 {
        self.guide
    }

    pub fn chain(&self) -> bool {
        self.chain
    }
}

/// What the bridges' searches are pulled towards (with a guide above 0): the plan's boards,
/// the splice's game's, or after each piece the nearer of the two. At the jumps and along
/// the detours the plan's boards are, until the detour ends, the detour's own; aimed at the
/// game, a search from a detour is pulled back onto the game from its first piece (the way
/// back a detour needs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Aim {
    /// The plan's boards.
    #[default]
    Plan,
    /// The splice's game's boards.
    Game,
    /// After each piece the nearer of the plan's board and the game's: a search may stay
    /// with the detour or turn back onto the game, whichever its boards are closer to.
    Either,
}

impl Aim {
    /// Every aim, in the order a listing shows them.
    pub const ALL: [Aim; 3] = [Aim::Plan, Aim::Game, Aim::Either];

    /// The aim of an [`Aim::name`].
    pub fn from_name(name: &str) -> Option<Aim> {
        Aim::ALL.into_iter().find(|aim| aim.name() == name)
    }

    /// Its name as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            Aim::Plan => "plan",
            Aim::Game => "game",
            Aim::Either => "either",
        }
    }
}

/// One change of the plan: after `piece` pieces, from board `from` to board `to` (as many
/// cells, another record's board).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Jump {
    pub piece: usize,
    pub from: Grid,
    pub to: Grid,
}

/// The plan: the best game if changing between equal-cell boards after the same piece
/// were free.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Its score: never below the splice's (whose game is a plan with no change); what
    /// bridges could give if each scored, over its pieces, what the records do.
    pub score: u64,
    /// `boards[t]`: its board after `t` pieces (after the jump, where it jumps).
    pub boards: Vec<Grid>,
    /// Its changes, in piece order.
    pub jumps: Vec<Jump>,
    /// `scores[t]`: its points after `t` pieces.
    pub scores: Vec<u64>,
    /// `sources[t]`: the record (index into the lines) whose piece `t` it plays (onto the
    /// board it then jumps from, if it jumps there); `usize::MAX` at 0.
    pub sources: Vec<usize>,
}

/// The plan of `lines` (games of the contest from its empty board). Ties go to the earlier
/// record and, between boards, to the smaller board, so the plan depends only on `lines`
/// and their order. `None` when `lines` is empty.
pub fn plan(lines: &[Line]) -> Option<Plan> {
    let longest = lines.iter().map(Line::pieces).max()?;
    // after[t]: each board after t pieces, its best score with free jumps, and the board
    // it jumped from (`None`: reached by a record's piece).
    let mut after: Vec<HashMap<Grid, (u64, Option<Grid>)>> = Vec::with_capacity(longest + 1);
    // into[t]: the same before the jumps, with the record whose piece leads there.
    let mut into: Vec<HashMap<Grid, Way>> = Vec::with_capacity(longest + 1);
    after.push(HashMap::from([(Grid::default(), (0, None))]));
    into.push(HashMap::from([(Grid::default(), Way { score: 0, source: usize::MAX })]));
    for piece in 1..=longest {
        let here = step_in(lines, piece, |board| after[piece - 1][board].0);
        // The best board of each cell count (the smaller board among equals).
        let mut best_of_count: HashMap<u32, (u64, Grid)> = HashMap::new();
        for (board, way) in &here {
            let best = best_of_count.entry(board.cells()).or_insert((way.score, *board));
            if way.score > best.0 || (way.score == best.0 && *board < best.1) {
                *best = (way.score, *board);
            }
        }
        let jumped = here
            .iter()
            .map(|(board, way)| {
                let (score, from) = best_of_count[&board.cells()];
                (*board, if score > way.score { (score, Some(from)) } else { (way.score, None) })
            })
            .collect();
        into.push(here);
        after.push(jumped);
    }
    let (mut board, mut piece, score) = lines
        .iter()
        .map(|line| (line.boards[line.pieces()], line.pieces(), after[line.pieces()][&line.boards[line.pieces()]].0))
        .fold(None, |best: Option<(Grid, usize, u64)>, end| match best {
            Some(best) if best.2 >= end.2 => Some(best),
            _ => Some(end),
        })?;
    let mut boards = vec![Grid::default(); piece + 1];
    let mut scores = vec![0; piece + 1];
    let mut sources = vec![usize::MAX; piece + 1];
    let mut jumps = Vec::new();
    loop {
        boards[piece] = board;
        if let Some(from) = after[piece][&board].1 {
            jumps.push(Jump { piece, from, to: board });
            board = from;
        }
        if piece == 0 {
            break;
        }
        let way = into[piece][&board];
        (scores[piece], sources[piece]) = (way.score, way.source);
        board = lines[way.source].boards[piece - 1];
        piece -= 1;
    }
    jumps.reverse();
    Some(Plan { score, boards, jumps, scores, sources })
}

/// A stretch where the plan's board is not a game's: where the plan's points over that
/// game are, and where bridges back onto it are wanted.
#[derive(Clone, Debug, PartialEq)]
pub struct Detour {
    /// The first piece after which the plan's board differs from the game's, and the first
    /// after which they are the same again (the game's end if never).
    pub first: usize,
    pub back: usize,
    /// The plan's points over the stretch less the game's (pieces `first..=back`).
    pub gain: i64,
    /// The records (indices into the lines) whose pieces the plan plays over the stretch,
    /// in order of first use.
    pub records: Vec<usize>,
    /// Whether the plan leaves the game where a record meets it (no jump needed on the way
    /// out: only a way back is missing).
    pub at_meeting: bool,
}

impl Plan {
    /// The plan's detours from `game` (a game of the plan's records' boards, such as their
    /// splice's), in piece order.
    pub fn detours(&self, game: &Line) -> Vec<Detour> {
        let pieces = (self.boards.len() - 1).min(game.pieces());
        let (scores, sources) = (&self.scores, &self.sources);
        let mut detours = Vec::new();
        let mut piece = 1;
        while piece <= pieces {
            if self.boards[piece] == game.boards[piece] {
                piece += 1;
                continue;
            }
            let first = piece;
            while piece < pieces && self.boards[piece] != game.boards[piece] {
                piece += 1;
            }
            let back = piece;
            let game_points = i64::from(game.scores[back]) - i64::from(game.scores[first - 1]);
            let plan_points = (scores[back] - scores[first - 1]) as i64;
            let mut records = Vec::new();
            for &source in &sources[first..=back] {
                if source != usize::MAX && !records.contains(&source) {
                    records.push(source);
                }
            }
            let at_meeting = !self.jumps.iter().any(|jump| jump.piece == first && jump.from == game.boards[first]);
            detours.push(Detour { first, back, gain: plan_points - game_points, records, at_meeting });
            piece += 1;
        }
        detours
    }
}

/// One jump's search, as [`bridge`] reports it.
#[derive(Clone, Debug)]
pub struct Attempt {
    /// The jump (0-based, of `jumps`) and the plan's number of jumps.
    pub index: usize,
    pub jumps: usize,
    pub jump: Jump,
    /// The points the bridges found gain over the best ways known to the boards they end
    /// on (`None`: no bridge found).
    pub gain: Option<u32>,
    /// The bridges found (none: none found; with [`Starts::Carry`], up to
    /// [`CARRIED_WAYS`]): what [`Searched`] keeps of the search.
    pub ways: Vec<Branch>,
    /// Read from `earlier` (a stopped run's searches), not searched again.
    pub earlier: bool,
}

/// A jump searched by an earlier run of the same settings: the jump's piece and the
/// bridges found (none: none found). [`bridge`] takes these instead of searching those
/// jumps again.
#[derive(Clone, Debug, PartialEq)]
pub struct Searched {
    pub piece: usize,
    pub ways: Vec<Branch>,
}

impl Searched {
    /// As a line of text: `piece`, then each way's placements as `x/y/state`, a way from a
    /// carried board first naming it as `@piece:index`, the ways apart by `|`; all
    /// space-separated (`412 -1/17/3 8/0/0`; `0 @40:2 3/5/1 | @77:0 0/17/2`).
    pub fn to_line(&self) -> String {
        let mut line = self.piece.to_string();
        for (number, way) in self.ways.iter().enumerate() {
            if number > 0 {
                line.push_str(" |");
            }
            if let Start::Carried { piece, index } = way.start {
                line.push_str(&format!(" @{piece}:{index}"));
            }
            for p in &way.placements {
                line.push_str(&format!(" {}/{}/{}", p.x, p.y, p.state));
            }
        }
        line
    }

    /// Reads [`Searched::to_line`]'s text.
    pub fn parse(line: &str) -> Result<Searched> {
        let mut fields = line.split(' ');
        let piece = fields.next().unwrap_or_default();
        let piece = piece.parse().map_err(|_| anyhow::anyhow!("piece {piece:?} is not a count"))?;
        let mut ways = Vec::new();
        let mut way: Option<Branch> = None;
        for field in fields {
            if field == "|" {
                let Some(finished) = way.take() else {
                    anyhow::bail!("an empty way before a \"|\"");
                };
                ways.push(finished);
                continue;
            }
            if let Some(start) = field.strip_prefix('@') {
                let carried =
                    start.split_once(':').and_then(|(piece, index)| Some((piece.parse().ok()?, index.parse().ok()?)));
                let Some((piece, index)) = carried else {
                    anyhow::bail!("start {field:?} is not @piece:index");
                };
                if way.is_some() {
                    anyhow::bail!("start {field:?} is not at the start of a way");
                }
                way = Some(Branch { start: Start::Carried { piece, index }, placements: Vec::new() });
                continue;
            }
            let parts: Vec<&str> = field.split('/').collect();
            let placement = match parts[..] {
                [x, y, state] => match (x.parse(), y.parse(), state.parse()) {
                    (Ok(x), Ok(y), Ok(state)) => Placement { x, y, state },
                    _ => anyhow::bail!("placement {field:?} is not x/y/state"),
                },
                _ => anyhow::bail!("placement {field:?} is not x/y/state"),
            };
            way.get_or_insert_with(|| Branch { start: Start::Search, placements: Vec::new() })
                .placements
                .push(placement);
        }
        match way {
            Some(last) => ways.push(last),
            None if !ways.is_empty() => anyhow::bail!("an empty way after the last \"|\""),
            None => {}
        }
        Ok(Searched { piece, ways })
    }
}

/// The most ways one search with [`Starts::Carry`] keeps (the largest totals).
pub const CARRIED_WAYS: usize = 64;

/// What [`bridge`] found.
#[derive(Clone, Debug)]
pub struct Bridged {
    /// The plan whose jumps were searched.
    pub plan: Plan,
    /// A whole game through each bridge found, in the jumps' order.
    pub games: Vec<Line>,
    /// Jumps searched (all of `starts` unless `on_attempt` stopped it).
    pub attempts: usize,
    /// The searches to make: the plan's jumps, or the starts along the splice's game with
    /// [`Starts::Every`].
    pub starts: usize,
}

/// Searches a bridge for each jump of the plan of `lines` (or each start `bridging` names
/// instead, within its pieces) with `options`' beam search, `on_attempt` hearing of each
/// (and able to stop the rest). A jump at whose piece fewer
/// than two pieces of the game remain is not searched (the polish of the game's end is
/// `polish --from`'s). The first jumps may come from `earlier`, the searches of a stopped
/// run with the same records and settings (each jump's search depends on those alone, so
/// the result is the uninterrupted run's). The result depends on `lines`, their order and
/// the settings, not on the thread count.
pub fn bridge(
    options: Options,
    lines: &[Line],
    bridging: Bridging,
    earlier: &[Searched],
    on_attempt: &mut dyn FnMut(&Attempt, &[Line]) -> ControlFlow<()>,
) -> Result<Bridged> {
    match (plan(lines), splice(lines)) {
        (Some(plan), Some(spliced)) => bridge_along(plan, &spliced.line, options, lines, bridging, earlier, on_attempt),
        _ => Ok(Bridged {
            plan: Plan { score: 0, boards: Vec::new(), jumps: Vec::new(), scores: Vec::new(), sources: Vec::new() },
            games: Vec::new(),
            attempts: 0,
            starts: 0,
        }),
    }
}

/// [`bridge`] with the plan of `lines` and the splice's game already made (`plan(lines)`
/// and `splice(lines)`'s line, which a caller that reports them before the searches has at
/// hand).
pub fn bridge_along(
    plan: Plan,
    game: &Line,
    options: Options,
    lines: &[Line],
    bridging: Bridging,
    earlier: &[Searched],
    on_attempt: &mut dyn FnMut(&Attempt, &[Line]) -> ControlFlow<()>,
) -> Result<Bridged> {
    ensure!(plan.boards.len() > 1, "a plan has at least one piece");
    let carry = matches!(bridging.starts, Starts::Carry { .. });
    let (within_first, within_end) = bridging.within.unwrap_or((0, PIECE_LIMIT));
    // The records, and with `chain` the bridges' games as they are found.
    let mut known: Vec<Line> = lines.to_vec();
    let mut ways_to = ways_in(&known);
    let mut ways_on = ways_out(&known);
    let pieces = plan.boards.len() - 1;
    // Where the searches start, and the boards they are pulled towards after each piece.
    let starts: Vec<Jump> = match bridging.starts {
        Starts::Carry { .. } => {
            let piece = within_first;
            ensure!(
                piece < game.pieces(),
                "a carried search from piece {piece} starts after the game's last piece ({})",
                game.pieces()
            );
            vec![Jump { piece, from: game.boards[piece], to: game.boards[piece] }]
        }
        Starts::Detours { every, lead, .. } => (every..pieces.min(game.pieces()))
            .step_by(every)
            .filter(|&piece| {
                (piece..=piece.saturating_add(lead).min(pieces.min(game.pieces())))
                    .any(|ahead| plan.boards[ahead] != game.boards[ahead])
            })
            .map(|piece| Jump { piece, from: plan.boards[piece], to: plan.boards[piece] })
            .collect(),
        Starts::Jumps { .. } => plan.jumps.clone(),
        Starts::Every { every, .. } => (every..game.pieces())
            .step_by(every)
            .map(|piece| Jump { piece, from: game.boards[piece], to: game.boards[piece] })
            .collect(),
    };
    // Along the game the searches aim at the game; elsewhere where `aim` says.
    let aimed: Vec<&[Grid]> = match bridging.starts.aim() {
        None | Some(Aim::Game) => vec![&game.boards],
        Some(Aim::Plan) => vec![&plan.boards],
        Some(Aim::Either) => vec![&plan.boards, &game.boards],
    };
    let within = within_first..within_end;
    let starts: Vec<Jump> = starts.into_iter().filter(|jump| within.contains(&jump.piece)).collect();
    let pieces = aimed.iter().fold(pieces, |pieces, boards| pieces.min(boards.len() - 1));
    let spawns = sequence(PIECE_LIMIT);
    let mut search = BeamSearch::new(options);
    let mut games = Vec::new();
    let mut attempts = 0;
    for (index, &jump) in starts.iter().enumerate() {
        let first = jump.piece;
        // The last piece is left to the plan: a window reaching the game's end would take
        // any board there, which is polish's work, not a bridge.
        let longest = pieces.saturating_sub(first + 1);
        let window = match bridging.starts.window() {
            Some(window) => window.min(longest),
            None => longest.min(within_end.saturating_sub(first)),
        };
        let mut gain_found = None;
        let mut found = Vec::new();
        let kept = earlier.get(index);
        if let Some(kept) = kept {
            let fits = |way: &Branch| match way.start {
                Start::Search => way.placements.len() <= window,
                Start::Carried { piece, .. } => {
                    carry && piece > first && piece + way.placements.len() <= first + window
                }
            };
            ensure!(
                kept.piece == jump.piece && kept.ways.iter().all(fits),
                "jump {} of the searches kept is at piece {} with {} ways; this plan's is at piece {} with a window of \
                 {window}{}",
                index + 1,
                kept.piece,
                kept.ways.len(),
                jump.piece,
                if carry { "" } else { " and no carried boards" }
            );
        }
        if window > 0 {
            let banked = ways_to[first][&jump.from].score;
            let aims: Vec<Vec<Grid>> = (first + 1..=first + window)
                .map(|after| {
                    let mut near: Vec<Grid> = aimed.iter().map(|boards| boards[after]).collect();
                    near.dedup();
                    near
                })
                .collect();
            // Every board of the records after each piece, worth landing on with more
            // points than the best way there known.
            let landings: Vec<HashMap<Grid, Landing>> = (first + 1..=first + window)
                .map(|t| {
                    ways_to[t]
                        .iter()
                        .map(|(board, way)| {
                            let needs = u32::try_from(way.score.saturating_sub(banked)).unwrap_or(u32::MAX);
                            (*board, Landing { needs, then: ways_on[t][board].score })
                        })
                        .collect()
                })
                .collect();
            // With `carry`, each record's board after each piece, with its points.
            let carried: Vec<Vec<(Grid, u32)>> = if carry {
                (first + 1..=first + window)
                    .map(|t| {
                        let mut boards: Vec<(Grid, u32)> = ways_to[t]
                            .iter()
                            .filter_map(|(board, way)| {
                                Some((*board, u32::try_from(way.score.checked_sub(banked)?).ok()?))
                            })
                            .collect();
                        boards.sort_unstable();
                        boards
                    })
                    .collect()
            } else {
                Vec::new()
            };
            // The ways found (with `carry` up to CARRIED_WAYS), and the gain the search
            // reported for each (none when kept).
            let ways: Vec<(Branch, Option<u32>)> = match kept {
                Some(kept) => {
                    kept.ways.iter().filter(|way| !way.placements.is_empty()).map(|way| (way.clone(), None)).collect()
                }
                None => search
                    .find_bridge(
                        jump.from,
                        &spawns[first..],
                        (first, pieces),
                        &BridgeTargets { aims: &aims, landings: &landings, carried: &carried },
                        bridging.guide,
                        if carry { CARRIED_WAYS } else { 1 },
                    )
                    .into_iter()
                    .map(|landed| (landed.branch, Some(landed.gain)))
                    .collect(),
            };
            for (way, searched_gain) in ways {
                // From the search's start, or from the carried board the way starts on.
                let (from, start) = match way.start {
                    Start::Carried { piece: after, index } => {
                        let board = after
                            .checked_sub(first + 1)
                            .and_then(|step| carried.get(step))
                            .and_then(|boards| boards.get(index))
                            .map(|&(board, _)| board);
                        let Some(board) = board else {
                            anyhow::bail!("a bridge from piece {first} starts on no board carried ({after}, {index})");
                        };
                        (after, board)
                    }
                    Start::Search => (first, jump.from),
                };
                let mut game = Line::empty();
                follow(&mut game, &known, sources_into(&known, &ways_to, from, start));
                let mut grid = start;
                for (offset, &placement) in way.placements.iter().enumerate() {
                    let piece = from + offset;
                    let (ops, points) = place(&mut grid, piece, spawns[piece], placement, options.moves)?;
                    let score = game.score() + points;
                    game.ops.push(ops);
                    game.boards.push(grid);
                    game.scores.push(score);
                }
                let landed = game.pieces();
                // Judged against the ways known now: the landings' own until a way joins
                // the records (carried, the ways after the first are judged against those
                // before them, and one that gains nothing more is left).
                let needs =
                    ways_to.get(landed).and_then(|ways| ways.get(&grid)).map(|way| way.score.saturating_sub(banked));
                let Some(needs) = needs else {
                    anyhow::bail!("a bridge from piece {first} ends off the records at piece {landed}");
                };
                let gain = (u64::from(game.score()).saturating_sub(banked))
                    .checked_sub(needs)
                    .and_then(|gain| u32::try_from(gain).ok())
                    .filter(|&gain| gain > 0);
                let Some(gain) = gain else {
                    if carry {
                        continue;
                    }
                    anyhow::bail!("a bridge from piece {first} gains nothing at piece {landed}");
                };
                debug_assert!(
                    carry || searched_gain.is_none_or(|searched| searched == gain),
                    "{searched_gain:?} {gain}"
                );
                // On from the landing board the best known way, to the end of a game.
                let on = sources_out_of(&known, &ways_on, landed, grid);
                follow(&mut game, &known, on);
                gain_found = Some(gain_found.unwrap_or(0) + gain);
                found.push(way);
                if bridging.chain || carry {
                    known.push(game.clone());
                    ways_to = ways_in(&known);
                    ways_on = ways_out(&known);
                }
                games.push(game);
            }
        }
        attempts += 1;
        let attempt =
            Attempt { index, jumps: starts.len(), jump, gain: gain_found, ways: found, earlier: kept.is_some() };
        if on_attempt(&attempt, &games).is_break() {
            break;
        }
    }
    Ok(Bridged { plan, games, attempts, starts: starts.len() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etetris::record::replay;
    use crate::etetris::records::splice::tests::game;
    use crate::etetris::solver::MoveSet;
    use crate::etetris::Weights;

    /// Each game replays, board for board, to the scores it says, over the 600 pieces.
    fn assert_whole_games(games: &[Line]) {
        for game in games {
            let replayed = Line::new(&game.record());
            assert_eq!(replayed.scores, game.scores);
            assert_eq!(game.pieces(), 600);
        }
    }

    /// The score of the splice of `lines` and `games`.
    fn spliced_with(lines: &[Line], games: &[Line]) -> u32 {
        let all: Vec<Line> = lines.iter().chain(games).cloned().collect();
        splice(&all).unwrap().line.score()
    }

    /// Bridges at the plan's jumps with windows of `window` pieces and the default pull.
    fn at_the_jumps(window: usize) -> Bridging {
        Bridging { starts: Starts::Jumps { window, aim: Aim::Plan }, within: None, guide: 10.0, chain: false }
    }

    /// Bridges every `every` pieces along the plan's detours, `lead` pieces ahead.
    fn along_the_detours(every: usize, lead: usize, aim: Aim) -> Bridging {
        Bridging { starts: Starts::Detours { every, lead, window: 30, aim }, ..at_the_jumps(30) }
    }

    /// The flags as `splice --bridge` alone gives them.
    fn no_flags() -> BridgeFlags {
        BridgeFlags {
            window: None,
            every: 0,
            detours: 0,
            lead: 0,
            aim: None,
            carry: false,
            chain: false,
            guide: 10.0,
            within: None,
        }
    }

    /// The modes exclude each other, each error naming the flags; alone each makes its
    /// start.
    #[test]
    fn the_flags_are_checked_together() {
        let refused = |flags: BridgeFlags, needle: &str| {
            let error = Bridging::new(flags).unwrap_err().to_string();
            assert!(error.contains(needle), "{error}");
        };
        refused(BridgeFlags { every: 20, detours: 20, ..no_flags() }, "--detours");
        refused(BridgeFlags { every: 20, aim: Some(Aim::Game), ..no_flags() }, "--every");
        refused(BridgeFlags { lead: 3, ..no_flags() }, "--detours");
        refused(BridgeFlags { carry: true, window: Some(40), ..no_flags() }, "--window");
        refused(BridgeFlags { carry: true, every: 5, ..no_flags() }, "--every");
        refused(BridgeFlags { window: Some(0), ..no_flags() }, "--window");
        refused(BridgeFlags { guide: f64::NAN, ..no_flags() }, "--guide");
        let starts = |flags: BridgeFlags| Bridging::new(flags).unwrap().starts();
        assert_eq!(starts(no_flags()), Starts::Jumps { window: DEFAULT_WINDOW, aim: Aim::Plan });
        assert_eq!(starts(BridgeFlags { every: 5, ..no_flags() }), Starts::Every { every: 5, window: DEFAULT_WINDOW });
        let detours = BridgeFlags { detours: 5, lead: 2, aim: Some(Aim::Game), ..no_flags() };
        assert_eq!(starts(detours), Starts::Detours { every: 5, lead: 2, window: DEFAULT_WINDOW, aim: Aim::Game });
        assert_eq!(starts(BridgeFlags { carry: true, ..no_flags() }), Starts::Carry { aim: Aim::Plan });
    }

    #[test]
    fn the_plan_is_never_below_the_splice_and_jumps_only_between_equal_cell_boards() {
        let lines: Vec<Line> = [1.0, 0.9, 1.1, 0.8].iter().map(|&h| game(40, 600, h)).collect();
        let plan = plan(&lines).unwrap();
        let spliced = splice(&lines).unwrap();
        assert!(plan.score >= u64::from(spliced.line.score()));
        assert_eq!(plan.boards.len(), 601);
        for jump in &plan.jumps {
            assert_eq!(jump.from.cells(), jump.to.cells());
            assert_ne!(jump.from, jump.to);
            assert_eq!(plan.boards[jump.piece], jump.to);
            // Both boards are the records' after that piece.
            for board in [jump.from, jump.to] {
                assert!(lines.iter().any(|line| line.boards[jump.piece] == board));
            }
        }
        // Each piece is a record's, from the plan's board before it onto the board it jumps
        // from (or stays on), with that record's points; the points add up to the score.
        let mut before_jump = plan.boards.clone();
        for jump in &plan.jumps {
            before_jump[jump.piece] = jump.from;
        }
        for t in 1..=600 {
            let line = &lines[plan.sources[t]];
            assert_eq!((line.boards[t - 1], line.boards[t]), (plan.boards[t - 1], before_jump[t]), "piece {t}");
            assert_eq!(plan.scores[t] - plan.scores[t - 1], u64::from(line.scores[t] - line.scores[t - 1]));
        }
        assert_eq!((plan.scores[0], plan.scores[600]), (0, plan.score));
        // One game: no jump, and the plan is the game.
        let alone = super::plan(&lines[..1]).unwrap();
        assert!(alone.jumps.is_empty());
        assert_eq!(alone.score, u64::from(lines[0].score()));
        assert_eq!(alone.boards, lines[0].boards);
        assert!(super::plan(&[]).is_none());
    }

    #[test]
    fn the_plans_detours_add_up_to_its_points_over_the_game() {
        let lines: Vec<Line> = [1.0, 0.9, 1.1, 0.8].iter().map(|&h| game(40, 600, h)).collect();
        let plan = plan(&lines).unwrap();
        let spliced = splice(&lines).unwrap();
        let detours = plan.detours(&spliced.line);
        assert!(!detours.is_empty());
        // Off the game exactly over the detours, back on it at each one's end.
        let mut off = vec![false; 601];
        for detour in &detours {
            assert!(detour.first <= detour.back && !detour.records.is_empty(), "{detour:?}");
            for flag in &mut off[detour.first..detour.back] {
                *flag = true;
            }
            assert!(detour.back == 600 || plan.boards[detour.back] == spliced.line.boards[detour.back]);
            // A detour entered by a jump from the game's board is not left at a meeting.
            let board = spliced.line.boards[detour.first];
            let jumped = plan.jumps.iter().any(|jump| jump.piece == detour.first && jump.from == board);
            assert_eq!(detour.at_meeting, !jumped, "{detour:?}");
        }
        for (piece, &off) in off.iter().enumerate().take(600).skip(1) {
            assert_eq!(off, plan.boards[piece] != spliced.line.boards[piece], "piece {piece}");
        }
        // Their gains are the plan's points over the game's.
        let total: i64 = detours.iter().map(|detour| detour.gain).sum();
        assert_eq!(total, plan.score as i64 - i64::from(spliced.line.score()));
        // A game's own plan has no detour from it.
        let alone = super::plan(&lines[..1]).unwrap();
        assert!(alone.detours(&lines[0]).is_empty());
    }

    #[test]
    fn a_search_kept_reads_back_as_written() {
        let placed = vec![Placement { x: -1, y: 17, state: 3 }, Placement { x: 8, y: 0, state: 0 }];
        let searched = Searched { piece: 412, ways: vec![Branch { start: Start::Search, placements: placed.clone() }] };
        assert_eq!(searched.to_line(), "412 -1/17/3 8/0/0");
        assert_eq!(Searched::parse(&searched.to_line()).unwrap(), searched);
        let none = Searched { piece: 7, ways: Vec::new() };
        assert_eq!(none.to_line(), "7");
        assert_eq!(Searched::parse(&none.to_line()).unwrap(), none);
        let carried = Searched {
            piece: 0,
            ways: vec![
                Branch { start: Start::Carried { piece: 40, index: 2 }, placements: placed.clone() },
                Branch { start: Start::Search, placements: placed[..1].to_vec() },
                Branch { start: Start::Carried { piece: 77, index: 0 }, placements: placed[1..].to_vec() },
            ],
        };
        assert_eq!(carried.to_line(), "0 @40:2 -1/17/3 8/0/0 | -1/17/3 | @77:0 8/0/0");
        assert_eq!(Searched::parse(&carried.to_line()).unwrap(), carried);
        for bad in [
            "",
            "x",
            "-3",
            "5 1/2",
            "5 1/2/3/4",
            "5 a/2/3",
            "5 1/2/300",
            "5  1/2/3",
            "5 | 1/2/3",
            "5 1/2/3 |",
            "5 1/2/3 | | 1/2/3",
            "5 @3 1/2/3",
            "5 @a:1 1/2/3",
            "5 @3:-1",
            "5 1/2/3 @3:1",
            "5 @3:1 @4:1",
        ] {
            assert!(Searched::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn bridges_are_whole_games_and_the_splice_with_them_gains() {
        let lines: Vec<Line> = [1.0, 0.9, 1.1, 0.8].iter().map(|&h| game(40, 600, h)).collect();
        let options = Options::new(200, MoveSet::Full, Weights::default());
        let (mut heard, mut found) = (0, 0);
        let mut first_found = None;
        let bridged = bridge(options, &lines, at_the_jumps(30), &[], &mut |attempt, games| {
            heard += 1;
            found += attempt.gain.is_some() as usize;
            assert_eq!(attempt.index + 1, heard);
            assert_eq!(games.len(), found, "one game per bridge found, as they are found");
            if attempt.index == 0 {
                first_found = attempt.gain;
            }
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(bridged.attempts, bridged.plan.jumps.len());
        assert_eq!(bridged.starts, bridged.plan.jumps.len());
        assert_eq!(heard, bridged.attempts);
        assert!(!bridged.games.is_empty(), "these games have bridges between them");
        let before = splice(&lines).unwrap().line.score();
        for game in &bridged.games {
            // A real game: replayed, it scores what it says, board for board, to the end.
            let replayed = Line::new(&game.record());
            assert_eq!(replayed.boards, game.boards);
            assert_eq!(replayed.scores, game.scores);
            assert_eq!(game.pieces(), 600);
        }
        let mut all = lines.clone();
        all.extend(bridged.games.iter().cloned());
        let after = splice(&all).unwrap();
        assert!(after.line.score() > before, "{} against {before}", after.line.score());
        assert_eq!(replay(&after.record()).score, u64::from(after.line.score()));
        // Stopped after the first jump: one search, the same first bridge if any.
        let stopped = bridge(options, &lines, at_the_jumps(30), &[], &mut |_, _| ControlFlow::Break(())).unwrap();
        assert_eq!(stopped.attempts, 1);
        assert_eq!(stopped.games.len(), first_found.is_some() as usize);
        if let Some(game) = stopped.games.first() {
            assert_eq!(game.boards, bridged.games[0].boards);
        }
        // Going on from the searches of the first half of the jumps (not searched again)
        // gives the whole run's games.
        let mut searched = Vec::new();
        let half = bridged.plan.jumps.len() / 2;
        bridge(options, &lines, at_the_jumps(30), &[], &mut |attempt, _| {
            searched.push(Searched { piece: attempt.jump.piece, ways: attempt.ways.clone() });
            if searched.len() == half {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .unwrap();
        let mut read_back = 0;
        let resumed = bridge(options, &lines, at_the_jumps(30), &searched, &mut |attempt, _| {
            read_back += attempt.earlier as usize;
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(read_back, half);
        assert_eq!(resumed.games.len(), bridged.games.len());
        for (resumed, whole) in resumed.games.iter().zip(&bridged.games) {
            assert_eq!(resumed.ops, whole.ops);
        }
        // Searches of another plan are refused.
        let mut moved = searched.clone();
        moved[0].piece += 1;
        assert!(bridge(options, &lines, at_the_jumps(30), &moved, &mut |_, _| ControlFlow::Continue(())).is_err());
        // (A window of 0 pieces is refused where bridgings are made: `the_flags_are_checked_together`.)
    }

    #[test]
    fn bridges_every_n_pieces_start_on_the_splices_game_and_land_on_any_record() {
        let lines: Vec<Line> = [1.0, 0.9, 1.1, 0.8].iter().map(|&h| game(40, 600, h)).collect();
        let options = Options::new(200, MoveSet::Full, Weights::default());
        let spliced = splice(&lines).unwrap();
        let mut pieces = Vec::new();
        let bridging = Bridging { starts: Starts::Every { every: 50, window: 30 }, ..at_the_jumps(30) };
        let bridged = bridge(options, &lines, bridging, &[], &mut |attempt, games| {
            let jump = attempt.jump;
            assert_eq!(jump.piece, 50 * (attempt.index + 1));
            assert_eq!((jump.from, jump.to), (spliced.line.boards[jump.piece], spliced.line.boards[jump.piece]));
            if attempt.gain.is_some() {
                // The game is the splice's up to the start, then the bridge's placements.
                let game = games.last().unwrap();
                assert_eq!(game.scores[jump.piece], spliced.line.scores[jump.piece]);
                assert!(attempt.ways.iter().all(|way| way.start == Start::Search && way.placements.len() <= 30));
                pieces.push(jump.piece);
            }
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(bridged.starts, 11, "pieces 50, 100, ..., 550");
        assert_eq!(bridged.attempts, 11);
        assert!(!pieces.is_empty(), "some start finds a better way onto the records");
        assert_whole_games(&bridged.games);
        assert!(spliced_with(&lines, &bridged.games) > spliced.line.score());
    }
    #[test]
    fn bridges_along_the_detours_start_where_the_plan_leaves_the_splices_game() {
        let lines: Vec<Line> = [1.0, 0.9, 1.1, 0.8].iter().map(|&h| game(40, 600, h)).collect();
        let options = Options::new(200, MoveSet::Full, Weights::default());
        let spliced = splice(&lines).unwrap();
        let plan = plan(&lines).unwrap();
        let off: Vec<usize> = (1..600).filter(|&t| plan.boards[t] != spliced.line.boards[t]).collect();
        assert!(!off.is_empty(), "the plan leaves the splice's game");
        let mut starts = Vec::new();
        let bridging = along_the_detours(5, 0, Aim::Plan);
        let bridged = bridge(options, &lines, bridging, &[], &mut |attempt, _| {
            let jump = attempt.jump;
            // From the plan's board, where it is not the splice's game's, every 5 pieces.
            assert_eq!(jump.piece % 5, 0);
            assert!(off.contains(&jump.piece), "piece {}", jump.piece);
            assert_eq!((jump.from, jump.to), (plan.boards[jump.piece], plan.boards[jump.piece]));
            starts.push(jump.piece);
            ControlFlow::Continue(())
        })
        .unwrap();
        let expected: Vec<usize> = off.iter().copied().filter(|t| t % 5 == 0).collect();
        assert_eq!(starts, expected);
        assert_eq!(bridged.starts, expected.len());
        assert_whole_games(&bridged.games);
        assert!(spliced_with(&lines, &bridged.games) >= spliced.line.score());
        // Within pieces 100..300: only the starts there, searched as in the whole run.
        let mut within = Vec::new();
        let region = Bridging { within: Some((100, 300)), ..bridging };
        bridge(options, &lines, region, &[], &mut |attempt, _| {
            within.push((attempt.jump.piece, attempt.jump.from));
            ControlFlow::Continue(())
        })
        .unwrap();
        let inside: Vec<(usize, Grid)> = starts
            .iter()
            .filter(|&&piece| (100..300).contains(&piece))
            .map(|&piece| (piece, plan.boards[piece]))
            .collect();
        assert_eq!(within, inside);
        // With a lead of 12: also the starts on the game at most 12 pieces before a detour,
        // from the plan's board there (the game's).
        let mut led = Vec::new();
        bridge(options, &lines, along_the_detours(5, 12, Aim::Plan), &[], &mut |attempt, _| {
            led.push((attempt.jump.piece, attempt.jump.from));
            ControlFlow::Continue(())
        })
        .unwrap();
        let expected: Vec<(usize, Grid)> = (5..600)
            .step_by(5)
            .filter(|&t| off.contains(&t) || off.iter().any(|&o| o > t && o <= t + 12))
            .map(|t| (t, plan.boards[t]))
            .collect();
        assert_eq!(led, expected);
        assert!(led.len() > starts.len(), "the lead adds starts on the game");
        assert!(led.iter().any(|&(t, board)| board == spliced.line.boards[t]));
    }

    /// `name` (the manifest's) is what `--aim` spells and `from_name` reads.
    #[test]
    fn the_aims_names_are_the_command_lines() {
        for aim in Aim::ALL {
            assert_eq!(Aim::from_name(aim.name()), Some(aim));
        }
    }

    #[test]
    fn aimed_at_the_game_the_searches_from_the_detours_are_pulled_elsewhere() {
        let lines: Vec<Line> = [1.0, 0.9, 1.1, 0.8].iter().map(|&h| game(40, 600, h)).collect();
        let options = Options::new(200, MoveSet::Full, Weights::default());
        let searched = |bridging: Bridging| {
            let mut placements = Vec::new();
            let bridged = bridge(options, &lines, bridging, &[], &mut |attempt, _| {
                placements.push((attempt.jump.piece, attempt.ways.clone()));
                ControlFlow::Continue(())
            })
            .unwrap();
            assert_whole_games(&bridged.games);
            assert!(spliced_with(&lines, &bridged.games) >= splice(&lines).unwrap().line.score());
            placements
        };
        let along = |aim: Aim| along_the_detours(5, 0, aim);
        let (plan, game) = (searched(along(Aim::Plan)), searched(along(Aim::Game)));
        let either = searched(along(Aim::Either));
        // The same starts, other bridges: the pull is towards other boards.
        let starts = |searches: &[(usize, Vec<Branch>)]| searches.iter().map(|s| s.0).collect::<Vec<_>>();
        assert_eq!(starts(&plan), starts(&game));
        assert_eq!(starts(&plan), starts(&either));
        assert_ne!(plan, game);
        assert_ne!(either, plan);
        assert_ne!(either, game);
        // Without the guide there is no pull, and the aim changes nothing.
        let free = |aim: Aim| Bridging { guide: 0.0, ..along(aim) };
        assert_eq!(searched(free(Aim::Plan)), searched(free(Aim::Game)));
        assert_eq!(searched(free(Aim::Plan)), searched(free(Aim::Either)));
    }

    #[test]
    fn chained_bridges_start_from_and_land_on_the_bridges_before_them() {
        let lines: Vec<Line> = [1.0, 0.9, 1.1, 0.8].iter().map(|&h| game(40, 600, h)).collect();
        let options = Options::new(200, MoveSet::Full, Weights::default());
        let bridging = Bridging { chain: true, ..along_the_detours(5, 0, Aim::Plan) };
        let mut searched = Vec::new();
        let chained = bridge(options, &lines, bridging, &[], &mut |attempt, _| {
            searched.push(Searched { piece: attempt.jump.piece, ways: attempt.ways.clone() });
            ControlFlow::Continue(())
        })
        .unwrap();
        assert!(chained.games.len() >= 2, "{} bridges", chained.games.len());
        // Each game is a real game, and goes through the records and the bridges found before
        // it: every board it has after a piece is one of theirs, except on its own bridge.
        let mut known = lines.clone();
        // Boards only an earlier bridge has: where a chained game started or landed.
        let mut through_a_bridge = false;
        for (index, game) in chained.games.iter().enumerate() {
            assert_eq!(Line::new(&game.record()).scores, game.scores);
            let start = searched.iter().filter(|s| !s.ways.is_empty()).nth(index).unwrap();
            assert_eq!(start.ways.len(), 1, "one way from each start");
            let end = start.piece + start.ways[0].placements.len();
            for t in (0..=start.piece).chain(end..=600) {
                let on_record = lines.iter().any(|line| line.boards[t] == game.boards[t]);
                let on_bridge = known[lines.len()..].iter().any(|line| line.boards[t] == game.boards[t]);
                assert!(on_record || on_bridge, "game {index}, piece {t}");
                through_a_bridge |= !on_record;
            }
            known.push(game.clone());
        }
        assert!(through_a_bridge, "some bridge starts from or lands on an earlier one");
        // The splice with chained bridges is never below the records'.
        let mut all = lines.clone();
        all.extend(chained.games.iter().cloned());
        assert!(splice(&all).unwrap().line.score() >= splice(&lines).unwrap().line.score());
        // A stopped chained run goes on from its searches to the same games.
        let half = searched.len() / 2;
        let resumed =
            bridge(options, &lines, bridging, &searched[..half], &mut |_, _| ControlFlow::Continue(())).unwrap();
        assert_eq!(resumed.games.len(), chained.games.len());
        for (resumed, whole) in resumed.games.iter().zip(&chained.games) {
            assert_eq!(resumed.ops, whole.ops);
        }
    }

    /// Carried within a region: one search from the splice's game's board at the region's
    /// first piece, its ways inside the region, real games never below the splice; a
    /// region past the game's end is refused.
    #[test]
    fn carried_within_a_region_the_search_starts_on_the_game_and_stays_inside() {
        const FIRST: usize = 250;
        const END: usize = 590;
        let lines: Vec<Line> = [1.0, 0.9, 1.1, 0.8].iter().map(|&h| game(40, 600, h)).collect();
        let options = Options::new(10, MoveSet::Full, Weights::default());
        let spliced = splice(&lines).unwrap().line;
        let region =
            Bridging { starts: Starts::Carry { aim: Aim::Plan }, guide: 0.0, within: Some((FIRST, END)), chain: false };
        let mut searched = Vec::new();
        let bridged = bridge(options, &lines, region, &[], &mut |attempt, _| {
            assert_eq!(attempt.jump.from, spliced.boards[FIRST]);
            searched.push(Searched { piece: attempt.jump.piece, ways: attempt.ways.clone() });
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!((bridged.starts, bridged.attempts), (1, 1));
        assert_eq!(searched[0].piece, FIRST);
        assert!(!bridged.games.is_empty(), "the region's search finds ways");
        assert_whole_games(&bridged.games);
        for (way, game) in searched[0].ways.iter().zip(&bridged.games) {
            let after = match way.start {
                Start::Carried { piece, .. } => piece,
                Start::Search => FIRST,
            };
            assert!((FIRST..END).contains(&after) && after + way.placements.len() <= END);
            // Before the way, the game is a record's (or the splice's) game.
            assert!(lines.iter().any(|line| line.boards[after] == game.boards[after]));
        }
        assert!(spliced_with(&lines, &bridged.games) >= spliced.score());
        let past = Bridging { within: Some((600, 700)), ..region };
        assert!(bridge(options, &lines, past, &[], &mut |_, _| ControlFlow::Continue(())).is_err());
    }

    /// Carried: one search over the whole game, each way it keeps a real game from a
    /// record's board onto a later one of another with more points than the records have
    /// there; together never below the splice, the same at any thread count, and a run
    /// stopped after its search (its ways kept) gives the same games.
    #[test]
    fn carried_the_search_goes_on_from_every_records_boards_at_once() {
        let lines: Vec<Line> = [1.0, 0.9, 1.1, 0.8].iter().map(|&h| game(40, 600, h)).collect();
        // A narrower search than the records': its own games are worse than theirs.
        let options = Options::new(10, MoveSet::Full, Weights::default());
        let carrying = Bridging { starts: Starts::Carry { aim: Aim::Plan }, guide: 0.0, ..at_the_jumps(30) };
        let run = |threads: usize, earlier: &[Searched]| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut searched = Vec::new();
            let bridged = pool
                .install(|| {
                    bridge(options, &lines, carrying, earlier, &mut |attempt, _| {
                        searched.push(Searched { piece: attempt.jump.piece, ways: attempt.ways.clone() });
                        ControlFlow::Continue(())
                    })
                })
                .unwrap();
            (bridged, searched)
        };
        let (carried, searched) = run(2, &[]);
        assert_eq!((carried.starts, carried.attempts), (1, 1), "one search, from the empty board");
        assert_eq!(searched[0].piece, 0);
        assert!(!carried.games.is_empty(), "{} ways", carried.games.len());
        assert_whole_games(&carried.games);
        // The search kept holds each way, and reads back as written.
        let ways = &searched[0].ways;
        assert_eq!(Searched::parse(&searched[0].to_line()).unwrap(), searched[0]);
        assert_eq!(ways.len(), carried.games.len());
        let ways_to = ways_in(&lines);
        let mut from_carried = false;
        for (way, game) in ways.iter().zip(&carried.games) {
            // From a carried board or from the empty board.
            let after = match way.start {
                Start::Carried { piece, .. } => piece,
                Start::Search => 0,
            };
            // It starts on a record's board and leaves the records only on its own pieces.
            assert!(ways_to[after].contains_key(&game.boards[after]));
            let landed = after + way.placements.len();
            assert!(lines.iter().any(|line| line.boards[landed] == game.boards[landed]));
            from_carried |= after > 0;
        }
        assert!(from_carried, "some way starts on a carried board");
        let mut all = lines.clone();
        all.extend(carried.games.iter().cloned());
        let spliced = splice(&all).unwrap().line.score();
        assert!(spliced > splice(&lines).unwrap().line.score(), "the ways gain");
        // The same at one thread; the same games from the search kept.
        let (alone, _) = run(1, &[]);
        let (resumed, _) = run(1, &searched);
        for other in [&alone.games, &resumed.games] {
            assert_eq!(other.len(), carried.games.len());
            for (other, game) in other.iter().zip(&carried.games) {
                assert_eq!(other.ops, game.ops);
            }
        }
    }
}
