//! Piece generators, all seeded: i.i.d. uniform, 7-bag, and the 7-term bot's "no triple"
//! generator on a faithful `java.util.Random`. Games draw their seed from a master seed with
//! [`game_seed`], so a batch gives the same games at any thread count.

use crate::piece::Piece;

/// SplitMix64 step: the standard way to turn one seed into well-mixed 64-bit values.
#[inline]
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of game `index` of a batch with master seed `master`: a pure function of the
/// two, so which thread plays a game never changes it. The CSV records each game's seed.
pub fn game_seed(master: u64, index: u64) -> u64 {
    let mut s = master ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03);
    splitmix64(&mut s)
}

/// xoshiro256** (Blackman and Vigna): small, fast and with a fixed definition, so seeded
/// games stay the same across crate versions (unlike `rand::rngs::SmallRng`).
#[derive(Clone, Debug)]
pub struct Xoshiro256 {
    s: [u64; 4],
}

impl Xoshiro256 {
    pub fn new(seed: u64) -> Xoshiro256 {
        let mut sm = seed;
        Xoshiro256 { s: [splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm)] }
    }
    /// The generator in a given state (not all zero), as the reference implementation is
    /// tested: [`Xoshiro256::new`] fills the state with SplitMix64.
    pub fn from_state(s: [u64; 4]) -> Xoshiro256 {
        Xoshiro256 { s }
    }
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }
    /// Uniform integer in `0..bound` without bias (Lemire's multiply-and-reject).
    #[inline]
    pub fn below(&mut self, bound: u64) -> u64 {
        let threshold = bound.wrapping_neg() % bound;
        loop {
            let m = (self.next_u64() as u128) * (bound as u128);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }
    /// Uniform real in [0, 1).
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// `java.util.Random`, bit for bit: a 48-bit LCG; `next_int(bound)` with Java's rejection.
#[derive(Clone, Debug)]
pub struct JavaRandom {
    seed: u64,
}

impl JavaRandom {
    const MULTIPLIER: u64 = 0x5_DEEC_E66D;
    const ADDEND: u64 = 0xB;
    const MASK: u64 = (1 << 48) - 1;

    /// `new Random(seed)`.
    pub fn new(seed: i64) -> JavaRandom {
        JavaRandom { seed: (seed as u64 ^ Self::MULTIPLIER) & Self::MASK }
    }
    /// `next(bits)`.
    pub fn next(&mut self, bits: u32) -> i32 {
        self.seed = (self.seed.wrapping_mul(Self::MULTIPLIER).wrapping_add(Self::ADDEND)) & Self::MASK;
        (self.seed >> (48 - bits)) as i64 as i32
    }
    /// `nextInt(bound)`, bound > 0.
    pub fn next_int(&mut self, bound: i32) -> i32 {
        assert!(bound > 0);
        let mut r = self.next(31);
        let m = bound - 1;
        if bound & m == 0 {
            return ((bound as i64 * r as i64) >> 31) as i32;
        }
        let mut u = r;
        loop {
            r = u % bound;
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return r;
            }
            u = self.next(31);
        }
    }
    /// `nextInt()`.
    pub fn next_int_unbounded(&mut self) -> i32 {
        self.next(32)
    }
}

/// Which piece generator a rule set uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RandomizerKind {
    /// Independent uniform draws over the seven pieces.
    Uniform,
    /// Shuffled bags of the seven pieces (Fisher-Yates).
    SevenBag,
    /// Uniform, redrawn while equal to both previous pieces, on `java.util.Random`; the
    /// table maps `nextInt(7)` to pieces in the original program's order.
    NoTriple { order: [Piece; 7] },
}

impl RandomizerKind {
    /// The seed of game `index` of a batch with master seed `master`. A `java.util.Random`
    /// seed is the original program's own: game `i` of master seed `S` is `new Random(S + i)`
    /// (the `u64` read as Java's `long`, so the original's int seed `-k` is `2^64 - k`), so
    /// `--seed S --games 1` replays the original's game `S`. Other generators mix the two
    /// with [`game_seed`].
    pub fn game_seed(self, master: u64, index: u64) -> u64 {
        match self {
            RandomizerKind::NoTriple { .. } => master.wrapping_add(index),
            RandomizerKind::Uniform | RandomizerKind::SevenBag => game_seed(master, index),
        }
    }
}

/// A seeded piece stream.
#[derive(Clone, Debug)]
pub enum Randomizer {
    Uniform(Xoshiro256),
    SevenBag { rng: Xoshiro256, bag: [Piece; 7], next: usize },
    NoTriple { rng: JavaRandom, order: [Piece; 7], previous: [Option<Piece>; 2] },
}

impl Randomizer {
    pub fn new(kind: RandomizerKind, seed: u64) -> Randomizer {
        match kind {
            RandomizerKind::Uniform => Randomizer::Uniform(Xoshiro256::new(seed)),
            RandomizerKind::SevenBag => Randomizer::SevenBag { rng: Xoshiro256::new(seed), bag: Piece::ALL, next: 7 },
            RandomizerKind::NoTriple { order } => {
                Randomizer::NoTriple { rng: JavaRandom::new(seed as i64), order, previous: [None, None] }
            }
        }
    }

    /// The next piece.
    #[inline]
    pub fn next_piece(&mut self) -> Piece {
        match self {
            Randomizer::Uniform(rng) => Piece::from_index(rng.below(7) as usize),
            Randomizer::SevenBag { rng, bag, next } => {
                if *next == 7 {
                    *bag = Piece::ALL;
                    for i in (1..7).rev() {
                        let j = rng.below(i as u64 + 1) as usize;
                        bag.swap(i, j);
                    }
                    *next = 0;
                }
                *next += 1;
                bag[*next - 1]
            }
            Randomizer::NoTriple { rng, order, previous } => loop {
                let piece = order[rng.next_int(7) as usize];
                if previous[0] == Some(piece) && previous[1] == Some(piece) {
                    continue;
                }
                previous[0] = previous[1];
                previous[1] = Some(piece);
                return piece;
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_the_reference_implementation() {
        // The first outputs for seed 1477776061723855037 of Vigna's splitmix64.c, as the test
        // `reference` of the rand_xoshiro crate (src/splitmix64.rs) lists them.
        let mut state = 1_477_776_061_723_855_037;
        let expected =
            [1985237415132408290, 2979275885539914483, 13511426838097143398, 8488337342461049707, 15141737807933549159];
        for (i, want) in expected.into_iter().enumerate() {
            assert_eq!(splitmix64(&mut state), want, "output {i}");
        }
    }

    #[test]
    fn xoshiro256_matches_the_reference_implementation() {
        // The first ten outputs of xoshiro256** from the state {1, 2, 3, 4}, as the test
        // `reference` of the rand_xoshiro crate (src/xoshiro256starstar.rs) lists them from
        // Blackman and Vigna's reference code.
        let mut rng = Xoshiro256::from_state([1, 2, 3, 4]);
        let expected = [
            11520,
            0,
            1509978240,
            1215971899390074240,
            1216172134540287360,
            607988272756665600,
            16172922978634559625,
            8476171486693032832,
            10595114339597558777,
            2904607092377533576,
        ];
        for (i, want) in expected.into_iter().enumerate() {
            assert_eq!(rng.next_u64(), want, "output {i}");
        }
        // And the seeding is SplitMix64's first four outputs.
        let (mut seeded, mut state) = (Xoshiro256::new(1_477_776_061_723_855_037), 1_477_776_061_723_855_037);
        let words = [(); 4].map(|_| splitmix64(&mut state));
        assert_eq!(seeded.next_u64(), Xoshiro256::from_state(words).next_u64());
    }

    #[test]
    fn java_random_matches_the_jdk() {
        // Values printed by OpenJDK 17: new Random(42).nextInt(), nextInt(7) x3, nextInt(16).
        let mut r = JavaRandom::new(42);
        assert_eq!(r.next_int_unbounded(), -1170105035);
        let mut r = JavaRandom::new(42);
        assert_eq!([r.next_int(7), r.next_int(7), r.next_int(7)], [1, 5, 6]);
        let mut r = JavaRandom::new(0);
        assert_eq!(r.next_int(16), 11);
    }

    #[test]
    fn seven_bag_deals_each_piece_once_per_bag() {
        let mut r = Randomizer::new(RandomizerKind::SevenBag, 9);
        for _ in 0..50 {
            let mut seen = [false; 7];
            for _ in 0..7 {
                let p = r.next_piece();
                assert!(!seen[p.index()]);
                seen[p.index()] = true;
            }
        }
    }

    #[test]
    fn uniform_is_roughly_uniform_and_seeded() {
        let mut a = Randomizer::new(RandomizerKind::Uniform, 5);
        let mut b = Randomizer::new(RandomizerKind::Uniform, 5);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            let p = a.next_piece();
            assert_eq!(p, b.next_piece());
            counts[p.index()] += 1;
        }
        assert!(counts.iter().all(|&c| (9_500..10_500).contains(&c)), "{counts:?}");
    }

    #[test]
    fn java_seeds_are_the_original_seeds() {
        let kind = RandomizerKind::NoTriple { order: Piece::ALL };
        assert_eq!(kind.game_seed(42, 0), 42);
        assert_eq!(kind.game_seed(42, 3), 45);
        assert_eq!(kind.game_seed(u64::MAX, 1), 0);
        // The original's `new Random(-1)` is the u64 seed 2^64 - 1 (OpenJDK 17: 3, 6, 4).
        let mut r = JavaRandom::new(kind.game_seed(u64::MAX, 0) as i64);
        assert_eq!([r.next_int(7), r.next_int(7), r.next_int(7)], [3, 6, 4]);
        assert_ne!(RandomizerKind::Uniform.game_seed(42, 0), 42);
    }

    #[test]
    fn no_triple_never_deals_three_alike() {
        let mut r = Randomizer::new(RandomizerKind::NoTriple { order: Piece::ALL }, 3);
        let seq: Vec<Piece> = (0..10_000).map(|_| r.next_piece()).collect();
        assert!(seq.windows(3).all(|w| !(w[0] == w[1] && w[1] == w[2])));
    }
}
