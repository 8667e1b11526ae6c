//! `list { drop = [n, ...] }`: the packets numbered `n` (counted from 0 in
//! the order they reach the model) are lost, and no other. ns-2's
//! `ErrorModel/List` in packet units does the same; ns-3 calls it a
//! "receive list" error model. It makes a loss pattern exact: a unit test
//! that kills segment N, or two simulators fed the same pattern so that
//! their runs can be compared event by event (docs/validation.md).

use super::{ErrorModel, ModelInfo};
use crate::engine::{SimRng, Time};
use crate::error::{from_value, ConfigError};
use serde::Deserialize;

pub const INFO: ModelInfo = ModelInfo {
    name: "list",
    summary: "the packets numbered in `drop` (from 0, in arrival order) are lost",
    build,
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListConfig {
    drop: Vec<serde_json::Value>,
}

/// The drop list and how far the model has counted.
#[derive(Debug, Clone)]
pub struct List {
    drop: Vec<u64>,
    /// Index of the next entry of `drop` still to come.
    next: usize,
    /// Packets seen so far.
    seen: u64,
}

impl List {
    /// `drop` must be strictly increasing (each packet number once).
    pub fn new(drop: Vec<u64>) -> Result<Self, ConfigError> {
        if let Some(i) = drop.windows(2).position(|w| w[1] <= w[0]) {
            return Err(ConfigError::new(
                format!("drop[{}]", i + 1),
                format!(
                    "packet numbers must be strictly increasing, got {} after {}",
                    drop[i + 1],
                    drop[i]
                ),
            ));
        }
        Ok(Self {
            drop,
            next: 0,
            seen: 0,
        })
    }
}

fn number(i: usize, v: &serde_json::Value) -> Result<u64, ConfigError> {
    v.as_u64().ok_or_else(|| {
        ConfigError::new(
            format!("drop[{i}]"),
            format!("must be a packet number (an integer >= 0), got {v}"),
        )
    })
}

fn build(v: &serde_json::Value) -> Result<Box<dyn ErrorModel>, ConfigError> {
    let c: ListConfig = from_value(v)?;
    let drop = c
        .drop
        .iter()
        .enumerate()
        .map(|(i, v)| number(i, v))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Box::new(List::new(drop)?))
}

impl ErrorModel for List {
    #[inline]
    fn is_lost(&mut self, _now: Time, _size: u32, _rng: &mut SimRng) -> bool {
        let n = self.seen;
        self.seen += 1;
        let lost = self.drop.get(self.next) == Some(&n);
        if lost {
            self.next += 1;
        }
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream;
    use serde_json::json;

    #[test]
    fn loses_exactly_the_listed_packets() {
        let mut m = build(&json!({"drop": [0, 3, 4, 9]})).unwrap();
        let mut rng = stream(1, "t");
        let which: Vec<u64> = (0..12u64)
            .filter(|_| m.is_lost(0, 1000, &mut rng))
            .collect();
        assert_eq!(which, vec![0, 3, 4, 9]);
    }

    #[test]
    fn an_empty_list_loses_nothing() {
        let mut m = build(&json!({"drop": []})).unwrap();
        let mut rng = stream(1, "t");
        assert!((0..100).all(|_| !m.is_lost(0, 40, &mut rng)));
    }

    #[test]
    fn errors_name_the_entry() {
        let e = build(&json!({"drop": [1, 5, 5]})).unwrap_err();
        assert_eq!(e.path, "drop[2]");
        assert!(e.message.contains("increasing"), "{e}");
        let e = build(&json!({"drop": [1, -2]})).unwrap_err();
        assert_eq!(e.path, "drop[1]");
        let e = build(&json!({"drop": [1.5]})).unwrap_err();
        assert_eq!(e.path, "drop[0]");
        let e = build(&json!({})).unwrap_err();
        assert!(e.to_string().contains("drop"), "{e}");
    }
}
