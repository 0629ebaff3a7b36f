//! How the page is laid out, from the keys that are not controls: `embed`, `hide` and
//! `theme`.

/// A colour scheme (`theme=dark|light`, or the system's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

/// How the page is laid out, from the keys `embed`, `hide` and `theme`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewParams {
    /// Render only this figure (`embed=<figure-id>`).
    pub embed: Option<&'static str>,
    /// Hide the figure's controls (`hide=controls`).
    pub hide_controls: bool,
    /// Forced colour scheme.
    pub theme: Option<Theme>,
}

/// The keys of [`ViewParams`], which the query parser reads besides the table's.
pub const VIEW_KEYS: [&str; 3] = ["embed", "hide", "theme"];
