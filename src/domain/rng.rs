//! The tournament's verifiable random source.
//!
//! Every random choice of a draw (seating, seat order, starting player, lots) comes from one
//! [`DrawRng`], a ChaCha20 stream (`rand_chacha::ChaCha20Rng`, the 20-round ChaCha cipher of
//! RFC 8439 used as a keystream, keyed by a 32-byte seed). The HTTP layer publishes the SHA-256
//! of the seed before a round is drawn and the seed itself when the round is published, so
//! anyone can recompute the draw.
//!
//! Portability: we do not use `rand`'s distributions (their algorithms may change between
//! versions). The only primitive is `next_u64` of the ChaCha20 stream, and the two derived
//! operations are written out here:
//! - [`DrawRng::below`]`(n)`: unbiased integer in `0..n` by rejection: draw `x = next_u64()`,
//!   reject while `x >= zone` where `zone = 2^64 - (2^64 mod n)`, return `x mod n`.
//! - [`DrawRng::shuffle`]: Fisher-Yates from the back: for `i` from `len-1` down to `1`, swap
//!   element `i` with element `below(i + 1)`.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// A 32-byte draw seed.
pub type Seed = [u8; 32];

/// The seeded random source every draw uses. See the module docs for the exact algorithm.
#[derive(Debug, Clone)]
pub struct DrawRng {
    inner: ChaCha20Rng,
}

impl DrawRng {
    /// A random source keyed by `seed`.
    pub fn from_seed(seed: Seed) -> Self {
        Self {
            inner: ChaCha20Rng::from_seed(seed),
        }
    }

    /// Parses a seed written as 64 hex digits.
    pub fn seed_from_hex(hex: &str) -> Option<Seed> {
        let bytes = hex.as_bytes();
        if bytes.len() != 64 {
            return None;
        }
        let mut seed = [0u8; 32];
        for (i, pair) in bytes.chunks(2).enumerate() {
            let s = std::str::from_utf8(pair).ok()?;
            seed[i] = u8::from_str_radix(s, 16).ok()?;
        }
        Some(seed)
    }

    /// Writes a seed as 64 lowercase hex digits.
    pub fn seed_to_hex(seed: &Seed) -> String {
        seed.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The next 64 bits of the ChaCha20 stream.
    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// An unbiased integer in `0..n`. Panics if `n == 0` (a caller bug, never user input).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "DrawRng::below(0)");
        let zone = u64::MAX - (u64::MAX % n + 1) % n;
        loop {
            let x = self.next_u64();
            if x <= zone {
                return x % n;
            }
        }
    }

    /// An index in `0..len` (convenience over [`DrawRng::below`]).
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// Shuffles `items` in place (Fisher-Yates from the back).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.index(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_is_reproducible() {
        let mut a = DrawRng::from_seed([7; 32]);
        let mut b = DrawRng::from_seed([7; 32]);
        for n in 1..200u64 {
            let x = a.below(n);
            assert!(x < n);
            assert_eq!(x, b.below(n));
        }
    }

    #[test]
    fn golden_stream_is_pinned() {
        // Pins the ChaCha20 stream and the shuffle algorithm: if this changes, every published
        // draw becomes unverifiable.
        let mut rng = DrawRng::from_seed([0; 32]);
        let mut v: Vec<u32> = (1..=10).collect();
        rng.shuffle(&mut v);
        let first = DrawRng::from_seed([0; 32]).next_u64();
        assert_eq!(first, 10393729187455219830);
        assert_eq!(v, GOLDEN_SHUFFLE.to_vec());
    }

    const GOLDEN_SHUFFLE: [u32; 10] = [10, 8, 4, 7, 2, 5, 9, 6, 3, 1];

    #[test]
    fn hex_round_trip() {
        let seed: Seed = core::array::from_fn(|i| i as u8 * 7);
        let hex = DrawRng::seed_to_hex(&seed);
        assert_eq!(hex.len(), 64);
        assert_eq!(DrawRng::seed_from_hex(&hex), Some(seed));
        assert_eq!(DrawRng::seed_from_hex("zz"), None);
    }
}
