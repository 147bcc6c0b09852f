//! The rollout states of CBMPI and DPI: boards from a good behaviour policy's games (the
//! papers use the DU controller, here BCTS as MdpTetris plays it), subsampled so that every
//! stack height is about as common ("to flatten the height distribution"): a good policy's
//! own games are mostly low boards, while its rollouts must also learn what to do high up.
//! The behaviour games are not counted as samples: the papers' budgets leave them out.

use super::World;
use crate::board::Board;
use crate::placement::PlacementInfo;
use crate::policy::{GameView, Policy, Scratch};
use crate::randomizer::{game_seed, Xoshiro256};
use rayon::prelude::*;

/// Behaviour games played at a time (a fixed number, so that the states do not depend on
/// the thread count).
const GAMES_PER_ROUND: u64 = 8;
/// Pieces a behaviour game may last: a good policy's games on a small board are long, and
/// a few long games would give few different states.
const MAX_PIECES_PER_GAME: u64 = 20_000;
/// The pool holds this many states per state drawn, so the high boards have enough.
const POOL_PER_STATE: usize = 8;

/// An after-state: the board a placement left (full rows removed) and what it did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct State {
    pub board: Board,
    pub info: PlacementInfo,
}

/// One behaviour game's after-states.
fn behaviour_game(world: &World, behaviour: &dyn Policy, seed: u64) -> Vec<State> {
    let rules = world.rules.as_ref();
    let mut board = rules.new_board();
    let mut pieces = world.pieces(seed);
    let mut scratch = Scratch::default();
    let mut states = Vec::new();
    for _ in 0..MAX_PIECES_PER_GAME {
        let piece = pieces.next_piece();
        if !rules.can_spawn(&board, piece) {
            break;
        }
        let view = GameView { board: &board, current: piece, preview: &[], hold: None, can_hold: false };
        let Some(decision) = behaviour.choose(rules, &view, &mut scratch) else { break };
        let outcome = rules.lock(&mut board, &decision.placement);
        if outcome.game_over {
            break;
        }
        states.push(State { board, info: outcome.info });
    }
    states
}

/// `count` states drawn from `behaviour`'s games (seeded from `seed`), heights flattened:
/// the pool's states are grouped by stack height, each group shuffled, and the groups
/// taken from in turn, lowest height first, until `count` are drawn.
pub fn draw(world: &World, behaviour: &dyn Policy, count: usize, seed: u64) -> Vec<State> {
    let height = world.rules.new_board().height();
    let mut groups: Vec<Vec<State>> = vec![Vec::new(); height + 1];
    let wanted = count * POOL_PER_STATE;
    let (mut pooled, mut round) = (0, 0);
    while pooled < wanted {
        let games: Vec<Vec<State>> = (round * GAMES_PER_ROUND..(round + 1) * GAMES_PER_ROUND)
            .into_par_iter()
            .map(|index| behaviour_game(world, behaviour, game_seed(seed, index)))
            .collect();
        for state in games.into_iter().flatten() {
            groups[state.board.max_height().min(height)].push(state);
            pooled += 1;
        }
        round += 1;
    }
    let mut random = Xoshiro256::new(game_seed(seed, u64::MAX));
    for group in &mut groups {
        // Fisher-Yates.
        for i in (1..group.len()).rev() {
            let j = random.below(i as u64 + 1) as usize;
            group.swap(i, j);
        }
    }
    let mut states = Vec::with_capacity(count);
    let mut taken = 0;
    while states.len() < count {
        for group in &groups {
            if let Some(state) = group.get(taken) {
                states.push(*state);
                if states.len() == count {
                    break;
                }
            }
        }
        taken += 1;
    }
    states
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heights_are_flattened_and_the_draw_is_seeded() {
        let world = World::new(crate::rules::build("simplified", Some((6, 8))).unwrap()).unwrap();
        let behaviour = crate::presets::find("bcts-mdptetris").unwrap().build(Some((6, 8)), None).unwrap().policy;
        let states = draw(&world, behaviour.as_ref(), 400, 7);
        assert_eq!(states.len(), 400);
        assert_eq!(world.samples(), 0, "behaviour games are not samples");
        let mut counts = [0usize; 9];
        for s in &states {
            counts[s.board.max_height()] += 1;
        }
        // Every height 1..=6 the pool holds is drawn about equally often: a good policy's own
        // games would be mostly low.
        let drawn: Vec<usize> = counts[1..7].to_vec();
        assert!(drawn.iter().all(|&c| c > 0), "{counts:?}");
        assert!(drawn.iter().max().unwrap() - drawn.iter().min().unwrap() <= 400 / 6, "{counts:?}");
        let again = draw(&world, behaviour.as_ref(), 400, 7);
        assert_eq!(again, states);
        let other = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        assert_eq!(other.install(|| draw(&world, behaviour.as_ref(), 400, 7)), states);
    }
}
