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

/// The number and the unit text after it (unit trimmed, case kept).
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
    Some((v, unit.trim().to_string()))
}

/// Rate units, as in ns-3's `DataRate`: a decimal prefix (none, `k`/`K`,
/// `M`, `G`), then bits (`b`, `bit`, `bits`, `bps`, `b/s`, `bit/s`,
/// `bits/s`) or bytes (`B`, `Bps`, `B/s`), so `1MBps` is 8e6 bit/s.
/// Case matters for `b` (bits) versus `B` (bytes) and for `M`; a bare
/// prefix (`10M`) is rejected as ambiguous.
pub const RATE_UNITS: &str =
    "b, bit, bits, bps, b/s, bit/s, bits/s (bits) or B, Bps, B/s (bytes), \
after a prefix k, K, M or G (e.g. \"10Mb/s\", \"1MBps\" = 8 Mb/s)";

fn rate_multiplier(unit: &str) -> Option<f64> {
    let (scale, rest) = match unit.chars().next() {
        Some('k' | 'K') => (1e3, &unit[1..]),
        Some('M') => (1e6, &unit[1..]),
        Some('G') => (1e9, &unit[1..]),
        _ => (1.0, unit),
    };
    let per_bit = match rest.trim() {
        "" if scale == 1.0 => 1.0,
        "b" | "bit" | "bits" | "bps" | "b/s" | "bit/s" | "bits/s" => 1.0,
        "B" | "Bps" | "B/s" => 8.0,
        _ => return None,
    };
    Some(scale * per_bit)
}

/// Time units: `s`, `ms`, `us` (or `µs`), `ns`, in any letter case.
pub const TIME_UNITS: &str = "s, ms, us (or µs) or ns";

fn time_multiplier(unit: &str) -> Option<f64> {
    Some(match unit.to_lowercase().as_str() {
        "" | "s" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" | "μs" => 1e-6,
        "ns" => 1e-9,
        _ => return None,
    })
}

/// Size units: `B` (bytes), `kB`/`KB` (10^3 bytes), `KiB` (1024 bytes).
pub const SIZE_UNITS: &str = "B, kB, KB (1000 bytes) or KiB (1024 bytes)";

/// 2^64, the first whole number a `u64` cannot hold.
const TWO_TO_64: f64 = 18_446_744_073_709_551_616.0;

/// Bytes in a size written as a whole number or a string with a unit. Any
/// whole number of bytes is read: the field's own check says what range it
/// takes (a packet's size: at most 65535), so that the message for a size too
/// large for any field gives that range, not the integer type's.
pub fn bytes_of(v: &serde_json::Value) -> Result<u64, String> {
    let want = || format!("expected a size in bytes such as 1000 or \"1kB\", got {v}");
    let bytes = match v {
        serde_json::Value::Number(n) => match (n.as_u64(), n.as_f64()) {
            (Some(b), _) => return Ok(b),
            // Whole numbers beyond 64 bits arrive as floats.
            (None, Some(f)) if f >= TWO_TO_64 => f,
            _ => return Err(want()),
        },
        serde_json::Value::String(s) => {
            let (num, unit) = split_num(s).ok_or_else(want)?;
            let mult = match unit.as_str() {
                "" | "B" => 1.0,
                "kB" | "KB" => 1e3,
                "KiB" => 1024.0,
                _ => {
                    return Err(format!(
                        "unknown size unit {unit:?} in {s:?}; use {SIZE_UNITS}"
                    ))
                }
            };
            num * mult
        }
        _ => return Err(want()),
    };
    if bytes < 0.0 || bytes.fract() != 0.0 || !bytes.is_finite() {
        return Err(format!("expected a whole number of bytes >= 0, got {v}"));
    }
    if bytes >= TWO_TO_64 {
        return Err(format!(
            "expected a size in bytes, got {v}, beyond any size"
        ));
    }
    Ok(bytes as u64)
}

/// Memory size units: decimal (`kB`/`KB`, `MB`, `GB`, `TB`) and binary
/// (`KiB`, `MiB`, `GiB`, `TiB`) multiples of a byte (`B`).
pub const MEMORY_UNITS: &str =
    "B, kB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024)";

/// Bytes in a memory size: a whole number of bytes or a string such as
/// `"2GiB"` or `"500 MB"`; at least one byte and at most 2^63 bytes.
pub fn memory_of(v: &serde_json::Value) -> Result<u64, String> {
    let want = || format!("expected a memory size such as \"2GiB\" or a number of bytes, got {v}");
    let bytes = match v {
        serde_json::Value::Number(n) => n.as_f64().ok_or_else(want)?,
        serde_json::Value::String(s) => {
            let (num, unit) = split_num(s).ok_or_else(want)?;
            let k: f64 = match unit.as_str() {
                "" | "B" => 1.0,
                "kB" | "KB" => 1e3,
                "MB" => 1e6,
                "GB" => 1e9,
                "TB" => 1e12,
                "KiB" => 1024.0,
                "MiB" => 1024.0 * 1024.0,
                "GiB" => 1024.0 * 1024.0 * 1024.0,
                "TiB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
                _ => {
                    return Err(format!(
                        "unknown memory unit {unit:?} in {s:?}; use {MEMORY_UNITS}"
                    ))
                }
            };
            num * k
        }
        _ => return Err(want()),
    };
    if !(1.0..=9.223_372_036_854_776e18).contains(&bytes) {
        return Err(format!(
            "expected a memory size from 1 byte to 2^63 bytes, got {v}"
        ));
    }
    Ok(bytes.round() as u64)
}

/// serde `deserialize_with` for byte sizes (`packet_size = "1kB"`).
pub fn de_bytes<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    bytes_of(&v).map_err(serde::de::Error::custom)
}

impl Quantity {
    /// Bits per second.
    pub fn as_bps(&self) -> Result<f64, String> {
        match self {
            Quantity::Num(v) => Ok(*v),
            Quantity::Text(s) => {
                let (v, unit) = split_num(s).ok_or_else(|| {
                    format!("cannot read the rate {s:?}; write e.g. 10e6 (bit/s), \"10Mb/s\" or \"1MBps\"")
                })?;
                let mult = rate_multiplier(&unit).ok_or_else(|| {
                    format!("unknown rate unit {unit:?} in {s:?}; use {RATE_UNITS}")
                })?;
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
                    format!("cannot read the duration {s:?}; write e.g. 0.01, \"10ms\" or \"64us\"")
                })?;
                let mult = time_multiplier(&unit).ok_or_else(|| {
                    format!("unknown time unit {unit:?} in {s:?}; use {TIME_UNITS}")
                })?;
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

    /// Every rate spelling docs/scenarios.md lists, bits and bytes.
    #[test]
    fn every_rate_spelling() {
        let bits = ["b", "bit", "bits", "bps", "b/s", "bit/s", "bits/s"];
        let bytes = ["B", "Bps", "B/s"];
        let prefixes = [("", 1.0), ("k", 1e3), ("K", 1e3), ("M", 1e6), ("G", 1e9)];
        for (pre, scale) in prefixes {
            for (units, per) in [(&bits[..], 1.0), (&bytes[..], 8.0)] {
                for u in units {
                    for sep in ["", " "] {
                        let text = format!("3{sep}{pre}{u}");
                        let got = Quantity::Text(text.clone()).as_bps().unwrap();
                        assert!((got - 3.0 * scale * per).abs() < 1e-6, "{text}: {got}");
                    }
                }
            }
        }
        assert_eq!(Quantity::Text("1MBps".into()).as_bps().unwrap(), 8e6);
        assert_eq!(Quantity::Text("1MB/s".into()).as_bps().unwrap(), 8e6);
        assert_eq!(Quantity::Text("1000".into()).as_bps().unwrap(), 1000.0);
        for bad in [
            "10M",
            "10k",
            "10mb",
            "10gb",
            "10 MiB/s",
            "10 Mbit/h",
            "10 kBit",
        ] {
            let e = Quantity::Text(bad.into()).as_bps().unwrap_err();
            assert!(e.contains("unit") && e.contains("MBps"), "{bad}: {e}");
        }
    }

    /// Every size spelling docs/scenarios.md lists.
    #[test]
    fn every_size_spelling() {
        use serde_json::json;
        let cases = [("B", 1), ("kB", 1000), ("KB", 1000), ("KiB", 1024)];
        for (u, m) in cases {
            for text in [format!("2{u}"), format!("2 {u}")] {
                assert_eq!(bytes_of(&json!(text)).unwrap(), 2 * m, "{text}");
            }
        }
        assert_eq!(bytes_of(&json!(1500)).unwrap(), 1500);
        assert_eq!(bytes_of(&json!("1500")).unwrap(), 1500);
        assert_eq!(bytes_of(&json!("1.5kB")).unwrap(), 1500);
        for bad in [
            json!(-1),
            json!(1.5),
            json!("1.5B"),
            json!("2 kb"),
            json!("2MB"),
            json!(true),
            json!(1e30),
            json!("1e30B"),
        ] {
            let e = bytes_of(&bad).unwrap_err();
            assert!(e.contains("bytes") || e.contains("size unit"), "{bad}: {e}");
        }
    }

    /// Every time spelling docs/scenarios.md lists.
    #[test]
    fn every_time_spelling() {
        let cases = [
            ("s", 1.0),
            ("ms", 1e-3),
            ("us", 1e-6),
            ("µs", 1e-6),
            ("μs", 1e-6),
            ("ns", 1e-9),
        ];
        for (u, m) in cases {
            let upper = if u.is_ascii() {
                u.to_uppercase()
            } else {
                u.into()
            };
            for text in [format!("7{u}"), format!("7 {u}"), format!("7{upper}")] {
                let got = Quantity::Text(text.clone()).as_secs().unwrap();
                assert!((got - 7.0 * m).abs() < 1e-15, "{text}: {got}");
            }
        }
        assert_eq!(Quantity::Text("2.5".into()).as_secs().unwrap(), 2.5);
        assert!(Quantity::Text("7 min".into()).as_secs().is_err());
    }
}
