//! What a chart draws, as data: axes (linear or log), marks (lines, bars, rules) and
//! their colours. Figures build a [`ChartSpec`]; [`super::draw`] turns it into pixels.

use crate::widgets::palette::Palette;

/// A named colour of the theme (CSS custom properties `--c-*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Fg,
    Muted,
    Coral,
    Blue,
    Green,
    Purple,
    Gold,
    Teal,
    Pink,
}

impl Tone {
    /// The colour of this tone in `palette`.
    pub fn rgb(self, palette: &Palette) -> (u8, u8, u8) {
        match self {
            Tone::Fg => palette.fg,
            Tone::Muted => palette.muted,
            Tone::Coral => palette.coral,
            Tone::Blue => palette.blue,
            Tone::Green => palette.green,
            Tone::Purple => palette.purple,
            Tone::Gold => palette.gold,
            Tone::Teal => palette.teal,
            Tone::Pink => palette.pink,
        }
    }
}

/// One axis: label, range, scale.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub label: String,
    pub min: f64,
    pub max: f64,
    pub log: bool,
}

/// Something drawn in a chart.
#[derive(Clone, Debug, PartialEq)]
pub enum Mark {
    /// A polyline through `points`.
    Line {
        label: String,
        points: Vec<(f64, f64)>,
        tone: Tone,
        dashed: bool,
        dots: bool,
    },
    /// Bars from the x axis (or the bottom of a log axis) up to each (x, y), `width` wide.
    Bars {
        label: String,
        bars: Vec<(f64, f64)>,
        tone: Tone,
        width: f64,
    },
    /// A horizontal rule at y with its label written on the plot at its right end (not in
    /// the legend); a label that would overlap the one written before it is left out.
    Level { label: String, y: f64, tone: Tone },
    /// Names instead of numbers under the x axis, at the given x positions.
    Categories { labels: Vec<(f64, String)> },
    /// A vertical rule at x.
    VRule { label: String, x: f64, tone: Tone },
    /// A horizontal rule at y.
    HRule { label: String, y: f64, tone: Tone },
}

/// Everything a chart draws.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartSpec {
    pub x: Axis,
    pub y: Axis,
    pub marks: Vec<Mark>,
}

impl Axis {
    /// A log axis from the decade at or below `lo` to the decade at or above `hi`
    /// (kept inside 10⁻³⁰⁰…10³⁰⁰, so it never reaches zero or infinity).
    pub fn log_decades(label: &str, lo: f64, hi: f64) -> Axis {
        Axis {
            label: label.into(),
            min: 10f64.powf(lo.log10().floor()).max(1e-300),
            max: 10f64.powf(hi.log10().ceil()).min(1e300),
            log: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_decades_round_out_and_stay_finite() {
        let a = Axis::log_decades("x", 3e-5, 42.0);
        assert_eq!((a.min, a.max), (1e-5, 100.0));
        let b = Axis::log_decades("x", 1e-320, 1e305);
        assert!(b.min > 0.0 && b.max.is_finite());
    }
}
