//! How the page is laid out, from the keys that are not controls: `embed`, `hide`,
//! `controls`, `step` and `theme`. One model, [`View`]: the query parser
//! (`Params::from_query`) is the one place that reads these keys, [`View::to_query`] the
//! one place that writes them (the address bar and the embed code both go through it).

use super::choices::THEMES;
use super::registry::FigureId;

/// A colour scheme (`theme=dark|light`, or the system's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

/// Which of a figure's controls show.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ShownControls {
    /// Every control.
    #[default]
    All,
    /// Only these, by URL key (`controls=<key>,<key>,…`).
    Only(Vec<&'static str>),
    /// None (`hide=controls`, in an embed).
    Hidden,
}

impl ShownControls {
    /// What keeping `kept` of a figure's `all` controls amounts to (the keys in `all`'s
    /// order).
    pub fn keeping(kept: &[&'static str], all: &[&'static str]) -> Self {
        if kept.is_empty() {
            Self::Hidden
        } else if all.iter().all(|k| kept.contains(k)) {
            Self::All
        } else {
            Self::Only(all.iter().copied().filter(|k| kept.contains(k)).collect())
        }
    }

    /// Whether the control of `key` shows.
    pub fn shows(&self, key: &str) -> bool {
        match self {
            Self::All => true,
            Self::Only(keys) => keys.contains(&key),
            Self::Hidden => false,
        }
    }

    /// Its `key=value` in an address (`None` for every control, the default).
    fn query(&self) -> Option<String> {
        match self {
            Self::All => None,
            Self::Only(keys) => Some(format!("controls={}", keys.join(","))),
            Self::Hidden => Some("hide=controls".into()),
        }
    }
}

/// How the page is laid out, from the keys `embed`, `hide`, `controls`, `step` and
/// `theme`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct View {
    /// Render only this figure (`embed=<figure-id>`).
    pub embed: Option<FigureId>,
    /// The controls shown (`controls=`, and `hide=controls` in an embed: outside one the
    /// page always shows its controls).
    pub controls: ShownControls,
    /// Open a figure at this guided step, from 1 (`step=<k>`).
    pub step: Option<u32>,
    /// Forced colour scheme.
    pub theme: Option<Theme>,
}

impl View {
    /// Whether the control of `key` shows.
    pub fn shows_control(&self, key: &str) -> bool {
        self.controls.shows(key)
    }

    /// The view's keys as a query string (no `?`; "" when every key has its default), in
    /// the order `embed`, `hide`/`controls`, `step`, `theme`.
    pub fn to_query(&self) -> String {
        [
            self.embed.map(|id| format!("embed={}", id.as_str())),
            self.controls.query(),
            self.step.map(|k| format!("step={k}")),
            self.theme.map(|t| format!("theme={}", THEMES.id_of(t))),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("&")
    }
}

/// The keys of [`View`], which the query parser reads besides the table's.
pub const VIEW_KEYS: [&str; 5] = ["embed", "hide", "controls", "step", "theme"];

/// The most guided steps a figure has.
pub const MAX_STEPS: u32 = 9;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Params;

    #[test]
    fn the_default_view_writes_nothing() {
        assert_eq!(View::default().to_query(), "");
    }

    #[test]
    fn keeping_every_control_or_none_is_all_or_hidden() {
        let all = ["n", "dk", "alpha"];
        assert_eq!(ShownControls::keeping(&all, &all), ShownControls::All);
        assert_eq!(ShownControls::keeping(&[], &all), ShownControls::Hidden);
        assert_eq!(
            ShownControls::keeping(&["alpha", "n"], &all),
            ShownControls::Only(vec!["n", "alpha"]),
            "in the figure's order"
        );
    }

    #[test]
    fn a_view_written_and_read_back_is_the_same_view() {
        let views = [
            View {
                embed: Some(FigureId::Jacobian),
                controls: ShownControls::Hidden,
                step: Some(2),
                theme: Some(Theme::Dark),
            },
            View {
                embed: Some(FigureId::Jacobian),
                controls: ShownControls::Only(vec!["alpha", "div"]),
                ..View::default()
            },
            View {
                step: Some(3),
                theme: Some(Theme::Light),
                ..View::default()
            },
        ];
        for view in views {
            let (_, read, notices) = Params::from_query(&view.to_query());
            assert!(notices.is_empty(), "{notices:?}");
            assert_eq!(read, view);
        }
    }

    #[test]
    fn every_view_key_is_written_by_some_view() {
        let written = View {
            embed: Some(FigureId::Jacobian),
            controls: ShownControls::Hidden,
            step: Some(1),
            theme: Some(Theme::Dark),
        }
        .to_query()
            + "&"
            + &View {
                controls: ShownControls::Only(vec!["n"]),
                ..View::default()
            }
            .to_query();
        for key in VIEW_KEYS {
            assert!(written.contains(&format!("{key}=")), "{key}: {written}");
        }
    }
}
