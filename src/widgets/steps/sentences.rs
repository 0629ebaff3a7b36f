//! What a step says, filled in from the figure's readouts: `{r:name}`, `{was:name}`,
//! `{change:name}` and `{verdict}`.

use super::table::{lookup, Readouts};
use crate::widgets::format::format_number;

/// How a readout changed between `before` and `after` (full precision), in words.
pub fn change_words(before: f64, after: f64) -> String {
    if !(before.is_finite() && after.is_finite()) || before == 0.0 {
        return "changed".into();
    }
    let ratio = after / before;
    if (ratio - 1.0).abs() < 0.02 {
        "stayed the same".into()
    } else if ratio > 1.0 {
        format!("rose {}×", format_number(ratio, 3))
    } else {
        format!("fell {}×", format_number(1.0 / ratio, 3))
    }
}

/// A template filled in: `{r:name}`, `{was:name}`, `{change:name}` and `{verdict}` (see
/// [`Step::see`]) from `now` (shown text and full value of each readout), `was` and the
/// figure's `verdict`. An unknown placeholder is left out.
pub fn fill(
    template: &str,
    now: &Readouts<(String, f64)>,
    was: &Readouts<(String, f64)>,
    verdict: &str,
) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            out.push_str(&rest[open..]);
            return out;
        };
        let placeholder = &rest[open + 1..close];
        let shown = |map: &Readouts<(String, f64)>, name: &str| {
            lookup(map, name)
                .map(|(t, _)| t.clone())
                .unwrap_or_else(|| "…".into())
        };
        let value = |map: &Readouts<(String, f64)>, name: &str| {
            lookup(map, name).map_or(f64::NAN, |(_, v)| *v)
        };
        match placeholder.split_once(':') {
            Some(("r", name)) => out.push_str(&shown(now, name)),
            Some(("was", name)) => out.push_str(&shown(was, name)),
            Some(("change", name)) => {
                out.push_str(&change_words(value(was, name), value(now, name)))
            }
            None if placeholder == "verdict" => out.push_str(verdict),
            _ => {}
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(pairs: &[(&str, &str, f64)]) -> Readouts<(String, f64)> {
        pairs
            .iter()
            .map(|(k, t, v)| (k.to_string(), (t.to_string(), *v)))
            .collect()
    }

    #[test]
    fn a_template_is_filled_from_the_readouts_before_and_after() {
        let was = shown(&[("spectral", "0.214", 0.214)]);
        let now = shown(&[("spectral", "0.00560", 0.0056)]);
        let text = fill(
            "‖J‖₂ {change:spectral}: {was:spectral} → {r:spectral}. {verdict}",
            &now,
            &was,
            "Saturated.",
        );
        assert_eq!(text, "‖J‖₂ fell 38.2×: 0.214 → 0.00560. Saturated.");
        assert_eq!(fill("{r:missing} {nope} done", &now, &was, ""), "…  done");
    }

    #[test]
    fn changes_are_said_in_words() {
        assert_eq!(change_words(2.0, 2.01), "stayed the same");
        assert_eq!(change_words(1.0, 4.0), "rose 4.00×");
        assert_eq!(change_words(4.0, 1.0), "fell 4.00×");
        assert_eq!(change_words(0.0, 1.0), "changed");
        assert_eq!(change_words(f64::NAN, 1.0), "changed");
    }
}
