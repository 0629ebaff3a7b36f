//! Reusable components and the browser plumbing behind them: controls, readouts,
//! formulas, heatmaps, charts and the figure frame; observers, timing, the palette, the
//! worker client. Pure helpers (colour maps, formatting, scales, tick positions) are
//! tested natively. Widgets read the URL state (`crate::state`) and the math core, never
//! a pass.

pub mod canvas;
pub mod chart;
pub mod chrome;
pub mod colormap;
pub mod controls;
pub mod custom_model;
pub mod export;
pub mod figure;
pub mod format;
pub mod formula;
pub mod heading;
pub mod heatmap;
pub mod linked;
pub mod location;
pub mod observers;
pub mod palette;
pub mod readings;
pub mod readout;
pub mod share;
pub mod steps;
pub mod timing;
pub mod training;
pub mod training_view;
pub mod worker;

pub use chart::{Axis, Chart, ChartSpec, Mark, Tone};
pub use colormap::{ColorMap, ColorScale};
pub use controls::{NumberField, Scale, SeedField, Select, Slider, Toggle};
pub use custom_model::CustomModelFields;
pub use figure::Figure;
pub use formula::Formula;
pub use heading::PassHeading;
pub use heatmap::{ColorBar, Grid, Heatmap, HeatmapHint, LitCells};
pub use linked::{LinkSignal, LinkedFormula};
pub use readings::{use_figure_readings, FigureReadings};
pub use readout::{Readout, ReadoutRow};
pub use steps::{Decide, Measure, Prediction, Step, Steps};
