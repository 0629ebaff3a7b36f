//! Colour maps for heatmaps: pure functions from a value to RGB, tested natively.
//!
//! Diverging: ColorBrewer RdBu (11 classes; colour-blind safe), negative blue, zero
//! near-white, positive red. On a dark page the same blues and reds are ordered so that
//! zero is dark and the colour brightens with |value| (a near-white middle would be the
//! brightest thing on the page, and the largest entries the darkest). Sequential: viridis
//! (perceptually uniform, colour-blind safe, and legible in greyscale), 16 anchors
//! interpolated linearly.

/// An sRGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

const RDBU: [u32; 11] = [
    0x053061, 0x2166ac, 0x4393c3, 0x92c5de, 0xd1e5f0, 0xf7f7f7, 0xfddbc7, 0xf4a582, 0xd6604d,
    0xb2182b, 0x67001f,
];
/// RdBu for a dark page: the two halves of [`RDBU`] turned around (each end is the light
/// colour RdBu puts next to its middle; the middle is a dark grey a step above the page).
const RDBU_ON_DARK: [u32; 11] = [
    0xd1e5f0, 0x92c5de, 0x4393c3, 0x2166ac, 0x173c66, 0x2b2b30, 0x5c1f24, 0xb2182b, 0xd6604d,
    0xf4a582, 0xfddbc7,
];
const VIRIDIS: [u32; 16] = [
    0x440154, 0x481a6c, 0x472f7d, 0x414487, 0x39568c, 0x31688e, 0x2a788e, 0x23888e, 0x1f988b,
    0x22a884, 0x35b779, 0x54c568, 0x7ad151, 0xa5db36, 0xd2e21b, 0xfde725,
];

/// Which colour map a heatmap uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorMap {
    /// Blue (negative) – white (zero) – red (positive).
    Diverging,
    /// Light blue (negative) – dark (zero) – light red (positive): [`ColorMap::Diverging`]
    /// for a dark page.
    DivergingOnDark,
    /// Dark purple (low) to yellow (high).
    Sequential,
}

/// A colour map with the value range it spans; values outside are clamped to the ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColorScale {
    pub map: ColorMap,
    pub min: f64,
    pub max: f64,
}

fn hex(c: u32) -> [f64; 3] {
    [
        ((c >> 16) & 0xff) as f64,
        ((c >> 8) & 0xff) as f64,
        (c & 0xff) as f64,
    ]
}

fn interpolate(anchors: &[u32], t: f64) -> Rgb {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.5
    };
    let pos = t * (anchors.len() - 1) as f64;
    let lo = (pos.floor() as usize).min(anchors.len() - 2);
    let frac = pos - lo as f64;
    let (a, b) = (hex(anchors[lo]), hex(anchors[lo + 1]));
    // Rounds half up (the channel is never negative): `floor` is one wasm instruction,
    // where `round` (half away from zero) is a call into libm, once per channel per cell.
    let mix = |i: usize| {
        (a[i] + (b[i] - a[i]) * frac + 0.5)
            .floor()
            .clamp(0.0, 255.0) as u8
    };
    Rgb(mix(0), mix(1), mix(2))
}

impl ColorScale {
    /// The position of `value` in [0, 1] along the scale (NaN maps to the middle).
    pub fn position(&self, value: f64) -> f64 {
        let span = self.max - self.min;
        if !value.is_finite() || span <= 0.0 || !span.is_finite() {
            return 0.5;
        }
        ((value - self.min) / span).clamp(0.0, 1.0)
    }

    /// The colour of `value`.
    pub fn color(&self, value: f64) -> Rgb {
        self.color_at(self.position(value))
    }

    /// The same scale for a page of the given darkness: a diverging map becomes
    /// [`ColorMap::DivergingOnDark`] on a dark page (and back on a light one); viridis
    /// reads on both.
    pub fn on_page(self, dark: bool) -> ColorScale {
        let map = match self.map {
            ColorMap::Diverging | ColorMap::DivergingOnDark if dark => ColorMap::DivergingOnDark,
            ColorMap::Diverging | ColorMap::DivergingOnDark => ColorMap::Diverging,
            ColorMap::Sequential => ColorMap::Sequential,
        };
        ColorScale { map, ..self }
    }

    /// The colour at position t ∈ [0, 1] of the map.
    pub fn color_at(&self, t: f64) -> Rgb {
        match self.map {
            ColorMap::Diverging => interpolate(&RDBU, t),
            ColorMap::DivergingOnDark => interpolate(&RDBU_ON_DARK, t),
            ColorMap::Sequential => interpolate(&VIRIDIS, t),
        }
    }
}

/// Entries of the table [`rgba_buffer`] colours from: 1024 steps along the map, finer than
/// one 8-bit step of any channel between two anchors.
const LUT_STEPS: usize = 1024;

/// Fills an RGBA buffer (row-major, `rows × cols`) with the colours of `values`, through a
/// table of the map at [`LUT_STEPS`] positions (a 256×256 matrix is coloured in about a
/// millisecond, where interpolating every cell took several).
pub fn rgba_buffer(values: &[f64], scale: &ColorScale) -> Vec<u8> {
    let last = (LUT_STEPS - 1) as f64;
    let table: Vec<[u8; 4]> = (0..LUT_STEPS)
        .map(|i| {
            let Rgb(r, g, b) = scale.color_at(i as f64 / last);
            [r, g, b, 255]
        })
        .collect();
    let span = scale.max - scale.min;
    let valid = span > 0.0 && span.is_finite();
    let mut out = vec![0u8; values.len() * 4];
    for (pixel, &v) in out.chunks_exact_mut(4).zip(values) {
        // Non-finite values (gaps between blocks, overflowed cells) are left transparent,
        // so they are never painted as if they were a number.
        if !v.is_finite() {
            continue;
        }
        let t = if valid {
            ((v - scale.min) / span).clamp(0.0, 1.0)
        } else {
            0.5
        };
        let index = ((t * last + 0.5) as usize).min(LUT_STEPS - 1);
        pixel.copy_from_slice(&table[index]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_colours_every_value_within_one_step_of_its_exact_colour() {
        let s = ColorScale {
            map: ColorMap::Diverging,
            min: -0.3,
            max: 0.7,
        };
        let values: Vec<f64> = (0..=2000).map(|i| -0.5 + i as f64 * 0.0007).collect();
        let buf = rgba_buffer(&values, &s);
        for (v, px) in values.iter().zip(buf.chunks_exact(4)) {
            let Rgb(r, g, b) = s.color(*v);
            for (got, want) in px[..3].iter().zip([r, g, b]) {
                assert!(
                    (*got as i32 - want as i32).abs() <= 1,
                    "{v}: {px:?} against {:?}",
                    (r, g, b)
                );
            }
            assert_eq!(px[3], 255);
        }
        let gaps = rgba_buffer(&[f64::NAN, f64::INFINITY], &s);
        assert_eq!(gaps, vec![0; 8], "non-finite cells stay transparent");
    }

    #[test]
    fn diverging_zero_is_the_neutral_middle() {
        let s = ColorScale {
            map: ColorMap::Diverging,
            min: -0.25,
            max: 0.25,
        };
        assert_eq!(s.color(0.0), Rgb(0xf7, 0xf7, 0xf7));
        assert_eq!(s.color(-0.25), Rgb(0x05, 0x30, 0x61));
        assert_eq!(s.color(0.25), Rgb(0x67, 0x00, 0x1f));
    }

    /// Relative luminance (WCAG) of an sRGB colour, in [0, 1].
    fn luminance(c: Rgb) -> f64 {
        let lin = |v: u8| {
            let v = v as f64 / 255.0;
            if v <= 0.04045 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(c.0) + 0.7152 * lin(c.1) + 0.0722 * lin(c.2)
    }

    fn luminance_from_middle_outwards(map: ColorMap) -> [Vec<f64>; 2] {
        let s = ColorScale {
            map,
            min: -1.0,
            max: 1.0,
        };
        let steps = |sign: f64| -> Vec<f64> {
            (0..=50)
                .map(|i| luminance(s.color(sign * i as f64 / 50.0)))
                .collect()
        };
        [steps(-1.0), steps(1.0)]
    }

    #[test]
    fn diverging_darkens_with_magnitude_on_a_light_page() {
        for side in luminance_from_middle_outwards(ColorMap::Diverging) {
            assert!(side.windows(2).all(|w| w[1] <= w[0] + 1e-3), "{side:?}");
            assert!(side[0] > 0.9 && side[50] < 0.05, "{side:?}");
        }
    }

    #[test]
    fn diverging_on_dark_brightens_with_magnitude_from_a_dark_zero() {
        for side in luminance_from_middle_outwards(ColorMap::DivergingOnDark) {
            assert!(side.windows(2).all(|w| w[1] >= w[0] - 1e-3), "{side:?}");
            assert!(side[0] < 0.03 && side[50] > 0.6, "{side:?}");
        }
    }

    #[test]
    fn both_diverging_maps_paint_negative_blue_and_positive_red() {
        for map in [ColorMap::Diverging, ColorMap::DivergingOnDark] {
            let s = ColorScale {
                map,
                min: -1.0,
                max: 1.0,
            };
            for m in [0.2, 0.5, 1.0] {
                let (neg, pos) = (s.color(-m), s.color(m));
                assert!(neg.2 > neg.0, "{map:?} at −{m}: {neg:?} is blue");
                assert!(pos.0 > pos.2, "{map:?} at {m}: {pos:?} is red");
            }
        }
    }

    #[test]
    fn a_scale_follows_the_page_and_back() {
        let light = ColorScale {
            map: ColorMap::Diverging,
            min: -1.0,
            max: 2.0,
        };
        let dark = light.on_page(true);
        assert_eq!(dark.map, ColorMap::DivergingOnDark);
        assert_eq!((dark.min, dark.max), (-1.0, 2.0));
        assert_eq!(dark.on_page(false), light);
        let viridis = ColorScale {
            map: ColorMap::Sequential,
            ..light
        };
        assert_eq!(viridis.on_page(true), viridis);
    }

    #[test]
    fn out_of_range_and_nan_values_are_clamped_not_garbage() {
        let s = ColorScale {
            map: ColorMap::Sequential,
            min: 0.0,
            max: 1.0,
        };
        assert_eq!(s.color(7.0), Rgb(0xfd, 0xe7, 0x25));
        assert_eq!(s.color(-7.0), Rgb(0x44, 0x01, 0x54));
        assert_eq!(s.position(f64::NAN), 0.5);
    }

    #[test]
    fn rgba_buffer_has_four_opaque_bytes_per_value() {
        let s = ColorScale {
            map: ColorMap::Diverging,
            min: -1.0,
            max: 1.0,
        };
        let buf = rgba_buffer(&[-1.0, 0.0, 1.0], &s);
        assert_eq!(buf.len(), 12);
        assert!(buf.chunks(4).all(|px| px[3] == 255));
    }

    #[test]
    fn sequential_map_gets_lighter_monotonically() {
        let s = ColorScale {
            map: ColorMap::Sequential,
            min: 0.0,
            max: 1.0,
        };
        let l: Vec<f64> = (0..=20)
            .map(|i| luminance(s.color(i as f64 / 20.0)))
            .collect();
        assert!(l.windows(2).all(|w| w[1] >= w[0] - 1e-3), "{l:?}");
    }
}
