//! How the page is laid out, from the keys that are not controls: `embed`, `hide` and
//! `theme`.

/// A colour scheme (`theme=dark|light`, or the system's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

/// How the page is laid out, from the keys `embed`, `hide`, `controls`, `step` and
/// `theme`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewParams {
    /// Render only this figure (`embed=<figure-id>`).
    pub embed: Option<&'static str>,
    /// Hide the figure's controls (`hide=controls`).
    pub hide_controls: bool,
    /// Show only these controls, by URL key (`controls=<key>,<key>,…`); every control
    /// when `None`.
    pub controls: Option<Vec<&'static str>>,
    /// Open a figure at this guided step, from 1 (`step=<k>`).
    pub step: Option<u32>,
    /// Forced colour scheme.
    pub theme: Option<Theme>,
}

/// The keys of [`ViewParams`], which the query parser reads besides the table's.
pub const VIEW_KEYS: [&str; 5] = ["embed", "hide", "controls", "step", "theme"];

/// The most guided steps a figure has.
pub const MAX_STEPS: u32 = 9;
