//! A guided step as data: what it asks, the state it reaches, what it then says, and the
//! prediction asked before it, with how the right answer follows from the readouts.

use crate::state::parse_number;

/// A figure's readouts by name: (name, value). A handful per figure: a list, searched.
pub type Readouts<T> = Vec<(String, T)>;

/// The value of readout `name` in `readouts`.
pub(super) fn lookup<'a, T>(readouts: &'a Readouts<T>, name: &str) -> Option<&'a T> {
    readouts.iter().find(|(n, _)| n == name).map(|(_, v)| v)
}

/// One guided step of a figure.
#[derive(Debug)]
pub struct Step {
    /// What the reader is asked to watch, shown before the step runs.
    pub ask: &'static str,
    /// The state the step reaches: keys and their values as URL text, set on top of the
    /// state the steps before it reached (keys it does not name keep their values).
    pub to: &'static [(&'static str, &'static str)],
    /// What the reader now sees, filled in from the figure's readouts: `{r:name}` is a
    /// readout as shown, `{was:name}` as it was shown before the step ran, `{change:name}`
    /// how it changed ("fell 38×", "rose 2.10×", "stayed the same"), `{verdict}` the
    /// figure's own verdict on its state (its `data-verdict`).
    pub see: &'static str,
    /// A prediction asked before the step runs.
    pub predict: Option<Prediction>,
}

/// A question asked before a step: the reader commits to an option, the step runs, and the
/// reader's answer is shown beside the computed one.
#[derive(Debug)]
pub struct Prediction {
    pub question: &'static str,
    /// (id, label) of each option.
    pub options: &'static [(&'static str, &'static str)],
    /// How the right option is decided from the figure's readouts.
    pub decide: Decide,
    /// Why, filled in as [`Step::see`] is.
    pub why: &'static str,
}

/// How the right option of a [`Prediction`] follows from a readout (its full-precision
/// `data-value`) before and after the step: the first case whose bound the measure is
/// below, else `otherwise`.
#[derive(Debug)]
pub struct Decide {
    pub readout: &'static str,
    pub measure: Measure,
    /// (exclusive upper bound, option id), in increasing order of bound.
    pub cases: &'static [(f64, &'static str)],
    pub otherwise: &'static str,
}

/// What [`Decide`] compares with its bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// The readout after the step over the readout before.
    Ratio,
    /// The readout after the step.
    After,
}

/// A readout's full-precision value: `data-value` read as a number; overflow is +∞, and
/// what is not a number (undefined, still computing) is NaN.
pub fn readout_number(text: &str) -> f64 {
    match text {
        "overflow" => f64::INFINITY,
        // Not `str::parse`, whose tables would double the page's first load (see
        // `state::number`).
        _ => parse_number(text).unwrap_or(f64::NAN),
    }
}

impl Decide {
    /// The option id for readouts `before` and `after` (by name, full precision).
    pub fn answer(&self, before: &Readouts<f64>, after: &Readouts<f64>) -> &'static str {
        let (b, a) = (
            lookup(before, self.readout).copied().unwrap_or(f64::NAN),
            lookup(after, self.readout).copied().unwrap_or(f64::NAN),
        );
        let measure = match self.measure {
            Measure::Ratio if b == 0.0 && a == 0.0 => 1.0,
            Measure::Ratio => a / b,
            Measure::After => a,
        };
        self.cases
            .iter()
            .find(|(bound, _)| measure < *bound)
            .map_or(self.otherwise, |(_, id)| id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_right_option_follows_from_the_readouts() {
        let decide = Decide {
            readout: "grad-ratio",
            measure: Measure::Ratio,
            cases: &[(1e-3, "vanishes"), (0.5, "shrinks"), (2.0, "same")],
            otherwise: "explodes",
        };
        let at = |v: f64| vec![("grad-ratio".to_string(), v)];
        assert_eq!(decide.answer(&at(0.1), &at(1e-12)), "vanishes");
        assert_eq!(decide.answer(&at(0.1), &at(0.03)), "shrinks");
        assert_eq!(decide.answer(&at(0.1), &at(0.1)), "same");
        assert_eq!(decide.answer(&at(0.1), &at(f64::INFINITY)), "explodes");
        let after = Decide {
            measure: Measure::After,
            ..decide
        };
        assert_eq!(after.answer(&at(7.0), &at(0.0001)), "vanishes");
    }

    #[test]
    fn readout_values_are_numbers_or_named_limits() {
        assert_eq!(readout_number("0.5"), 0.5);
        assert_eq!(readout_number("overflow"), f64::INFINITY);
        assert!(readout_number("undefined").is_nan());
    }
}
