//! `f64::floor` and `f64::round` without the call into the maths library
//! that they are on a target without SSE4.1 (the default x86-64 target):
//! the sender takes the floor of its window on every ACK, and Snoop rounds
//! its timeout on every packet. A positive value below 2^52 converts to an
//! integer exactly by truncation; anything else (0, -0, negatives, NaN,
//! huge values) is left to the library. Both give the library's result bit
//! for bit (proptests below).

/// 2^52: from here on every `f64` is an integer.
const EXACT: f64 = 4_503_599_627_370_496.0;

/// `x.floor()`.
#[inline]
pub fn floor(x: f64) -> f64 {
    if x > 0.0 && x < EXACT {
        (x as i64) as f64
    } else {
        x.floor()
    }
}

/// `x.round()` (halves away from zero).
#[inline]
pub fn round(x: f64) -> f64 {
    if x > 0.0 && x < EXACT {
        let t = (x as i64) as f64;
        // x - t is exact: both lie in the same binade or t is 0.
        if x - t >= 0.5 {
            t + 1.0
        } else {
            t
        }
    } else {
        x.round()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const EDGES: [f64; 10] = [
        -0.0,
        0.0,
        0.5,
        0.49999999999999994,
        1.5,
        2.5,
        4_503_599_627_370_495.5,
        4_503_599_627_370_496.0,
        f64::MIN_POSITIVE,
        f64::INFINITY,
    ];

    proptest! {
        #[test]
        fn floor_and_round_are_the_library_s(bits in any::<u64>(), small in -1e6f64..1e6) {
            for x in EDGES.into_iter().chain([f64::from_bits(bits), small, small + 0.5]) {
                prop_assert_eq!(floor(x).to_bits(), x.floor().to_bits(), "floor {}", x);
                prop_assert_eq!(round(x).to_bits(), x.round().to_bits(), "round {}", x);
            }
        }
    }
}
