//! Errors a user can cause. Every one names the offending field (a dotted path
//! into the scenario, e.g. `links[1].forward.loss.p`) and the value.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// Dotted path of the field, e.g. `links[0].bandwidth`.
    pub path: String,
    /// What is wrong, mentioning the value.
    pub message: String,
}

impl ConfigError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }

    /// Prefix the path with `parent` (used when a sub-config is parsed on its own).
    pub fn within(mut self, parent: &str) -> Self {
        self.path = if self.path.is_empty() {
            parent.to_string()
        } else if self.path.starts_with('[') {
            format!("{parent}{}", self.path)
        } else {
            format!("{parent}.{}", self.path)
        };
        self
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

/// A number a user gave, as a message shows it: in decimals at everyday
/// sizes and in scientific notation beyond them, where `{}` alone would
/// write 1e300 as 301 digits and 1e-12 with eleven zeros.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shown(pub f64);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = self.0.abs();
        if a == 0.0 || !a.is_finite() || (1e-4..1e16).contains(&a) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{:e}", self.0)
        }
    }
}

/// Errors while running a valid scenario (e.g. the event budget ran out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimError {
    Config(ConfigError),
    EventBudgetExceeded {
        budget: u64,
        sim_time_s: String,
    },
    /// The trace or the pcap files could not be written (the message names
    /// the key and the path).
    Output(String),
    /// A per-run table reached `output.max_rows`.
    TableFull {
        table: &'static str,
        cap: u64,
        sim_time_s: String,
    },
    /// The run's estimated memory passed `run.memory_budget`.
    MemoryBudgetExceeded {
        budget: u64,
        held: u64,
        sim_time_s: String,
    },
    /// The caller asked the run to stop (Ctrl-C); nothing is returned.
    Interrupted,
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Config(e) => write!(f, "{e}"),
            SimError::Output(m) => write!(f, "{m}"),
            SimError::EventBudgetExceeded { budget, sim_time_s } => write!(
                f,
                "run.event_budget: the budget of {budget} events was used up at simulated time {sim_time_s} s before the run's end; raise run.event_budget or shorten run.duration"
            ),
            SimError::TableFull { table, cap, sim_time_s } => write!(
                f,
                "output.max_rows: the {table} table reached its cap of {cap} rows at simulated time {sim_time_s} s; raise output.max_rows or shorten run.duration"
            ),
            SimError::MemoryBudgetExceeded { budget, held, sim_time_s } => write!(
                f,
                "run.memory_budget: the run held about {} at simulated time {sim_time_s} s, over its budget of {}; raise run.memory_budget, lower output.max_rows or shorten run.duration",
                mib(*held),
                mib(*budget),
            ),
            SimError::Interrupted => write!(f, "interrupted"),
        }
    }
}

impl std::error::Error for SimError {}

impl From<ConfigError> for SimError {
    fn from(e: ConfigError) -> Self {
        SimError::Config(e)
    }
}

/// `v` if `lo <= v <= hi`, else an error naming `field` and the value.
pub fn in_range<T: PartialOrd + std::fmt::Display>(
    field: &str,
    v: T,
    lo: T,
    hi: T,
) -> Result<T, ConfigError> {
    if lo <= v && v <= hi {
        Ok(v)
    } else {
        Err(ConfigError::new(
            field,
            format!("must be {lo}..={hi}, got {v}"),
        ))
    }
}

/// A count read as any whole number (so that one beyond 32 bits gets this
/// range too), kept in 32 bits once [`in_range`] has checked it.
pub fn count_in_range(field: &str, v: u64, lo: u32, hi: u32) -> Result<u32, ConfigError> {
    let v = in_range(field, v, lo.into(), hi.into())?;
    Ok(u32::try_from(v).expect("at most `hi`, a u32"))
}

/// Deserialize `value` into `T`, reporting the failing field's path and, in
/// place of serde's wording, what the field expects in the user's terms.
pub fn from_value<T: serde::de::DeserializeOwned>(
    value: &serde_json::Value,
) -> Result<T, ConfigError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let got = lookup(value, e.path());
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let message = plain_words(&e.into_inner().to_string(), &path, got);
        ConfigError::new(path, message)
    })
}

/// The value at `path` inside `root`, if the path leads anywhere.
fn lookup<'a>(
    root: &'a serde_json::Value,
    path: &serde_path_to_error::Path,
) -> Option<&'a serde_json::Value> {
    use serde_path_to_error::Segment;
    path.iter().try_fold(root, |v, seg| match seg {
        Segment::Seq { index } => v.get(index),
        Segment::Map { key } => v.get(key.as_str()),
        _ => None,
    })
}

/// A value as the user wrote it, as a message quotes it (cut after 60 characters).
pub(crate) fn show(v: &serde_json::Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 60 {
        format!("{}...", text.chars().take(57).collect::<String>())
    } else {
        text
    }
}

/// The names between backticks in a serde message (`a`, `b` -> [a, b]).
fn ticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// What serde's type name `exp` (after "expected ") means to a user.
fn expected_words(exp: &str, field: &str) -> String {
    let exp = exp.trim();
    let last = field.rsplit('.').next().unwrap_or(field);
    match exp {
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number >= 0".into(),
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".into(),
        "f32" | "f64" => "a number".into(),
        "a boolean" => "true or false".into(),
        "a string" => "text in quotes".into(),
        "a sequence" => "a list".into(),
        "a tuple of size 2" => "a pair [start, stop]".into(),
        "a map" => "a table".into(),
        "string or map" | "variant identifier" => "a name in quotes".into(),
        "fewer elements in array" => "a shorter list".into(),
        _ if exp.starts_with("struct ") => "a table".into(),
        _ if exp.contains("Quantity") && last == "bandwidth" => {
            "a rate such as \"10Mb/s\" or a number of bit/s".into()
        }
        _ if exp.contains("Quantity") => "a time such as \"10ms\" or a number of seconds".into(),
        _ => exp.replace('`', "\""),
    }
}

/// The largest value of serde's unsigned type name `exp`, if it is one.
fn unsigned_max(exp: &str) -> Option<u64> {
    match exp.trim() {
        "u8" => Some(u8::MAX.into()),
        "u16" => Some(u16::MAX.into()),
        "u32" => Some(u32::MAX.into()),
        "u64" | "usize" => Some(u64::MAX),
        _ => None,
    }
}

/// A whole number >= 0 as JSON holds it: an integer, or a float with no
/// fraction (JSON integers beyond 2^64 arrive as floats).
fn whole_and_not_negative(v: &serde_json::Value) -> bool {
    v.as_u64().is_some() || v.as_f64().is_some_and(|f| f >= 0.0 && f.fract() == 0.0)
}

/// What serde's type name `exp` means for the value `got`: a whole number
/// too large for an unsigned field is told the field's largest value (it
/// is a whole number >= 0, which the general words would ask for).
fn expected_for(exp: &str, field: &str, got: Option<&serde_json::Value>) -> String {
    match (unsigned_max(exp), got) {
        (Some(max), Some(v)) if whole_and_not_negative(v) => {
            format!("a whole number from 0 to {max}")
        }
        _ => expected_words(exp, field),
    }
}

/// serde's message rewritten in the user's terms (field kinds, not Rust types).
fn plain_words(msg: &str, field: &str, got: Option<&serde_json::Value>) -> String {
    let shown = got.map(show);
    let with_got = |want: String| match &shown {
        Some(g) => format!("expected {want}, got {g}"),
        None => format!("expected {want}"),
    };
    if let Some(rest) = msg.strip_prefix("data did not match any variant of untagged enum ") {
        return with_got(expected_words(rest, field));
    }
    for prefix in ["invalid type: ", "invalid value: ", "invalid length "] {
        if let Some((_, exp)) = msg
            .strip_prefix(prefix)
            .and_then(|rest| rest.rsplit_once(", expected "))
        {
            return with_got(expected_for(exp, field, got));
        }
    }
    if msg.starts_with("unknown field `") {
        let names = ticked(msg);
        let known = names.get(1..).unwrap_or_default().join(", ");
        let known = if known.is_empty() {
            "none".into()
        } else {
            known
        };
        return format!("unknown key {:?} (known keys: {known})", names[0]);
    }
    if msg.starts_with("unknown variant `") {
        let names = ticked(msg);
        return format!(
            "unknown value {:?}; expected one of: {}",
            names[0],
            names.get(1..).unwrap_or_default().join(", ")
        );
    }
    if let Some(name) = msg.strip_prefix("missing field `") {
        return format!("missing required key {:?}", name.trim_end_matches('`'));
    }
    if let Some(name) = msg.strip_prefix("duplicate field `") {
        return format!("key {:?} given twice", name.trim_end_matches('`'));
    }
    msg.to_string()
}

impl ConfigError {
    /// The path with list elements named by their `name` field where they
    /// have one (`links.wireless.delay`, not `links[1].delay`), as users
    /// address them in `--set`; elements without a name keep their index.
    pub fn named(mut self, root: &serde_json::Value) -> Self {
        let mut out = String::new();
        let mut node = Some(root);
        let mut rest = self.path.as_str();
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('[') {
                let Some((idx, tail)) = after.split_once(']') else {
                    out.push('[');
                    out.push_str(after);
                    break;
                };
                let item = idx.parse::<usize>().ok().and_then(|i| node?.get(i));
                match item.and_then(|v| v.get("name")).and_then(|n| n.as_str()) {
                    Some(name) if plain_name(name) && unique_name(node, name) => {
                        out.push('.');
                        out.push_str(name);
                    }
                    _ => out.push_str(&format!("[{idx}]")),
                }
                node = item;
                rest = tail;
            } else {
                let key_start = usize::from(rest.starts_with('.'));
                let body = &rest[key_start..];
                let end = body.find(['.', '[']).unwrap_or(body.len());
                let key = &body[..end];
                if key_start == 1 || !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
                node = node.and_then(|v| v.get(key));
                rest = &body[end..];
            }
        }
        self.path = out;
        self
    }
}

/// No other element of the list `list` has the name `name`.
fn unique_name(list: Option<&serde_json::Value>, name: &str) -> bool {
    let same = |v: &&serde_json::Value| v.get("name").and_then(|n| n.as_str()) == Some(name);
    list.and_then(|l| l.as_array())
        .is_some_and(|a| a.iter().filter(same).count() == 1)
}

/// A name that reads unambiguously as a path component.
/// A list element's `name` that error paths may use in place of its index.
pub(crate) fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && !name.chars().all(|c| c.is_ascii_digit())
        && !name.contains(['.', '[', ']', '*', '='])
        && !name.chars().any(char::is_whitespace)
}

/// A byte count for messages, in MiB ("123.4 MiB").
fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_name_list_elements() {
        let root = json!({"links": [{"from": "a"}, {"name": "wl", "forward": {"loss": {"p": 2}}}],
                          "nodes": [{"name": "bs", "bs": ["snoop"]}]});
        let n = |p: &str| ConfigError::new(p, "x").named(&root).path;
        assert_eq!(n("links[1].forward.loss.p"), "links.wl.forward.loss.p");
        assert_eq!(n("links[0].bandwidth"), "links[0].bandwidth");
        assert_eq!(n("nodes[0].bs[0]"), "nodes.bs.bs[0]");
        assert_eq!(n("links[7].delay"), "links[7].delay");
        assert_eq!(n("run.duration"), "run.duration");
        let twice = json!({"nodes": [{"name": "a"}, {"name": "a"}]});
        let e = ConfigError::new("nodes[1].name", "duplicate").named(&twice);
        assert_eq!(e.path, "nodes[1].name", "a duplicate name is no address");
        assert_eq!(n(""), "");
    }

    // Stand-ins for the schema's types (this layer may not use them).
    #[derive(Debug, serde::Deserialize)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Quantity {
        Num(f64),
        Text(String),
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(rename_all = "lowercase")]
    #[allow(dead_code)]
    enum Kind {
        Wired,
        Wireless,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Demo {
        queue: u32,
        bandwidth: Quantity,
        delay: Quantity,
        on: bool,
        x: f64,
        kind: Kind,
    }

    #[test]
    fn serde_wording_is_replaced() {
        let ok =
            json!({"queue": 1, "bandwidth": 1, "delay": 1, "on": true, "x": 1.0, "kind": "wired"});
        let cases = [
            ("queue", json!(-1), "a whole number >= 0"),
            ("queue", json!("abc"), "a whole number >= 0, got \"abc\""),
            ("queue", json!(1.5), "got 1.5"),
            // A whole number >= 0 too large for the field: its largest value.
            (
                "queue",
                json!(5_000_000_000u64),
                "a whole number from 0 to 4294967295, got 5000000000",
            ),
            (
                "queue",
                json!(1.5e21),
                "a whole number from 0 to 4294967295, got 1.5e+21",
            ),
            ("bandwidth", json!(true), "a rate such as"),
            ("delay", json!([1]), "a time such as"),
            ("on", json!(1), "true or false"),
            ("x", json!("a"), "a number"),
            (
                "kind",
                json!("radio"),
                "unknown value \"radio\"; expected one of: wired, wireless",
            ),
            ("extra", json!(1), "unknown key \"extra\""),
        ];
        for (key, bad, want) in cases {
            let mut v = ok.clone();
            v[key] = bad;
            let e = from_value::<Demo>(&v).unwrap_err();
            assert_eq!(e.path, key);
            assert!(e.message.contains(want), "{key}: {e}");
            for serde_phrase in ["invalid type", "invalid value", "untagged", "u32", "`"] {
                assert!(!e.message.contains(serde_phrase), "{key}: {e}");
            }
        }
        let mut v = ok.clone();
        v.as_object_mut().unwrap().remove("delay");
        let e = from_value::<Demo>(&v).unwrap_err();
        assert_eq!(e.message, "missing required key \"delay\"");
    }
}
