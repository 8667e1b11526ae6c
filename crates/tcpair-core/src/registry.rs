//! Registries of named, pluggable parts (congestion ops, loss detectors,
//! responders, BS agents): each entry is one line naming the part,
//! summarising it, citing the source it implements, and pointing at its
//! builder. Scenario files choose an entry by name (`"veno"`) or by a table
//! with a key naming it and the part's parameters (`{ name = "pr",
//! min_small_rtts = 6 }`; BS agents: `{ agent = "snoop", cache = 50 }`);
//! `tcpair list` and every "known: ..." in an error message are read off the
//! registry, never typed in twice.

use crate::error::ConfigError;
use serde_json::{json, Value};

/// One registered part. `B` is its builder (a function from the part's
/// parameter table to the built part).
#[derive(Debug)]
pub struct Entry<B: 'static> {
    pub name: &'static str,
    pub summary: &'static str,
    /// What it implements: paper and section, RFC, or the Linux / ns-3 file
    /// read to understand it.
    pub source: &'static str,
    pub build: B,
}

/// The names of `entries`, comma-separated, for error messages.
pub fn names<B>(entries: &[Entry<B>]) -> String {
    entries
        .iter()
        .map(|e| e.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A registry of parts built as `Box<T>`.
pub type Builder<T> = fn(&Value) -> Result<Box<T>, ConfigError>;

/// A part without parameters: its table must be empty (an unknown key is
/// an error naming it).
pub fn no_params(v: &Value) -> Result<(), ConfigError> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Empty {}
    let _: Empty = crate::error::from_value(v)?;
    Ok(())
}

/// `entries` as `[{name, summary, source}]`, for `tcpair list`.
pub fn catalog<B>(entries: &[Entry<B>]) -> Value {
    entries
        .iter()
        .map(|e| json!({"name": e.name, "summary": e.summary, "source": e.source}))
        .collect::<Vec<_>>()
        .into()
}

/// A name given as a string or an integer (responders are numbered).
fn name_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) if n.is_u64() => Some(n.to_string()),
        _ => None,
    }
}

/// The entry `v` chooses and its parameter table (the `name` key removed).
/// `what` names the kind of part in messages ("detector"); `path` is `v`'s
/// place in the scenario.
pub fn pick<'a, B>(
    entries: &'a [Entry<B>],
    v: &Value,
    what: &str,
    path: &str,
) -> Result<(&'a Entry<B>, Value), ConfigError> {
    pick_by(entries, v, what, "name", path)
}

/// As [`pick`], with the table's naming key `key` (BS agents: `agent`).
pub fn pick_by<'a, B>(
    entries: &'a [Entry<B>],
    v: &Value,
    what: &str,
    key: &str,
    path: &str,
) -> Result<(&'a Entry<B>, Value), ConfigError> {
    let (name, params) = match v {
        Value::Object(m) => {
            let Some(n) = m.get(key) else {
                return Err(ConfigError::new(
                    path,
                    format!(
                        "a {what} table needs the key `{key}`, naming one of: {}",
                        names(entries)
                    ),
                ));
            };
            let Some(n) = name_of(n) else {
                return Err(ConfigError::new(
                    format!("{path}.{key}"),
                    format!("must name one of: {}, got {n}", names(entries)),
                ));
            };
            let mut rest = m.clone();
            rest.remove(key);
            (n, Value::Object(rest))
        }
        other => match name_of(other) {
            Some(n) => (n, json!({})),
            None => {
                return Err(ConfigError::new(
                    path,
                    format!("a {what} is a name or a table with a `{key}` key, got {other}"),
                ))
            }
        },
    };
    let entry = entries.iter().find(|e| e.name == name).ok_or_else(|| {
        ConfigError::new(
            path,
            format!("unknown {what} {name:?} (known: {})", names(entries)),
        )
    })?;
    Ok((entry, params))
}

/// Lets a boxed part be cloned (a configuration holds the built part; each
/// sender gets its own copy): `boxed_clone!(Detector, DetectorClone)`
/// declares the helper trait that `Detector` then requires.
macro_rules! boxed_clone {
    ($tr:ident, $helper:ident) => {
        /// Cloning of boxed parts; implemented for every `Clone` part.
        pub trait $helper {
            fn clone_box(&self) -> Box<dyn $tr>;
        }
        impl<T: $tr + Clone + 'static> $helper for T {
            fn clone_box(&self) -> Box<dyn $tr> {
                Box::new(self.clone())
            }
        }
        impl Clone for Box<dyn $tr> {
            fn clone(&self) -> Self {
                self.clone_box()
            }
        }
    };
}
pub(crate) use boxed_clone;

#[cfg(test)]
mod tests {
    use super::*;

    static ENTRIES: &[Entry<u8>] = &[
        Entry {
            name: "a",
            summary: "first",
            source: "RFC 1",
            build: 1,
        },
        Entry {
            name: "21",
            summary: "numbered",
            source: "paper",
            build: 2,
        },
    ];

    #[test]
    fn picks_by_name_number_or_table() {
        let (e, p) = pick(ENTRIES, &json!("a"), "part", "x").unwrap();
        assert_eq!((e.build, p), (1, json!({})));
        let (e, _) = pick(ENTRIES, &json!(21), "part", "x").unwrap();
        assert_eq!(e.build, 2);
        let (e, p) = pick(ENTRIES, &json!({"name": "a", "k": 3}), "part", "x").unwrap();
        assert_eq!((e.build, p), (1, json!({"k": 3})));
    }

    #[test]
    fn errors_name_the_field_and_the_known_entries() {
        let e = pick(ENTRIES, &json!("b"), "part", "flows[0].tcp.x").unwrap_err();
        assert_eq!(e.path, "flows[0].tcp.x");
        assert!(
            e.message.contains("\"b\"") && e.message.contains("known: a, 21"),
            "{e}"
        );
        let e = pick(ENTRIES, &json!({"k": 1}), "part", "p").unwrap_err();
        assert!(e.message.contains("needs the key `name`"), "{e}");
        let e = pick(ENTRIES, &json!({"name": true}), "part", "p").unwrap_err();
        assert_eq!(e.path, "p.name");
        let e = pick(ENTRIES, &json!(1.5), "part", "p").unwrap_err();
        assert!(e.message.contains("1.5"), "{e}");
    }
}
