//! `--moves full`: every placement the game allows. Reachability is a flood fill over
//! (x, y, state) with the game's single steps L, R, D and C, done a row at a time on
//! bitmasks (y never decreases, so one pass from the top is exact). A placement is any
//! reached position that rests on something, plus mid-air ("hover") positions only when
//! the lock clears rows; none may touch the top row. [`shortest_steps`] finds the
//! shortest step list to a placement (a breadth-first search) for the record.

use super::game::{orientations, Grid, Placement, Spawn, FULL_ROW, HEIGHT, SPAWN_X, WIDTH};
use super::record::Op;
use std::collections::VecDeque;

/// For each state (only the first `distinct_states` are filled) and pivot row, the pivot
/// columns where the piece fits.
type Masks = [[u16; HEIGHT]; 4];

/// Pivot rows `y` with `y + 2 < stack_top` only have cells in empty rows, in any state.
const DEEPEST_CELL: usize = 2;

fn fitting_masks(grid: &Grid, spawn: Spawn, stack_top: usize) -> Masks {
    let mut masks = [[0u16; HEIGHT]; 4];
    let table = orientations(spawn.shape);
    for (state, masks) in masks.iter_mut().enumerate().take(spawn.distinct_states()) {
        let orientation = &table[state];
        let columns = (-orientation.left as i32..WIDTH as i32 - orientation.right as i32).fold(0u16, |m, x| m | 1 << x);
        for (y, mask) in masks.iter_mut().enumerate() {
            if y + DEEPEST_CELL < stack_top {
                *mask = columns;
                continue;
            }
            let mut fits = columns;
            for &(dx, dy) in &orientation.cells {
                let row = y as i32 + dy as i32;
                if row >= HEIGHT as i32 {
                    fits = 0;
                    break;
                }
                if row >= 0 {
                    let free = !grid.row(row as usize) & FULL_ROW;
                    fits &= if dx >= 0 { free >> dx } else { (free << -dx) & FULL_ROW };
                }
            }
            *mask = fits;
        }
    }
    masks
}

/// Positions reachable from the spawn, per state and pivot row (bit x = pivot column x).
fn reachable(fits: &Masks, spawn: Spawn, stack_top: usize) -> Masks {
    let distinct = spawn.distinct_states();
    let mut reach = [[0u16; HEIGHT]; 4];
    for y in 0..HEIGHT {
        if y + DEEPEST_CELL < stack_top {
            // Nothing in the way yet: every state turns at the spawn point and every
            // column is reached.
            for s in 0..4 {
                reach[s][y] = fits[s % distinct][y];
            }
            continue;
        }
        let mut row = [0u16; 4];
        if y == 0 {
            row[spawn.state] = fits[spawn.state % distinct][0] & 1 << SPAWN_X;
        } else {
            for s in 0..4 {
                row[s] = reach[s][y - 1] & fits[s % distinct][y];
            }
        }
        loop {
            let before = row;
            for s in 0..4 {
                let free = fits[s % distinct][y];
                let mut m = row[s];
                loop {
                    let grown = (m | m << 1 | m >> 1) & free;
                    if grown == m {
                        break;
                    }
                    m = grown;
                }
                row[s] = m;
            }
            for s in 0..4 {
                let next = (s + 1) % 4;
                row[next] |= row[s] & fits[next % distinct][y];
            }
            if row == before {
                break;
            }
        }
        for s in 0..4 {
            reach[s][y] = row[s];
        }
    }
    reach
}

/// Calls `emit` for every placement of `spawn` on `grid` under the full move set. The
/// placement's state is the smallest equivalent one (`state < distinct_states`).
pub fn placements(grid: &Grid, spawn: Spawn, mut emit: impl FnMut(Placement)) {
    let top = grid.stack_top();
    let fits = fitting_masks(grid, spawn, top);
    let reach = reachable(&fits, spawn, top);
    let distinct = spawn.distinct_states();
    let table = orientations(spawn.shape);
    for (state, orientation) in table.iter().enumerate().take(distinct) {
        for y in 0..HEIGHT {
            if y as i32 + (orientation.top as i32) < 1 {
                continue; // would touch the top row: the game ends unscored
            }
            let here = (state..4).step_by(distinct).fold(0u16, |m, s| m | reach[s][y]);
            if here == 0 {
                continue;
            }
            let below = if y + 1 < HEIGHT { fits[state][y + 1] } else { 0 };
            let mut resting = here & !below;
            while resting != 0 {
                let x = resting.trailing_zeros() as i8;
                resting &= resting - 1;
                emit(Placement { x, y: y as i8, state: state as u8 });
            }
            let hovering = here & below;
            if hovering == 0 {
                continue;
            }
            // A hover is worth locking only when it fills a row: the piece's row j must
            // cover exactly the empty cells of board row y + top + j.
            let mut clearing = 0u16;
            for j in 0..4 {
                let piece_row = orientation.rows[j];
                let row = y as i32 + orientation.top as i32 + j as i32;
                if piece_row == 0 || !(0..HEIGHT as i32).contains(&row) {
                    continue;
                }
                let empty = !grid.row(row as usize) & FULL_ROW;
                if empty == 0 || empty.count_ones() != piece_row.count_ones() {
                    continue;
                }
                let x = empty.trailing_zeros() as i32 + 2 - piece_row.trailing_zeros() as i32;
                if (0..WIDTH as i32).contains(&x) && orientation.row_mask(j, x) == empty {
                    clearing |= 1 << x;
                }
            }
            clearing &= hovering;
            while clearing != 0 {
                let x = clearing.trailing_zeros() as i8;
                clearing &= clearing - 1;
                emit(Placement { x, y: y as i8, state: state as u8 });
            }
        }
    }
}

/// The shortest list of single steps (each `Op` with count 1) from the spawn to the
/// placement (any state with the same cells), or `None` if it is unreachable.
pub fn shortest_steps(grid: &Grid, spawn: Spawn, target: Placement) -> Option<Vec<Op>> {
    let fits = fitting_masks(grid, spawn, grid.stack_top());
    let distinct = spawn.distinct_states();
    let index = |x: i32, y: i32, s: usize| (s * HEIGHT + y as usize) * WIDTH + x as usize;
    let fits_at = |x: i32, y: i32, s: usize| {
        (0..WIDTH as i32).contains(&x)
            && (0..HEIGHT as i32).contains(&y)
            && fits[s % distinct][y as usize] >> x & 1 == 1
    };
    if !fits_at(SPAWN_X, 0, spawn.state) {
        return None;
    }
    let mut previous: Vec<Option<(usize, Op)>> = vec![None; 4 * HEIGHT * WIDTH];
    let mut seen = vec![false; 4 * HEIGHT * WIDTH];
    let start = index(SPAWN_X, 0, spawn.state);
    seen[start] = true;
    let mut queue = VecDeque::from([(SPAWN_X, 0, spawn.state)]);
    while let Some((x, y, s)) = queue.pop_front() {
        let here = index(x, y, s);
        if x == target.x as i32 && y == target.y as i32 && s % distinct == target.state as usize % distinct {
            let mut steps = Vec::new();
            let mut at = here;
            while let Some((from, op)) = previous[at] {
                steps.push(op);
                at = from;
            }
            steps.reverse();
            return Some(steps);
        }
        for (nx, ny, ns, op) in [
            (x, y, (s + 1) % 4, Op::Rotate(1)),
            (x - 1, y, s, Op::Left(1)),
            (x + 1, y, s, Op::Right(1)),
            (x, y + 1, s, Op::Down(1)),
        ] {
            if fits_at(nx, ny, ns) {
                let next = index(nx, ny, ns);
                if !seen[next] {
                    seen[next] = true;
                    previous[next] = Some((here, op));
                    queue.push_back((nx, ny, ns));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etetris::game::Game;
    use crate::etetris::record::{replay_game, Record};

    const I_FLAT: Spawn = Spawn { shape: 0, state: 1 };

    fn all(grid: &Grid, spawn: Spawn) -> Vec<Placement> {
        let mut out = Vec::new();
        placements(grid, spawn, |p| out.push(p));
        out
    }

    #[test]
    fn empty_board_gives_the_drop_placements() {
        // A flat I: pivot columns 1..=7 on the floor; an upright I: columns 0..=9.
        let found = all(&Grid::default(), I_FLAT);
        let flat = found.iter().filter(|p| p.state == 1).count();
        let upright = found.iter().filter(|p| p.state == 0).count();
        assert_eq!((flat, upright), (7, 10), "{found:?}");
        assert!(found.iter().all(|p| p.state == 1 && p.y == 19 || p.state == 0 && p.y == 18));
    }

    #[test]
    fn a_slide_under_an_overhang_is_found_and_replays() {
        let grid = Grid::parse("#####.....\n..........\n").unwrap();
        let target = Placement { x: 1, y: 19, state: 1 };
        assert!(all(&grid, I_FLAT).contains(&target));
        let steps = shortest_steps(&grid, I_FLAT, target).unwrap();
        let mut record = Record::default();
        record.push_piece(&steps);
        let result = replay_game(&record, Game::custom(grid, vec![I_FLAT]));
        let expected = Grid::parse("#####.....\n####......\n").unwrap();
        assert_eq!(result.grid, expected, "{record}");
    }

    #[test]
    fn hover_locks_only_when_they_clear_rows() {
        // Row 18 misses column 4 and row 19 is empty: an upright I hovering with its
        // bottom in row 18 clears it; other hovers are not offered.
        let grid = Grid::parse("####.#####\n..........\n").unwrap();
        let upright = Spawn { shape: 0, state: 0 };
        let found = all(&grid, upright);
        let hover = Placement { x: 4, y: 17, state: 0 };
        let resting = Placement { x: 4, y: 18, state: 0 };
        assert!(found.contains(&hover) && found.contains(&resting), "{found:?}");
        for p in &found {
            let orientation = &orientations(0)[p.state as usize];
            let can_fall = grid.fits(orientation, p.x as i32, p.y as i32 + 1);
            if can_fall {
                let mut after = grid;
                assert!(after.lock(orientation, p.x as i32, p.y as i32).rows > 0, "{p:?} hovers without clearing");
            }
        }
        let steps = shortest_steps(&grid, upright, hover).unwrap();
        let mut record = Record::default();
        record.push_piece(&steps);
        let result = replay_game(&record, Game::custom(grid, vec![upright]));
        assert_eq!(result.score, 4 + 9, "one row of 13 cells");
        // Row 18 cleared; the I's other three cells moved down one row, over an empty row.
        assert_eq!(result.grid, Grid::parse("....#.....\n....#.....\n....#.....\n..........\n").unwrap());
    }

    /// The same reachability by a plain search over `Grid::fits`, as a cross-check.
    fn resting_by_search(grid: &Grid, spawn: Spawn) -> Vec<Placement> {
        let table = orientations(spawn.shape);
        let distinct = spawn.distinct_states();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![(SPAWN_X, 0, spawn.state)];
        let mut found = std::collections::BTreeSet::new();
        while let Some((x, y, s)) = stack.pop() {
            if !grid.fits(&table[s], x, y) || !seen.insert((x, y, s)) {
                continue;
            }
            if !grid.fits(&table[s], x, y + 1) && y + table[s].top as i32 >= 1 {
                found.insert((x as i8, y as i8, (s % distinct) as u8));
            }
            stack.extend([(x - 1, y, s), (x + 1, y, s), (x, y + 1, s), (x, y, (s + 1) % 4)]);
        }
        found.into_iter().map(|(x, y, state)| Placement { x, y, state }).collect()
    }

    #[test]
    fn resting_placements_match_a_plain_search_on_rough_boards() {
        let mut random = 0x2545_f491_4f6c_dd1du64;
        let mut at_depth = 0;
        for board in 0..40 {
            let mut rows = [0u16; HEIGHT];
            for row in rows.iter_mut().skip(8 + board % 6) {
                random ^= random << 13;
                random ^= random >> 7;
                random ^= random << 17;
                *row = (random as u16) & FULL_ROW & !(1 << ((random >> 40) % 10));
            }
            let grid = Grid::from_rows(&rows);
            for shape in 0..7 {
                let spawn = Spawn { shape, state: board % 4 };
                let mut fast: Vec<Placement> = all(&grid, spawn)
                    .into_iter()
                    .filter(|p| !grid.fits(&orientations(shape)[p.state as usize], p.x as i32, p.y as i32 + 1))
                    .collect();
                fast.sort_by_key(|p| (p.x, p.y, p.state));
                let mut slow = resting_by_search(&grid, spawn);
                slow.sort_by_key(|p| (p.x, p.y, p.state));
                assert_eq!(fast, slow, "board {board} shape {shape}{grid:?}");
                for p in &fast {
                    let steps = shortest_steps(&grid, spawn, *p).unwrap();
                    let first_down = steps.iter().position(|op| *op == Op::Down(1)).unwrap_or(0);
                    at_depth += steps[first_down..].contains(&Op::Rotate(1)) as usize;
                }
            }
        }
        assert!(at_depth > 0, "some placement needs a rotation after the piece went down");
    }
}
