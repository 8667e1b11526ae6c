//! Quantities with units, as written in scenario files: a bare number in SI
//! base units (bits/s, seconds) or a string such as "10Mb", "2 Mb/s",
//! "64us", "10ms".

use serde::{Deserialize, Serialize};

/// A number, or a string with a unit.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Quantity {
    Num(f64),
    Text(String),
}

fn split_num(s: &str) -> Option<(f64, String)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-')))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // "1e" followed by a unit letter would be ambiguous; numbers come first.
    let (num, unit) = s.split_at(end);
    let v: f64 = num.trim().parse().ok()?;
    Some((v, unit.trim().to_ascii_lowercase()))
}

impl Quantity {
    /// Bits per second.
    pub fn as_bps(&self) -> Result<f64, String> {
        match self {
            Quantity::Num(v) => Ok(*v),
            Quantity::Text(s) => {
                let (v, unit) = split_num(s).ok_or_else(|| {
                    format!("cannot read bandwidth {s:?}; write e.g. 10e6, \"10Mb\" or \"2 Mb/s\"")
                })?;
                let unit = unit
                    .trim_end_matches("/s")
                    .trim_end_matches("ps")
                    .trim_end_matches("it");
                let mult = match unit {
                    "" | "b" => 1.0,
                    "k" | "kb" => 1e3,
                    "m" | "mb" => 1e6,
                    "g" | "gb" => 1e9,
                    _ => {
                        return Err(format!(
                        "unknown bandwidth unit in {s:?}; use b, kb, Mb or Gb (bits per second)"
                    ))
                    }
                };
                Ok(v * mult)
            }
        }
    }

    /// Seconds.
    pub fn as_secs(&self) -> Result<f64, String> {
        match self {
            Quantity::Num(v) => Ok(*v),
            Quantity::Text(s) => {
                let (v, unit) = split_num(s).ok_or_else(|| {
                    format!("cannot read duration {s:?}; write e.g. 0.01, \"10ms\" or \"64us\"")
                })?;
                let mult = match unit.as_str() {
                    "" | "s" => 1.0,
                    "ms" => 1e-3,
                    "us" | "µs" => 1e-6,
                    "ns" => 1e-9,
                    _ => return Err(format!("unknown time unit in {s:?}; use s, ms, us or ns")),
                };
                Ok(v * mult)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        let q = |s: &str| Quantity::Text(s.into());
        assert_eq!(q("10Mb").as_bps().unwrap(), 10e6);
        assert_eq!(q("2 Mb/s").as_bps().unwrap(), 2e6);
        assert_eq!(q("11Mbps").as_bps().unwrap(), 11e6);
        assert_eq!(q("500kbit").as_bps().unwrap(), 500e3);
        assert_eq!(Quantity::Num(1e6).as_bps().unwrap(), 1e6);
        assert_eq!(q("10ms").as_secs().unwrap(), 0.01);
        assert!((q("64us").as_secs().unwrap() - 64e-6).abs() < 1e-18);
        assert_eq!(q("1.5s").as_secs().unwrap(), 1.5);
        assert!(q("10 parsecs").as_secs().is_err());
        assert!(q("fast").as_bps().is_err());
    }
}
