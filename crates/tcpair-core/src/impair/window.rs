//! Active window for any error model: `start`/`stop` in seconds (Stojcevska and Popov
//! turns random loss on at 10 s). Outside `[start, stop)` packets are not lost
//! and the inner model is not consulted, so its state and random stream are
//! untouched until the window opens.

use super::{check, ErrorModel, REGISTRY};
use crate::engine::{secs, SimRng, Time};
use crate::error::{ConfigError, Shown};

#[derive(Debug)]
pub struct Windowed {
    inner: Box<dyn ErrorModel>,
    start: Time,
    /// Exclusive; `Time::MAX` for "never stops".
    stop: Time,
}

impl ErrorModel for Windowed {
    #[inline]
    fn is_lost(&mut self, now: Time, size: u32, rng: &mut SimRng) -> bool {
        now >= self.start && now < self.stop && self.inner.is_lost(now, size, rng)
    }
}

fn known_models() -> String {
    REGISTRY
        .iter()
        .map(|m| m.name)
        .collect::<Vec<_>>()
        .join(", ")
}

fn secs_field(v: &serde_json::Value, field: &str) -> Result<f64, ConfigError> {
    v.as_f64()
        .ok_or_else(|| ConfigError::new(field, format!("expected a number of seconds, got {v}")))
}

/// Build the model named by `table["model"]` from the rest of `table`,
/// wrapped in its `start`/`stop` window if one is given. Errors name fields
/// relative to `table`.
pub fn build_windowed(table: &serde_json::Value) -> Result<Box<dyn ErrorModel>, ConfigError> {
    let obj = table.as_object().ok_or_else(|| {
        ConfigError::new(
            "",
            format!("expected a table like {{ model = \"uniform\", p = 0.01 }}, got {table}"),
        )
    })?;
    let mut rest = obj.clone();
    let name = match rest.remove("model") {
        None => {
            return Err(ConfigError::new(
                "model",
                format!("missing: name the error model (one of {})", known_models()),
            ))
        }
        Some(serde_json::Value::String(s)) => s,
        Some(other) => {
            return Err(ConfigError::new(
                "model",
                format!(
                    "expected the name of an error model (one of {}), got {other}",
                    known_models()
                ),
            ))
        }
    };
    let start = match rest.remove("start") {
        None => 0.0,
        Some(v) => check::nonneg_secs("start", secs_field(&v, "start")?)?,
    };
    let stop = match rest.remove("stop") {
        None => None,
        Some(v) => {
            let s = secs_field(&v, "stop")?;
            if !(s.is_finite() && s > start) {
                return Err(ConfigError::new(
                    "stop",
                    format!(
                        "must be a finite time in seconds after start ({start}), got {}",
                        Shown(s)
                    ),
                ));
            }
            Some(s)
        }
    };
    let info = REGISTRY.iter().find(|m| m.name == name).ok_or_else(|| {
        ConfigError::new(
            "model",
            format!(
                "unknown error model \"{name}\"; known models: {}",
                known_models()
            ),
        )
    })?;
    let inner = (info.build)(&serde_json::Value::Object(rest)).map_err(|mut e| {
        // serde lists only the model's own keys; the window keys are legal too.
        if e.message.starts_with("unknown key") && e.message.ends_with(')') {
            e.message.pop();
            e.message.push_str(", model, start, stop)");
        }
        e
    })?;
    if start == 0.0 && stop.is_none() {
        // No window: skip the wrapper's comparisons.
        return Ok(inner);
    }
    Ok(Box::new(Windowed {
        inner,
        start: secs(start),
        stop: stop.map_or(Time::MAX, secs),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{stream, MS, SEC};
    use serde_json::json;

    #[test]
    fn window_no_losses_outside() {
        let mut m = build_windowed(&json!({"model": "uniform", "p": 1.0, "start": 1, "stop": 2.5}))
            .unwrap();
        let mut rng = stream(1, "w");
        for i in 0..4000u64 {
            let t = i * MS;
            let lost = m.is_lost(t, 1000, &mut rng);
            assert_eq!(lost, (SEC..2 * SEC + 500 * MS).contains(&t), "t={t}");
        }
        // Open-ended window, partial loss: nothing before start.
        let mut m = build_windowed(&json!({"model": "uniform", "p": 0.5, "start": 10})).unwrap();
        assert!((0..10_000u64).all(|i| !m.is_lost(i * MS, 1000, &mut rng)));
        let n = (0..1000u64)
            .filter(|i| m.is_lost(10 * SEC + i * MS, 1000, &mut rng))
            .count();
        assert!(n > 0 && n < 1000);
    }

    #[test]
    fn window_builds_every_registered_model() {
        for t in [
            json!({"model": "uniform", "p": 0.1}),
            json!({"model": "ber", "ber": 1e-6}),
            json!({"model": "expo", "p": 0.1}),
            json!({"model": "markov2", "p_good_to_bad": 0.1, "p_bad_to_good": 0.5, "loss_good": 0, "loss_bad": 1}),
            json!({"model": "markov2_time", "mean_good": 6, "mean_bad": 0.2, "loss_good": 0.01, "loss_bad": 0.5, "start": 1}),
        ] {
            build_windowed(&t).unwrap();
        }
    }

    #[test]
    fn window_config_errors() {
        let e = build_windowed(&json!({"model": "gauss", "p": 0.1})).unwrap_err();
        assert_eq!(e.path, "model");
        assert!(
            e.message.contains("gauss") && e.message.contains("markov2_time"),
            "{e}"
        );
        let e = build_windowed(&json!({"p": 0.1})).unwrap_err();
        assert_eq!(e.path, "model");
        assert!(e.message.contains("missing"));
        let e = build_windowed(&json!({"model": 3})).unwrap_err();
        assert_eq!(e.path, "model");
        let e = build_windowed(&json!("uniform")).unwrap_err();
        assert!(e.message.contains("table"), "{e}");
        let e = build_windowed(&json!({"model": "uniform", "p": 0.1, "start": -1})).unwrap_err();
        assert_eq!(e.path, "start");
        let e = build_windowed(&json!({"model": "uniform", "p": 0.1, "start": 5, "stop": 5}))
            .unwrap_err();
        assert_eq!(e.path, "stop");
        let e = build_windowed(&json!({"model": "uniform", "p": 0.1, "stop": "late"})).unwrap_err();
        assert_eq!(e.path, "stop");
        let e = build_windowed(&json!({"model": "uniform", "p": 7})).unwrap_err();
        assert_eq!(e.path, "p");
        let e = build_windowed(&json!({"model": "uniform", "p": 0.1, "rate": 7})).unwrap_err();
        assert_eq!(e.path, "rate");
        assert!(e.message.contains("start, stop"), "{e}");
    }
}
