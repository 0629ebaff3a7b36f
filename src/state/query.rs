//! Reading and writing the query string. Parsing is total: an out-of-range value is
//! clamped, an unparseable, NaN or infinite one falls back to the default, and either way
//! a [`Notice`] names the key and what was done. Unknown keys are ignored. Writing leaves
//! defaults out, so a link carries only what differs.

use std::fmt;

use super::choices::THEMES;
use super::number::parse_number;
use super::params::Params;
use super::registry::FigureId;
use super::table::{spec_index, ParamKind, ParamSpec, Value, PARAMS};
use super::view::{ShownControls, View, MAX_STEPS, VIEW_KEYS};

/// Longest value text read from the URL; longer text is rejected before parsing.
const MAX_VALUE_CHARS: usize = 4096;

/// A visible message about a value from the URL that was changed or ignored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// The key as it appeared in the URL (text, never markup).
    pub key: String,
    pub message: String,
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

/// Shortens user text for a notice, so a hostile URL cannot flood the page.
fn excerpt(text: &str) -> String {
    let mut out: String = text.chars().take(24).collect();
    if text.chars().count() > 24 {
        out.push('…');
    }
    out
}

fn parse_bool(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Some(true),
        "0" | "false" | "off" | "no" => Some(false),
        _ => None,
    }
}

/// Nearest power of two (in log scale) to `x`, exponent clamped to the range.
fn nearest_pow2(x: f64, min_exp: u32, max_exp: u32) -> i64 {
    let e = if x <= 0.0 {
        min_exp as f64
    } else {
        x.log2().round()
    };
    1i64 << (e.clamp(min_exp as f64, max_exp as f64) as u32)
}

/// Parses one value of `spec` from URL text. Returns the value and, when the text was
/// not taken as is, the notice to show.
pub(super) fn parse_value(spec: &ParamSpec, text: &str) -> (Value, Option<String>) {
    let fallback = |why: String| (spec.default.clone(), Some(why));
    if text.chars().count() > MAX_VALUE_CHARS {
        return fallback(format!(
            "value too long ({} characters); using the default",
            text.chars().count()
        ));
    }
    let shown = excerpt(text);
    match spec.kind {
        ParamKind::Int { min, max } => match parse_number(text.trim()) {
            Some(x) if x.is_finite() => {
                let whole = x.round();
                let clamped = whole.clamp(min as f64, max as f64) as i64;
                if clamped as f64 != x {
                    (
                        Value::Int(clamped),
                        Some(format!(
                            "{shown} is not a whole number in {min}–{max}; using {clamped}"
                        )),
                    )
                } else {
                    (Value::Int(clamped), None)
                }
            }
            _ => fallback(format!(
                "{shown:?} is not a number; using the default {}",
                display_value(&spec.default)
            )),
        },
        ParamKind::Float { min, max } => match parse_number(text.trim()) {
            Some(x) if x.is_finite() => {
                let clamped = x.clamp(min, max);
                if clamped != x {
                    (
                        Value::Float(clamped),
                        Some(format!(
                            "{shown} is outside {min}–{max}; clamped to {clamped}"
                        )),
                    )
                } else {
                    (Value::Float(x), None)
                }
            }
            _ => fallback(format!(
                "{shown:?} is not a finite number; using the default {}",
                display_value(&spec.default)
            )),
        },
        ParamKind::Pow2 { min_exp, max_exp } => match parse_number(text.trim()) {
            Some(x) if x.is_finite() => {
                let v = nearest_pow2(x, min_exp, max_exp);
                if v as f64 != x {
                    let (lo, hi) = (1i64 << min_exp, 1i64 << max_exp);
                    (
                        Value::Int(v),
                        Some(format!(
                            "{shown} is not a power of two in {lo}–{hi}; using {v}"
                        )),
                    )
                } else {
                    (Value::Int(v), None)
                }
            }
            _ => fallback(format!(
                "{shown:?} is not a number; using the default {}",
                display_value(&spec.default)
            )),
        },
        ParamKind::Bool => match parse_bool(text.trim()) {
            Some(b) => (Value::Bool(b), None),
            None => fallback(format!(
                "{shown:?} is not 1 or 0; using the default {}",
                display_value(&spec.default)
            )),
        },
        ParamKind::Choice(options) => match options.find(text.trim()) {
            Some(o) => (Value::Choice(o), None),
            None => fallback(format!(
                "{shown:?} is not one of {}; using the default",
                options.ids_joined()
            )),
        },
        ParamKind::FloatList {
            min_len,
            max_len,
            min,
            max,
        } => parse_list(text, min_len, max_len, min, max, spec),
    }
}

fn parse_list(
    text: &str,
    min_len: usize,
    max_len: usize,
    min: f64,
    max: f64,
    spec: &ParamSpec,
) -> (Value, Option<String>) {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return (Value::List(None), None);
    }
    let mut values = Vec::new();
    for (i, part) in trimmed.split(',').enumerate() {
        match parse_number(part.trim()) {
            Some(x) if x.is_finite() => values.push(x),
            _ => {
                return (
                    spec.default.clone(),
                    Some(format!(
                        "entry {} ({:?}) is not a finite number; ignoring the list",
                        i + 1,
                        excerpt(part)
                    )),
                )
            }
        }
    }
    let mut problems = Vec::new();
    if values.len() > max_len {
        problems.push(format!(
            "{} values given, kept the first {max_len}",
            values.len()
        ));
        values.truncate(max_len);
    }
    if values.len() < min_len {
        return (
            spec.default.clone(),
            Some(format!(
                "needs at least {min_len} values; ignoring the list"
            )),
        );
    }
    let clamped = values.iter().filter(|x| **x < min || **x > max).count();
    if clamped > 0 {
        problems.push(format!("{clamped} value(s) outside {min}–{max} clamped"));
        for x in values.iter_mut() {
            *x = x.clamp(min, max);
        }
    }
    let notice = if problems.is_empty() {
        None
    } else {
        Some(problems.join("; "))
    };
    (Value::List(Some(values)), notice)
}

/// The controls `controls=<key>,<key>,…` keeps: keys of the table that belong to the
/// embedded figure (any figure on the page); the others are named in a notice. `None`
/// (every control shown) when no key is left.
fn chosen_controls(
    text: &str,
    embed: Option<FigureId>,
    notices: &mut Vec<Notice>,
) -> Option<Vec<&'static str>> {
    let mut kept: Vec<&'static str> = Vec::new();
    let mut ignored = Vec::new();
    for part in text
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .take(64)
    {
        match spec_index(part).map(|i| &PARAMS[i]) {
            Some(spec) if embed.is_none_or(|f| spec.figures.contains(&f)) => {
                if !kept.contains(&spec.key) {
                    kept.push(spec.key);
                }
            }
            _ => ignored.push(excerpt(part)),
        }
    }
    if !ignored.is_empty() {
        let whose = embed.map_or("the page".to_string(), |f| format!("figure {}", f.as_str()));
        notices.push(Notice {
            key: "controls".into(),
            message: format!(
                "{} {} not a control of {whose}; ignored",
                ignored.join(", "),
                if ignored.len() == 1 { "is" } else { "are" }
            ),
        });
    }
    if kept.is_empty() {
        if ignored.is_empty() {
            notices.push(Notice {
                key: "controls".into(),
                message: "names no control; showing them all".into(),
            });
        }
        return None;
    }
    Some(kept)
}

/// The value `text` gives `key`, checked as URL text is (clamped to its range); `None`
/// for a key that is not in the table.
pub fn value_from_text(key: &str, text: &str) -> Option<Value> {
    spec_index(key).map(|i| parse_value(&PARAMS[i], text).0)
}

/// The text a value takes in a URL.
pub fn display_value(value: &Value) -> String {
    match value {
        Value::Int(i) => i.to_string(),
        Value::Float(x) => format!("{x}"),
        Value::Bool(b) => if *b { "1" } else { "0" }.to_string(),
        Value::Choice(c) => (*c).to_string(),
        Value::List(None) => String::new(),
        Value::List(Some(v)) => v
            .iter()
            .map(|x| format!("{x}"))
            .collect::<Vec<_>>()
            .join(","),
    }
}

/// Percent-encodes URL text, keeping the characters our values use (digits, letters,
/// `.`, `-`, `,`) readable.
fn encode_component(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes())
        .collect::<String>()
        .replace("%2C", ",")
}

impl Params {
    /// Parses a query string (with or without the leading `?`).
    pub fn from_query(query: &str) -> (Params, View, Vec<Notice>) {
        let mut params = Params::default();
        let mut view = View::default();
        let mut hide_controls = false;
        let mut notices = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        let mut controls_text = None::<String>;
        let query = query.strip_prefix('?').unwrap_or(query);
        for (raw_key, raw_value) in form_urlencoded::parse(query.as_bytes()) {
            let key = raw_key.to_string();
            if seen.contains(&key) {
                if spec_index(&key).is_some() || VIEW_KEYS.contains(&key.as_str()) {
                    notices.push(Notice {
                        key: excerpt(&key),
                        message: "given more than once; used the first".into(),
                    });
                }
                continue;
            }
            seen.push(key.clone());
            match key.as_str() {
                "embed" => match FigureId::parse(raw_value.trim()) {
                    Some(figure) => view.embed = Some(figure),
                    None => notices.push(Notice {
                        key: key.clone(),
                        message: format!(
                            "there is no figure {:?}; showing the whole page",
                            excerpt(&raw_value)
                        ),
                    }),
                },
                "hide" => {
                    if raw_value.split(',').any(|v| v.trim() == "controls") {
                        hide_controls = true;
                    } else {
                        notices.push(Notice {
                            key: key.clone(),
                            message: format!(
                                "{:?} is not understood (use hide=controls)",
                                excerpt(&raw_value)
                            ),
                        });
                    }
                }
                "controls" => controls_text = Some(raw_value.to_string()),
                "step" => match parse_number(raw_value.trim()) {
                    Some(k) if k.fract() == 0.0 && (1.0..=MAX_STEPS as f64).contains(&k) => {
                        view.step = Some(k as u32)
                    }
                    _ => notices.push(Notice {
                        key: key.clone(),
                        message: format!(
                            "{:?} is not a step from 1 to {MAX_STEPS}; starting without one",
                            excerpt(&raw_value)
                        ),
                    }),
                },
                "theme" => match THEMES.row(raw_value.trim()) {
                    Some(theme) => view.theme = Some(theme.value),
                    None => notices.push(Notice {
                        key: key.clone(),
                        message: format!(
                            "{:?} is not dark or light; following the system",
                            excerpt(&raw_value)
                        ),
                    }),
                },
                _ => {
                    if let Some(i) = spec_index(&key) {
                        let (value, notice) = parse_value(&PARAMS[i], &raw_value);
                        params.values[i] = value;
                        if let Some(message) = notice {
                            notices.push(Notice {
                                key: key.clone(),
                                message,
                            });
                        }
                    }
                }
            }
        }
        let chosen =
            controls_text.and_then(|text| chosen_controls(&text, view.embed, &mut notices));
        // `hide=controls` hides them in an embed; the page always shows its controls.
        view.controls = match chosen {
            _ if hide_controls && view.embed.is_some() => ShownControls::Hidden,
            Some(keys) => ShownControls::Only(keys),
            None => ShownControls::All,
        };
        (params, view, notices)
    }

    /// The query string (no `?`) of every value that differs from its default, optionally
    /// only for keys used by `figure`.
    pub fn to_query(&self, figure: Option<FigureId>) -> String {
        PARAMS
            .iter()
            .zip(&self.values)
            .filter(|(spec, value)| **value != spec.default)
            .filter(|(spec, _)| figure.is_none_or(|f| spec.figures.contains(&f)))
            .map(|(spec, value)| {
                format!("{}={}", spec.key, encode_component(&display_value(value)))
            })
            .collect::<Vec<_>>()
            .join("&")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::view::Theme;

    fn parse(q: &str) -> (Params, View, Vec<Notice>) {
        Params::from_query(q)
    }

    #[test]
    fn empty_query_gives_defaults_and_no_notice() {
        let (p, v, n) = parse("");
        assert_eq!(p, Params::default());
        assert_eq!(v, View::default());
        assert!(n.is_empty());
    }

    #[test]
    fn defaults_are_left_out_of_the_query() {
        assert_eq!(Params::default().to_query(None), "");
    }

    #[test]
    fn valid_values_round_trip() {
        let q = "n=12&dk=256&div=0&alpha=3.5&seed=42&z=1.5,-0.2,3";
        let (p, _, n) = parse(q);
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(p.to_query(None), q);
        let (again, _, _) = parse(&p.to_query(None));
        assert_eq!(again, p);
    }

    #[test]
    fn out_of_range_values_are_clamped_with_a_notice() {
        let (p, _, n) = parse("n=1000&alpha=-3");
        assert_eq!(p.int("n"), 64);
        assert_eq!(p.float("alpha"), 0.05);
        assert_eq!(n.len(), 2);
        assert!(n[0].message.contains("64"));
    }

    #[test]
    fn unparseable_nan_and_infinite_values_fall_back_to_the_default() {
        for bad in ["abc", "NaN", "inf", "-inf", "", "1e999"] {
            let (p, _, n) = parse(&format!("alpha={bad}"));
            assert_eq!(p.float("alpha"), 1.0, "alpha={bad}");
            assert_eq!(n.len(), 1, "alpha={bad}");
            assert_eq!(n[0].key, "alpha");
        }
    }

    #[test]
    fn dk_snaps_to_the_nearest_power_of_two() {
        let (p, _, n) = parse("dk=100");
        assert_eq!(p.int("dk"), 128);
        assert_eq!(n.len(), 1);
        let (p, _, n) = parse("dk=5000");
        assert_eq!(p.int("dk"), 1024);
        assert_eq!(n.len(), 1);
        let (p, _, n) = parse("dk=-3");
        assert_eq!(p.int("dk"), 1);
        assert_eq!(n.len(), 1);
    }

    #[test]
    fn unknown_keys_are_ignored_silently() {
        let (p, _, n) = parse("foo=bar&utm_source=x");
        assert_eq!(p, Params::default());
        assert!(n.is_empty());
    }

    #[test]
    fn repeated_keys_use_the_first_and_say_so() {
        let (p, _, n) = parse("n=5&n=9");
        assert_eq!(p.int("n"), 5);
        assert_eq!(n.len(), 1);
    }

    #[test]
    fn score_list_with_a_bad_entry_is_rejected_whole() {
        let (p, _, n) = parse("z=1,2,NaN");
        assert_eq!(p.list("z"), None);
        assert_eq!(n.len(), 1);
        assert!(n[0].message.contains("entry 3"));
    }

    #[test]
    fn score_list_is_truncated_and_clamped() {
        let many = (0..70).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
        let (p, _, n) = parse(&format!("z={many}"));
        assert_eq!(p.list("z").map(|v| v.len()), Some(64));
        assert_eq!(n.len(), 1);
        let (p, _, _) = parse("z=1e9,0");
        assert_eq!(p.list("z"), Some(vec![1000.0, 0.0]));
    }

    #[test]
    fn score_list_needs_two_values() {
        let (p, _, n) = parse("z=3");
        assert_eq!(p.list("z"), None);
        assert_eq!(n.len(), 1);
    }

    #[test]
    fn percent_encoded_values_are_decoded() {
        let (p, _, n) = parse("z=1.5%2C-2&alpha=%32");
        assert!(n.is_empty());
        assert_eq!(p.list("z"), Some(vec![1.5, -2.0]));
        assert_eq!(p.float("alpha"), 2.0);
    }

    #[test]
    fn embed_view_and_theme_are_read() {
        let (_, v, n) = parse("embed=jacobian&hide=controls&theme=dark");
        assert_eq!(v.embed, Some(FigureId::Jacobian));
        assert_eq!(v.controls, ShownControls::Hidden);
        assert_eq!(v.theme, Some(Theme::Dark));
        assert!(n.is_empty());
    }

    #[test]
    fn chosen_controls_keep_the_figures_own_keys_and_name_the_others() {
        let (_, v, n) = parse("embed=jacobian&controls=alpha,div,ctx,bogus,alpha");
        assert_eq!(v.controls, ShownControls::Only(vec!["alpha", "div"]));
        assert_eq!(n.len(), 1, "{n:?}");
        assert!(n[0]
            .message
            .contains("ctx, bogus are not a control of figure jacobian"));
        // On the page, any key of the table is a control of some figure.
        let (_, v, n) = parse("controls=ctx,depth");
        assert_eq!(v.controls, ShownControls::Only(vec!["ctx", "depth"]));
        assert!(n.is_empty());
    }

    #[test]
    fn controls_that_name_nothing_show_every_control() {
        let (_, v, n) = parse("embed=jacobian&controls=depth");
        assert_eq!(v.controls, ShownControls::All);
        assert_eq!(n.len(), 1);
        let (_, v, n) = parse("controls=,,");
        assert_eq!(v.controls, ShownControls::All);
        assert!(n[0].message.contains("names no control"));
    }

    #[test]
    fn hostile_controls_text_stays_text() {
        let (_, v, n) = parse("embed=jacobian&controls=%3Cscript%3E,alpha");
        assert_eq!(v.controls, ShownControls::Only(vec!["alpha"]));
        assert!(n[0].message.contains("<script>"));
    }

    #[test]
    fn text_becomes_a_checked_value() {
        assert_eq!(value_from_text("alpha", "20"), Some(Value::Float(20.0)));
        assert_eq!(value_from_text("alpha", "99"), Some(Value::Float(50.0)));
        assert_eq!(value_from_text("div", "0"), Some(Value::Bool(false)));
        assert_eq!(value_from_text("norm", "pre"), Some(Value::Choice("pre")));
        assert_eq!(value_from_text("nope", "1"), None);
    }

    #[test]
    fn a_step_is_a_whole_number_from_one() {
        assert_eq!(parse("step=2").1.step, Some(2));
        for bad in ["0", "-1", "1.5", "x", "99", "NaN"] {
            let (_, v, n) = parse(&format!("step={bad}"));
            assert_eq!(v.step, None, "{bad}");
            assert_eq!(n.len(), 1, "{bad}");
        }
    }

    #[test]
    fn unknown_embed_id_gives_a_notice_and_the_whole_page() {
        let (_, v, n) = parse("embed=%3Cscript%3E");
        assert_eq!(v.embed, None);
        assert_eq!(n.len(), 1);
        assert!(
            n[0].message.contains("<script>"),
            "text is kept as text: {}",
            n[0].message
        );
    }

    #[test]
    fn very_long_values_are_rejected_before_parsing() {
        let long = "9".repeat(10_000);
        let (p, _, n) = parse(&format!("alpha={long}"));
        assert_eq!(p.float("alpha"), 1.0);
        assert!(n[0].message.contains("too long"));
    }

    #[test]
    fn pass2_keys_parse_and_clamp() {
        let (p, _, n) = parse("ctx=2000000&model=LLAMA3-8B&dtype=fp8&batch=0&ckv=0");
        assert_eq!(p.int("ctx"), 1_048_576);
        assert_eq!(p.choice("model"), "llama3-8b");
        assert_eq!(p.choice("dtype"), "fp8");
        assert_eq!(p.int("batch"), 1);
        assert_eq!(p.int("ckv"), 1);
        assert_eq!(n.len(), 3, "{n:?}");
        let (p, _, n) = parse("model=gpt5");
        assert_eq!(p.choice("model"), "llama2-7b");
        assert_eq!(n.len(), 1);
    }

    #[test]
    fn figure_queries_carry_only_that_figures_keys() {
        let (p, _, _) = parse("n=12&div=0&z=1,2");
        assert_eq!(p.to_query(Some(FigureId::JacobianVsDk)), "n=12&div=0");
        assert_eq!(p.to_query(Some(FigureId::Jacobian)), "n=12&div=0&z=1,2");
    }

    #[test]
    fn every_key_is_documented_in_the_url_table() {
        let readme = include_str!("../../docs/url-state.md");
        for spec in PARAMS {
            let row = format!("| `{}` |", spec.key);
            assert!(
                readme.contains(&row),
                "docs/url-state.md has no table row for key {}",
                spec.key
            );
        }
        for key in VIEW_KEYS {
            assert!(
                readme.contains(&format!("| `{key}` |")),
                "docs/url-state.md has no row for {key}"
            );
        }
    }

    use proptest::prelude::*;
    proptest! {
        #[test]
        fn any_query_string_parses_without_panic_to_valid_values(q in ".{0,200}") {
            let (p, _, _) = Params::from_query(&q);
            let n = p.int("n");
            prop_assert!((2..=64).contains(&n));
            let a = p.float("alpha");
            prop_assert!(a.is_finite() && (0.05..=50.0).contains(&a));
            prop_assert!(p.int("dk").count_ones() == 1);
        }

        #[test]
        fn written_queries_parse_back_to_the_same_state(n in 2i64..=64, e in 0u32..=10, a in 0.05f64..50.0, seed in 0i64..999_999) {
            let mut p = Params::default();
            // Test only: set fails only on an unknown key or a wrong type; these are known keys
            // with values of their own type (out-of-range values are clamped, not refused).
            p.set("n", Value::Int(n)).unwrap();
            p.set("dk", Value::Int(1 << e)).unwrap();
            p.set("alpha", Value::Float(a)).unwrap();
            p.set("seed", Value::Int(seed)).unwrap();
            let (back, _, notices) = Params::from_query(&p.to_query(None));
            prop_assert!(notices.is_empty());
            prop_assert_eq!(back, p);
        }
    }
}
