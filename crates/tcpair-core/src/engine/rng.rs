//! Named random streams.
//!
//! Each component (a link direction's error model, its reorderer, ...) draws
//! from its own stream whose seed is a hash of the run seed and the stream's
//! name. Adding a component therefore never shifts another component's
//! randomness, and results do not depend on event interleaving across
//! components.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The generator type used everywhere in the simulator. Xoshiro256++ has a
/// documented, version-stable output sequence (unlike `rand::rngs::StdRng`).
pub type SimRng = Xoshiro256PlusPlus;

/// A stream's name, e.g. `"link/wless/fwd/loss"`.
pub type StreamName<'a> = &'a str;

/// 64-bit FNV-1a of the name, mixed with the run seed through SplitMix64.
pub fn stream_seed(run_seed: u64, name: StreamName<'_>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    splitmix64(run_seed ^ splitmix64(h))
}

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A fresh generator for stream `name` of run `run_seed`.
pub fn stream(run_seed: u64, name: StreamName<'_>) -> SimRng {
    SimRng::seed_from_u64(stream_seed(run_seed, name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn streams_are_independent_of_each_other_and_stable() {
        let a1: u64 = stream(7, "a").gen();
        let a2: u64 = stream(7, "a").gen();
        let b: u64 = stream(7, "b").gen();
        let a_other_seed: u64 = stream(8, "a").gen();
        assert_eq!(a1, a2);
        assert_ne!(a1, b);
        assert_ne!(a1, a_other_seed);
    }
}
