//! Reusable components: controls, readouts, formulas, heatmaps, charts and the figure frame.
//! Pure helpers (colour maps, formatting, scales) are tested natively.

pub mod chart;
pub mod colormap;
pub mod controls;
pub mod figure;
pub mod format;
pub mod formula;
pub mod heatmap;
pub mod hooks;
pub mod offload;
pub mod readout;

pub use chart::{Axis, Chart, ChartSpec, Mark, Tone};
pub use colormap::{ColorMap, ColorScale};
pub use controls::{NumberField, Scale, SeedField, Select, Slider, Toggle};
pub use figure::Figure;
pub use formula::Formula;
pub use heatmap::{ColorBar, Grid, Heatmap};
pub use readout::Readout;
