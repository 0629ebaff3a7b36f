//! Number formatting for readouts, captions, sliders and axes (pure). Every formatter of
//! the page is here, named after what it prints; a readout or slider takes one of them as
//! its `format`.

/// A number with `sig` significant digits, switching to scientific notation written as
/// in print, "1.41×10⁻¹¹" (superscript exponent), outside 10⁻³…10⁵. Non-finite values
/// are named, never printed as "NaN".
pub fn format_number(x: f64, sig: usize) -> String {
    if x.is_nan() {
        return "undefined".into();
    }
    if x.is_infinite() {
        return if x > 0.0 {
            "overflow (∞)".into()
        } else {
            "overflow (−∞)".into()
        };
    }
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    let sig = sig.max(1);
    let text = if (1e-3..1e5).contains(&a) {
        let decimals = (sig as i32 - 1 - a.log10().floor() as i32).max(0) as usize;
        format!("{x:.decimals$}")
    } else {
        let s = format!("{x:.prec$e}", prec = sig - 1);
        match s
            .split_once('e')
            .and_then(|(m, e)| Some((m, e.parse::<i32>().ok()?)))
        {
            Some((mantissa, exp)) => format!("{mantissa}×10{}", superscript(exp)),
            None => s,
        }
    };
    text.replace('-', "−")
}

/// Bytes in binary units (B, KiB, MiB, GiB, TiB, PiB, EiB) with three significant digits.
pub fn format_bytes(bytes: f64) -> String {
    if !bytes.is_finite() {
        return format_number(bytes, 3);
    }
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes;
    let mut unit = 0;
    while value.abs() >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{} B", value.round() as i64)
    } else {
        format!("{} {}", format_number(value, 3), UNITS[unit])
    }
}

/// Subscript digits for an index, e.g. p₁₂.
pub fn subscript(index: usize) -> String {
    index
        .to_string()
        .chars()
        .map(|c| char::from_u32(0x2080 + c.to_digit(10).unwrap_or(0)).unwrap_or(c))
        .collect()
}

/// Superscript digits for an exponent, e.g. 10⁻⁵.
pub fn superscript(exp: i32) -> String {
    exp.to_string()
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            '9' => '⁹',
            other => other,
        })
        .collect()
}

/// An axis tick label: plain for 10⁻²…10⁴, "10ᵏ" for exact powers of ten, else scientific.
pub fn tick_label(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    let exp = a.log10().round() as i32;
    if (a / 10f64.powi(exp) - 1.0).abs() < 1e-9 && !(-2..=4).contains(&exp) {
        return format!("{}10{}", if x < 0.0 { "−" } else { "" }, superscript(exp));
    }
    if (1e-2..1e5).contains(&a) {
        let s = format!("{:.3}", x);
        let s = s.trim_end_matches('0').trim_end_matches('.').to_string();
        return s.replace('-', "−");
    }
    format_number(x, 2)
}

/// The labels of one axis's ticks, all in one style: plain numerals when every tick lies
/// in 10⁻²…10⁴, else every tick in powers of ten ("10⁵", "2×10⁵"), so that 10³ and 10⁴ read
/// like 10⁵ beside them. Zero is "0" in either style.
pub fn axis_tick_labels(ticks: &[f64]) -> Vec<String> {
    let plain = ticks
        .iter()
        .all(|&x| x == 0.0 || (1e-2..1e5).contains(&x.abs()));
    ticks
        .iter()
        .map(|&x| {
            if plain || x == 0.0 || !x.is_finite() {
                tick_label(x)
            } else {
                power_of_ten_label(x)
            }
        })
        .collect()
}

/// A tick in powers of ten: "10⁵" for a power, "2×10⁵" (or "2.5×10⁵") otherwise.
fn power_of_ten_label(x: f64) -> String {
    let exp = x.abs().log10().floor() as i32;
    let mantissa = x / 10f64.powi(exp);
    let sign = if x < 0.0 { "−" } else { "" };
    let m = format!("{:.2}", mantissa.abs());
    let m = m.trim_end_matches('0').trim_end_matches('.');
    if m == "1" {
        format!("{sign}10{}", superscript(exp))
    } else if m == "10" {
        format!("{sign}10{}", superscript(exp + 1))
    } else {
        format!("{sign}{m}×10{}", superscript(exp))
    }
}

/// A number rounded to a whole one ("32").
pub fn whole(x: f64) -> String {
    format!("{}", x.round() as i64)
}

/// A whole number, or "…" while it is being computed (NaN).
pub fn pending_whole(x: f64) -> String {
    if x.is_finite() {
        whole(x)
    } else {
        "…".into()
    }
}

/// `x` to `sig` significant digits, or "…" while it is being computed (NaN).
pub fn pending_or(x: f64, sig: usize) -> String {
    if x.is_finite() {
        format_number(x, sig)
    } else {
        "…".into()
    }
}

/// Three significant digits ("1.25", "0.0501").
pub fn three_digits(x: f64) -> String {
    format_number(x, 3)
}

/// Two significant digits ("1.0", "0.50").
pub fn two_digits(x: f64) -> String {
    format_number(x, 2)
}

/// Three significant digits, or "…" while the value is being computed (NaN).
pub fn pending_three_digits(x: f64) -> String {
    pending_or(x, 3)
}

/// Four significant digits, or "…" while the value is being computed (NaN).
pub fn pending_four_digits(x: f64) -> String {
    pending_or(x, 4)
}

/// Whole numbers as integers ("32"), anything else to three significant digits.
pub fn whole_or_three_digits(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e6 {
        format!("{}", x as i64)
    } else {
        format_number(x, 3)
    }
}

/// A whole number with its thousands grouped by thin spaces ("16 777 216").
pub fn grouped_whole(x: f64) -> String {
    if x.is_finite() && x.abs() < 1e15 {
        let digits = format!("{}", x.round() as i64);
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push('\u{202F}');
            }
            out.push(c);
        }
        out
    } else {
        format_number(x, 4)
    }
}

/// A factor something is multiplied by ("×4.00": the growth when n doubles).
pub fn growth_factor(x: f64) -> String {
    format!("×{}", format_number(x, 3))
}

/// How many times larger one thing is than another ("256×").
pub fn times_larger(x: f64) -> String {
    format!("{}×", format_number(x, 4))
}

/// A number that may have left f64's range: "0 (underflow)" for an exact 0 (it fell
/// below the smallest f64), "overflow" for +∞, "…" for NaN (not computed yet), otherwise
/// three significant digits.
pub fn number_or_f64_limit(x: f64) -> String {
    if x == 0.0 {
        "0 (underflow)".into()
    } else if x.is_finite() {
        format_number(x, 3)
    } else if x.is_nan() {
        "…".into()
    } else {
        "overflow".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_not_known_yet_reads_as_pending() {
        assert_eq!(pending_whole(f64::NAN), "…");
        assert_eq!(pending_whole(32.0), "32");
        assert_eq!(pending_or(f64::NAN, 3), "…");
        assert_eq!(pending_or(0.28153, 3), "0.282");
    }

    #[test]
    fn formats_by_hand() {
        assert_eq!(format_number(0.123456, 3), "0.123");
        assert_eq!(format_number(12.3456, 3), "12.3");
        assert_eq!(format_number(-0.5, 2), "−0.50");
        assert_eq!(format_number(1.1e-5, 2), "1.1×10⁻⁵");
        assert_eq!(format_number(-1.41e-11, 3), "−1.41×10⁻¹¹");
        assert_eq!(format_number(6.02e23, 3), "6.02×10²³");
        assert_eq!(format_number(1e300, 2), "1.0×10³⁰⁰");
        assert_eq!(format_number(f64::NAN, 3), "undefined");
        assert_eq!(format_number(f64::INFINITY, 3), "overflow (∞)");
    }

    #[test]
    fn bytes_by_hand() {
        assert_eq!(format_bytes(512.0), "512 B");
        assert_eq!(format_bytes(1024.0 * 1024.0 * 1024.0), "1.00 GiB");
        assert_eq!(format_bytes(1.5 * 1024.0f64.powi(4)), "1.50 TiB");
        assert_eq!(format_bytes(36_864.0), "36.0 KiB");
    }

    #[test]
    fn grouped_whole_numbers_group_thousands() {
        assert_eq!(grouped_whole(16_777_216.0), "16\u{202F}777\u{202F}216");
        assert_eq!(grouped_whole(512.0), "512");
    }

    #[test]
    fn limits_of_f64_are_named() {
        assert_eq!(number_or_f64_limit(0.0), "0 (underflow)");
        assert_eq!(number_or_f64_limit(f64::INFINITY), "overflow");
        assert_eq!(number_or_f64_limit(f64::NAN), "…");
        assert_eq!(number_or_f64_limit(2.0), "2.00");
    }

    #[test]
    fn ratios_and_factors_by_hand() {
        assert_eq!(growth_factor(4.0), "×4.00");
        assert_eq!(times_larger(256.0), "256.0×");
        assert_eq!(whole_or_three_digits(32.0), "32");
        assert_eq!(whole_or_three_digits(0.125), "0.125");
    }

    #[test]
    fn indices_are_written_below_the_line() {
        assert_eq!(subscript(0), "₀");
        assert_eq!(subscript(3), "₃");
        assert_eq!(subscript(127), "₁₂₇");
    }

    #[test]
    fn one_axis_has_one_tick_style() {
        assert_eq!(
            axis_tick_labels(&[1e3, 1e4, 1e5, 1e6]),
            vec!["10³", "10⁴", "10⁵", "10⁶"]
        );
        assert_eq!(
            axis_tick_labels(&[1.0, 10.0, 100.0]),
            vec!["1", "10", "100"]
        );
        assert_eq!(
            axis_tick_labels(&[1e-11, 1e-3, 0.1, 10.0]),
            vec!["10⁻¹¹", "10⁻³", "10⁻¹", "10¹"]
        );
        assert_eq!(
            axis_tick_labels(&[0.0, 2e5, 4e5, 1e6]),
            vec!["0", "2×10⁵", "4×10⁵", "10⁶"]
        );
        assert_eq!(axis_tick_labels(&[0.0, 0.5, 1.0]), vec!["0", "0.5", "1"]);
        assert_eq!(
            axis_tick_labels(&[-2.5e6, 2.5e6]),
            vec!["−2.5×10⁶", "2.5×10⁶"]
        );
    }

    #[test]
    fn tick_labels_by_hand() {
        assert_eq!(tick_label(1000.0), "1000");
        assert_eq!(tick_label(1e-5), "10⁻⁵");
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(tick_label(1e6), "10⁶");
    }
}
