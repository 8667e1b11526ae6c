//! The largest (and smallest) numbers a scenario may hold, and the checked
//! conversion of seconds to integer nanoseconds. docs/reliability.md lists
//! every field's range and the reason for it; keep the two in step.
//!
//! Why these bounds: time is a `u64` count of nanoseconds (about 584 years),
//! and the simulator adds a handful of times together (the current time, a
//! link's delay, a timer's interval, a backoff); with every time at most
//! [`MAX_TIME_S`] those sums stay far below 2^64 ns, so nothing can wrap.
//! Sizes counted in packets are held in memory per packet, so they are bounded
//! by [`MAX_PACKETS`] and storage grows only with what is actually queued.

use crate::engine::{Time, SEC};
use crate::error::{ConfigError, Shown};

/// The longest time any field may hold, in seconds (about 31.7 years).
pub const MAX_TIME_S: f64 = 1e9;

/// The largest queue, window or initial window, in packets.
pub const MAX_PACKETS: u32 = 1_000_000;

/// The most stations on one shared medium (its tables grow as stations²).
pub const MAX_STATIONS: usize = 4096;

/// The fastest link, in bit/s (1 Pb/s): a packet takes at least 1 ns to send,
/// so simulated time always moves forward along a path.
pub const MAX_BANDWIDTH_BPS: f64 = 1e15;

/// The largest seed: seeds are stored as signed 64-bit integers.
pub const MAX_SEED: u64 = i64::MAX as u64;

/// The most links on one flow's path (a packet counts its hops in 16 bits).
pub const MAX_HOPS: usize = u16::MAX as usize;

/// The most bytes of one frame a pcap file keeps (its capture length).
pub const PCAP_SNAPLEN: u32 = 65_535;

/// The bytes a pcap frame adds at most to a packet of `packet_size` bytes
/// (IPv4 and TCP headers included): Ethernet's 14-byte header and the
/// largest TCP options, 40 bytes (RFC 9293 §3.1).
pub const PCAP_FRAME_EXTRA: u32 = 14 + 40;

/// The largest `packet_size` of a flow captured into pcap files: every
/// frame of its data packets fits [`PCAP_SNAPLEN`] (and its IPv4 datagram
/// the 65,535 bytes IPv4 allows).
pub const MAX_PCAP_PACKET_SIZE: u32 = PCAP_SNAPLEN - PCAP_FRAME_EXTRA;

/// Seconds to nanoseconds, checked: finite, >= 0 (> 0 unless `allow_zero`),
/// at most [`MAX_TIME_S`], and a non-zero value must not round to 0 ns
/// (the resolution is 1 ns). The error names `field` and the value.
pub fn time_of(field: &str, v: f64, allow_zero: bool) -> Result<Time, ConfigError> {
    let want = if allow_zero { ">= 0" } else { "> 0" };
    if !v.is_finite() || v < 0.0 || (!allow_zero && v == 0.0) {
        return Err(ConfigError::new(
            field,
            format!(
                "must be a finite number of seconds {want}, got {}",
                Shown(v)
            ),
        ));
    }
    if v > MAX_TIME_S {
        return Err(ConfigError::new(
            field,
            format!(
                "must be at most {MAX_TIME_S:e} s (about 31 years), got {}",
                Shown(v)
            ),
        ));
    }
    let ns = (v * SEC as f64).round();
    if v > 0.0 && ns < 1.0 {
        return Err(ConfigError::new(
            field,
            format!(
                "{} s is below the resolution of 1 ns (it would round to 0); use at least 1e-9",
                Shown(v)
            ),
        ));
    }
    Ok(ns as Time)
}

/// `v` packets, from 1 (0 if `allow_zero`) to [`MAX_PACKETS`].
pub fn packets(field: &str, v: u64, allow_zero: bool) -> Result<u32, ConfigError> {
    let lo = u64::from(!allow_zero);
    match u32::try_from(v) {
        Ok(n) if v >= lo && n <= MAX_PACKETS => Ok(n),
        _ => Err(ConfigError::new(field, packets_message(allow_zero, v))),
    }
}

/// The message for a count of packets outside [`packets`]' range, whatever
/// `got` is (negative, fractional, text, beyond 64 bits).
fn packets_message(allow_zero: bool, got: impl std::fmt::Display) -> String {
    let lo = u64::from(!allow_zero);
    format!("must be a whole number of packets from {lo} to {MAX_PACKETS}, got {got}")
}

/// A count of packets as written, any value read: a whole number >= 0 is
/// kept for [`packets`] to check its range; anything else gets that same
/// range in its message here (serde alone would say "a whole number >= 0"
/// for -3, which the range from 1 then contradicts at 0).
fn de_packets<'de, D: serde::Deserializer<'de>>(d: D, allow_zero: bool) -> Result<u64, D::Error> {
    let v = <serde_json::Value as serde::Deserialize>::deserialize(d)?;
    whole_packets(&v, allow_zero).map_err(serde::de::Error::custom)
}

fn whole_packets(v: &serde_json::Value, allow_zero: bool) -> Result<u64, String> {
    v.as_u64()
        .ok_or_else(|| packets_message(allow_zero, crate::error::show(v)))
}

/// [`de_packets`] for a queue (0 allowed).
pub fn de_queue<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    de_packets(d, true)
}

/// [`de_queue`] for an optional queue (a direction's override).
pub fn de_queue_opt<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    <Option<serde_json::Value> as serde::Deserialize>::deserialize(d)?
        .map(|v| whole_packets(&v, true))
        .transpose()
        .map_err(serde::de::Error::custom)
}

/// [`de_packets`] for a window (from 1).
pub fn de_window<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    de_packets(d, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_checked() {
        assert_eq!(time_of("x", 1.5, false).unwrap(), 1_500_000_000);
        assert_eq!(time_of("x", 0.0, true).unwrap(), 0);
        assert_eq!(time_of("x", 1e-9, false).unwrap(), 1);
        let e = time_of("x", 1e-10, false).unwrap_err();
        assert!(e.to_string().contains("resolution of 1 ns"), "{e}");
        assert!(
            time_of("x", 4e-10, true).is_err(),
            "rounds to 0 even where 0 is allowed"
        );
        let e = time_of("links.l.delay", 1e11, true).unwrap_err();
        assert_eq!(e.path, "links.l.delay");
        assert!(e.message.contains("at most 1e9 s"), "{e}");
        assert!(time_of("x", MAX_TIME_S, true).is_ok());
        for bad in [f64::NAN, f64::INFINITY, -1.0, -0.0 - 1e-300] {
            assert!(time_of("x", bad, true).is_err(), "{bad}");
        }
        assert!(time_of("x", 0.0, false).is_err());
    }

    #[test]
    fn messages_show_extreme_values_in_scientific_notation() {
        let e = time_of("run.duration", 1e300, false).unwrap_err();
        assert!(e.message.ends_with("got 1e300"), "{e}");
        let e = time_of("x", 1e-12, false).unwrap_err();
        assert!(e.message.starts_with("1e-12 s is below"), "{e}");
        let e = time_of("x", -2.5, false).unwrap_err();
        assert!(e.message.ends_with("got -2.5"), "{e}");
        assert_eq!(Shown(0.0).to_string(), "0");
        assert_eq!(Shown(3600.0).to_string(), "3600");
        assert_eq!(Shown(f64::NAN).to_string(), "NaN");
        assert_eq!(Shown(-1e20).to_string(), "-1e20");
    }

    #[test]
    fn sums_of_maximal_times_fit() {
        // Now + delay + backoff-capped RTO + a maximal transmission time.
        let t = time_of("x", MAX_TIME_S, true).unwrap();
        assert!(t.checked_mul(16).is_some());
    }

    #[test]
    fn packets_are_bounded() {
        assert!(packets("q", 0, true).is_ok());
        assert!(packets("q", 0, false).is_err());
        let e = packets("links.l.queue", u32::MAX.into(), true).unwrap_err();
        assert!(
            e.message.contains("from 0 to 1000000, got 4294967295"),
            "{e}"
        );
        // Beyond the 32 bits a count is kept in: the same range, the value as given.
        let e = packets("links.l.queue", 5_000_000_000, true).unwrap_err();
        assert!(
            e.message.contains("from 0 to 1000000, got 5000000000"),
            "{e}"
        );
    }
}
