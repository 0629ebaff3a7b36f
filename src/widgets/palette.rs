//! The colour scheme's colours as drawing code needs them, read from the CSS custom
//! properties of the page (`--c-*`), and provided to every figure.

use leptos::prelude::*;

/// The colours of the scheme in use, as drawing code needs them (read once per change).
pub fn use_palette() -> Signal<Palette> {
    use_context::<RwSignal<Palette>>()
        .map(Signal::from)
        .unwrap_or_else(|| Signal::stored(Palette::read()))
}

/// The theme's colours, read once per theme change from the CSS custom properties on
/// `<html>` (reading computed style inside a draw would force a style recalculation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Palette {
    pub bg: (u8, u8, u8),
    pub fg: (u8, u8, u8),
    pub muted: (u8, u8, u8),
    pub grid: (u8, u8, u8),
    pub coral: (u8, u8, u8),
    pub blue: (u8, u8, u8),
    pub green: (u8, u8, u8),
    pub purple: (u8, u8, u8),
    pub gold: (u8, u8, u8),
    pub teal: (u8, u8, u8),
    pub pink: (u8, u8, u8),
}

impl Default for Palette {
    fn default() -> Self {
        Palette {
            bg: (255, 255, 255),
            fg: (29, 29, 31),
            muted: (95, 99, 104),
            grid: (227, 225, 220),
            coral: (217, 84, 63),
            blue: (42, 111, 191),
            green: (46, 139, 87),
            purple: (123, 79, 184),
            gold: (183, 134, 11),
            teal: (23, 128, 138),
            pink: (176, 58, 134),
        }
    }
}

impl Palette {
    /// Whether the page is dark: its surface darker than mid-grey (luma 0.299 r + 0.587 g
    /// + 0.114 b below 128).
    pub fn is_dark(&self) -> bool {
        let (r, g, b) = self.bg;
        0.299 * f64::from(r) + 0.587 * f64::from(g) + 0.114 * f64::from(b) < 128.0
    }

    /// Reads the palette from the document's root element (its computed style read once;
    /// not inlined: the page calls it from a few places).
    #[inline(never)]
    pub fn read() -> Self {
        let d = Palette::default();
        let Some(style) = document()
            .document_element()
            .and_then(|root| window().get_computed_style(&root).ok().flatten())
        else {
            return d;
        };
        let color = |name: &str, fallback: (u8, u8, u8)| {
            style
                .get_property_value(name)
                .ok()
                .and_then(|v| parse_hex_color(v.trim()))
                .unwrap_or(fallback)
        };
        Palette {
            bg: color("--c-surface", d.bg),
            fg: color("--c-fg", d.fg),
            muted: color("--c-muted", d.muted),
            grid: color("--c-grid", d.grid),
            coral: color("--c-coral", d.coral),
            blue: color("--c-blue", d.blue),
            green: color("--c-green", d.green),
            purple: color("--c-purple", d.purple),
            gold: color("--c-gold", d.gold),
            teal: color("--c-teal", d.teal),
            pink: color("--c-pink", d.pink),
        }
    }
}

/// CSS `rgb()` text of a colour.
pub fn css_rgb((r, g, b): (u8, u8, u8)) -> String {
    format!("rgb({r},{g},{b})")
}

/// Parses `#rgb` or `#rrggbb`.
pub fn parse_hex_color(text: &str) -> Option<(u8, u8, u8)> {
    let hex = text.strip_prefix('#')?;
    let digits: Vec<u8> = hex
        .chars()
        .map(|c| c.to_digit(16).map(|d| d as u8))
        .collect::<Option<_>>()?;
    match digits.len() {
        3 => Some((digits[0] * 17, digits[1] * 17, digits[2] * 17)),
        6 => Some((
            digits[0] * 16 + digits[1],
            digits[2] * 16 + digits[3],
            digits[4] * 16 + digits[5],
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_colours_parse() {
        assert_eq!(parse_hex_color("#ff8000"), Some((255, 128, 0)));
        assert_eq!(parse_hex_color("#fff"), Some((255, 255, 255)));
        assert_eq!(parse_hex_color("red"), None);
    }

    #[test]
    fn a_dark_surface_makes_a_dark_palette() {
        assert!(!Palette::default().is_dark());
        let dark = Palette {
            bg: (27, 29, 33),
            ..Palette::default()
        };
        assert!(dark.is_dark());
    }
}
