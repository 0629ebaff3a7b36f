//! Numbers from text: the URL's values, the sliders' positions and the number fields all
//! go through [`parse_number`], which accepts decimal numerals and nothing else.

/// The number a decimal numeral denotes, correctly rounded to f64 (±∞ past its range), or
/// `None` where `text` is not one: an optional sign, digits with an optional fraction
/// (`12`, `-2.5`, `.5`, `3.`), an optional exponent (`1e3`, `1.5E-7`). Nothing else: no
/// spaces, no hexadecimal, no `inf` or `NaN` (which the callers reject anyway).
///
/// In the browser the value comes from JavaScript's `parseFloat` of the checked numeral,
/// which rounds correctly as well (ECMA-262's StringToNumber), instead of `str::parse`,
/// whose correctly rounding algorithm brings a 10 KB table of powers of five into the
/// page's first load. Natively it is `str::parse`; a component test checks that the two
/// agree in the browser.
pub fn parse_number(text: &str) -> Option<f64> {
    if !is_decimal_numeral(text) {
        return None;
    }
    #[cfg(target_arch = "wasm32")]
    {
        Some(js_sys::Number::parse_float(text))
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        text.parse::<f64>().ok()
    }
}

/// Whether `text` is `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`.
pub fn is_decimal_numeral(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits_from = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let int_end = digits_from(i);
    let mut any_digit = int_end > i;
    i = int_end;
    if b.get(i) == Some(&b'.') {
        let frac_end = digits_from(i + 1);
        any_digit |= frac_end > i + 1;
        i = frac_end;
    }
    if !any_digit {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp_end = digits_from(j);
        if exp_end == j {
            return false;
        }
        i = exp_end;
    }
    i == b.len()
}

/// Rounds a finite value to `digits` significant decimal digits.
pub fn round_significant(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let magnitude = x.abs().log10().floor() as i32;
    let factor = 10f64.powi(digits - 1 - magnitude);
    let rounded = (x * factor).round() / factor;
    if rounded.is_finite() {
        rounded
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_numerals_parse_to_what_str_parse_gives() {
        for text in [
            "0",
            "12",
            "-2.5",
            "+3",
            ".5",
            "3.",
            "-.25",
            "1e3",
            "1.5E-7",
            "2e+2",
            "0.1",
            "0.30000000000000004",
            "123456789012345678901234567890",
            "1e308",
            "4.9e-324",
            "2.2250738585072014e-308",
        ] {
            assert_eq!(parse_number(text), text.parse::<f64>().ok(), "{text}");
        }
    }

    #[test]
    fn a_numeral_past_f64_is_infinite_not_rejected() {
        assert_eq!(parse_number("1e400"), Some(f64::INFINITY));
        assert_eq!(parse_number("-1e400"), Some(f64::NEG_INFINITY));
    }

    #[test]
    fn anything_but_a_decimal_numeral_is_rejected() {
        for text in [
            "", "+", "-", ".", "e3", "1e", "1e+", "1.2.3", "0x10", "inf", "Infinity", "NaN", "nan",
            " 1", "1 ", "1,5", "--1", "1e3.5", "١٢", "1_000", "<script>",
        ] {
            assert_eq!(parse_number(text), None, "{text:?}");
        }
    }

    #[test]
    fn round_significant_by_hand() {
        assert_eq!(round_significant(1.2589254117941673, 3), 1.26);
        assert_eq!(round_significant(0.050118723, 3), 0.0501);
        assert_eq!(round_significant(49.99, 2), 50.0);
    }
}
