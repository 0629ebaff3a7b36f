//! The value of every parameter of the table, and typed reads of them. Every read goes
//! through [`Params::get`], so that a [`Recording`] sees which keys a computation read.

use std::fmt;

use super::choices::Choices;
use super::query::{display_value, parse_value};
use super::reads::{note_read, KeySet, Recording};
use super::table::{spec_index, Value, PARAMS};

/// Why a value cannot be set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateError {
    UnknownKey(String),
    WrongType(&'static str),
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateError::UnknownKey(k) => write!(f, "unknown key {k:?}"),
            StateError::WrongType(k) => write!(f, "wrong value type for key {k:?}"),
        }
    }
}

/// The value of every parameter, aligned with [`PARAMS`].
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    pub(super) values: Vec<Value>,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            values: PARAMS.iter().map(|p| p.default.clone()).collect(),
        }
    }
}

impl Params {
    /// The value under `key`, or `None` for an unknown key. Every read of a value goes
    /// through here, so that [`Params::recording_reads`] sees it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        let i = spec_index(key)?;
        note_read(i);
        Some(&self.values[i])
    }

    /// Runs `f` on these parameters and gives its result with the set of keys it read
    /// (what it depends on; see [`Recording`]).
    pub fn recording_reads<T>(&self, f: impl FnOnce(&Params) -> T) -> (T, KeySet) {
        let recording = Recording::start();
        let value = f(self);
        (value, recording.finish())
    }

    /// Sets `key`, validating the value like URL text would be (clamped to its range);
    /// gives the key's index in [`PARAMS`].
    pub fn set(&mut self, key: &str, value: Value) -> Result<usize, StateError> {
        let i = spec_index(key).ok_or_else(|| StateError::UnknownKey(key.to_string()))?;
        let spec = &PARAMS[i];
        let same_type = std::mem::discriminant(&value) == std::mem::discriminant(&spec.default);
        if !same_type {
            return Err(StateError::WrongType(spec.key));
        }
        let (checked, _) = parse_value(spec, &display_value(&value));
        self.values[i] = checked;
        Ok(i)
    }

    /// Whether `key` holds something other than its default.
    pub fn is_set(&self, key: &str) -> bool {
        spec_index(key).is_some_and(|i| self.values[i] != PARAMS[i].default)
    }

    /// An integer parameter (also Pow2); 0 for an unknown key or another type.
    pub fn int(&self, key: &str) -> i64 {
        match self.get(key) {
            Some(Value::Int(i)) => *i,
            _ => 0,
        }
    }

    /// A real parameter; 0 for an unknown key or another type.
    pub fn float(&self, key: &str) -> f64 {
        match self.get(key) {
            Some(Value::Float(x)) => *x,
            _ => 0.0,
        }
    }

    /// A boolean parameter; false for an unknown key or another type.
    pub fn flag(&self, key: &str) -> bool {
        matches!(self.get(key), Some(Value::Bool(true)))
    }

    /// A choice parameter's id; "" for an unknown key or another type.
    pub fn choice(&self, key: &str) -> &'static str {
        match self.get(key) {
            Some(Value::Choice(c)) => c,
            _ => "",
        }
    }

    /// The typed value of the choice under `key`, from its option rows.
    pub fn chosen<T: Copy>(&self, key: &str, options: &Choices<T>) -> T {
        options.value_of(self.choice(key))
    }

    /// A list parameter; `None` when unset.
    pub fn list(&self, key: &str) -> Option<Vec<f64>> {
        match self.get(key) {
            Some(Value::List(v)) => v.clone(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::stability::NormPlacement;
    use crate::state::choices::NORMS;

    #[test]
    fn set_clamps_like_the_url_does() {
        let mut p = Params::default();
        // Test only: `n` is a known integer key, so set accepts it (500 is clamped).
        p.set("n", Value::Int(500)).unwrap();
        assert_eq!(p.int("n"), 64);
        assert_eq!(
            p.set("n", Value::Float(3.0)),
            Err(StateError::WrongType("n"))
        );
        assert!(matches!(
            p.set("nope", Value::Int(1)),
            Err(StateError::UnknownKey(_))
        ));
    }

    #[test]
    fn a_choice_reads_as_its_typed_value() {
        let mut p = Params::default();
        assert_eq!(p.chosen("norm", &NORMS), NormPlacement::None);
        // Test only: `norm` is a known choice key and "pre" one of its options.
        p.set("norm", Value::Choice("pre")).unwrap();
        assert_eq!(p.chosen("norm", &NORMS), NormPlacement::Pre);
        assert!(p.is_set("norm") && !p.is_set("depth"));
    }
}
