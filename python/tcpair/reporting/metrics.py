"""What each column of a run means, for axis labels and tables.

Every column a run produces (``tcpair.run(...).flows``, the ``run_`` numbers of
a sweep's rows, the per-sample time series, the common sweep axes) has an entry
``name -> (quantity, unit)``; :func:`label` turns it into an axis label such as
"goodput (kb/s)". Unknown names (a user's own axis, a new core field) fall
back to the raw name, so a label is never wrong, only plain.
"""

from __future__ import annotations

from collections.abc import Mapping

_DELAYS = {
    "delay": "one-way packet delay",
    "e2e_delay": "end-to-end segment delay",
    "app_delay": "delay to in-order delivery",
}
_QUANTILES = {"mean": "mean", "p50": "median", "p95": "95th percentile", "p99": "99th percentile"}


def _delay_entries() -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for stem, what in _DELAYS.items():
        for q, qname in _QUANTILES.items():
            out[f"{stem}_{q}_s"] = (f"{what}, {qname}", "s")
    return out


FLOW_METRICS: Mapping[str, tuple[str, str]] = {
    "goodput_kbps": ("goodput", "kb/s"),
    "throughput_kbps": ("throughput", "kb/s"),
    "formula_throughput_mbps": ("throughput, eq. (7) of Stojcevska and Popov", "Mb/s"),
    "sent": ("data packets sent", "packets"),
    "retransmits": ("retransmissions", "packets"),
    "timeouts": ("retransmission timeouts", "count"),
    "fast_retransmits": ("fast retransmits", "count"),
    "wireless_frs": ("fast retransmits on a wireless verdict", "count"),
    "window_cuts": ("congestion window cuts", "count"),
    "arrived": ("data packets at the receiver", "packets"),
    "delivered": ("segments delivered in order", "packets"),
    "duplicates": ("duplicate data packets at the receiver", "packets"),
    "acks_sent": ("ACKs sent", "packets"),
    "mean_rtt_s": ("mean RTT", "s"),
    "mean_rto_s": ("mean RTO", "s"),
    "mean_timeout_rto_s": ("mean RTO at timeouts", "s"),
    "bs_retransmits": ("local retransmissions by the BS", "packets"),
    "eln_acks": ("ACKs with ELN at the sender", "count"),
    "eln_retransmits": ("fast retransmits on an ELN verdict", "count"),
    "syndrome_credits": ("Syndrome credits", "count"),
    "impossible_syndromes": ("impossible syndromes", "count"),
    "clrp_notices": ("ACKs with CLRP loss blocks", "count"),
    "clrp_retransmits": ("CLRP retransmissions", "packets"),
    "clrp_holes": ("holes reported by the CLRP receiver", "count"),
    "packet_size": ("packet size", "bytes"),
    "window": ("window", "packets"),
    "measured_s": ("measured time", "s"),
    "finished_at_s": ("transfer finished at", "s"),
    **_delay_entries(),
}

RUN_METRICS: Mapping[str, tuple[str, str]] = {
    "run_events": ("events processed", "count"),
    "run_wall_s": ("wall-clock time of the run", "s"),
    "run_sim_time_s": ("simulated time", "s"),
    "run_duration_s": ("run duration", "s"),
    "run_warmup_s": ("warm-up", "s"),
    "run_jain_fairness": ("Jain's fairness index", ""),
    "run_packets_sent": ("packets sent (all nodes)", "packets"),
    "run_packets_delivered": ("packets delivered (all nodes)", "packets"),
    "run_packets_dropped": ("packets dropped", "packets"),
    "run_packets_copies": ("packet copies (duplication)", "packets"),
    "run_packets_injected": ("packets created by BS agents", "packets"),
    "run_packets_absorbed": ("packets discarded by BS agents", "packets"),
    "run_packets_in_flight": ("packets in flight at the end", "packets"),
    "run_delivered_data_packets": ("data packets delivered (all flows)", "packets"),
    # 802.11 media only (docs/wifi.md), over the measurement window.
    "run_mac_data_frames": ("802.11 data frames sent (tries and retries)", "frames"),
    "run_mac_retries": ("802.11 data frame retries", "frames"),
    "run_mac_collisions": ("802.11 frames lost to collisions", "frames"),
    "run_mac_frame_errors": ("802.11 data frames lost to frame errors", "frames"),
    "run_mac_contention_drops": ("802.11 retry-limit drops after collisions", "packets"),
    "run_mac_frame_error_drops": ("802.11 retry-limit drops after frame errors", "packets"),
    "run_mac_queue_drops": ("802.11 interface-queue drops", "packets"),
}

SERIES_METRICS: Mapping[str, tuple[str, str]] = {
    "time_s": ("time", "s"),
    "cwnd": ("congestion window", "segments"),
    "ssthresh": ("slow-start threshold", "segments"),
    "seq_sent": ("highest sequence number sent", "segments"),
}

AXES: Mapping[str, tuple[str, str]] = {
    "p": ("loss probability p", ""),
    "ber": ("bit error rate", ""),
    "buffer": ("buffer", "packets"),
    "queue": ("queue limit", "packets"),
    "seed": ("seed", ""),
}

CATALOGUE: Mapping[str, tuple[str, str]] = {
    **AXES,
    **RUN_METRICS,
    **SERIES_METRICS,
    **FLOW_METRICS,
}


def describe(name: str) -> tuple[str, str] | None:
    """``(quantity, unit)`` of a column, or None when it is not catalogued."""
    if name in CATALOGUE:
        return CATALOGUE[name]
    for suffix, what in (("_mean", ""), ("_ci95", "95% CI half-width of "), ("_std", "std of ")):
        base = name.removesuffix(suffix)
        if base != name and base in CATALOGUE:
            quantity, unit = CATALOGUE[base]
            return f"{what}{quantity}", unit
    return None


def label(name: str) -> str:
    """An axis label with its unit: ``goodput_kbps`` -> "goodput (kb/s)"."""
    found = describe(name)
    if found is None:
        return name
    quantity, unit = found
    return f"{quantity} ({unit})" if unit else quantity


__all__ = ["CATALOGUE", "FLOW_METRICS", "RUN_METRICS", "SERIES_METRICS", "describe", "label"]
