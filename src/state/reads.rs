//! Which keys a computation read: every read of a value goes through
//! [`Params::get`](super::Params::get), which notes its key while a [`Recording`] runs. The
//! reactive store ([`super::UrlState`]) subscribes each computation to exactly those keys.

use std::cell::Cell;

/// A set of keys of [`super::PARAMS`]: bit i stands for `PARAMS[i]` (a test checks that
/// every key fits; past 128 keys this must widen).
pub type KeySet = u128;

thread_local! {
    /// The keys read while a [`Recording`] runs.
    static READS: Cell<Option<KeySet>> = const { Cell::new(None) };
}

/// Notes that the key at `index` of the table was read (kept only while recording).
pub(crate) fn note_read(index: usize) {
    READS.with(|r| {
        if let Some(set) = r.get() {
            r.set(Some(set | 1 << index));
        }
    });
}

/// A recording of the keys read, from [`Recording::start`] to [`Recording::finish`]. A
/// recording inside another adds its keys to the outer one.
#[must_use]
pub struct Recording {
    outer: Option<KeySet>,
}

impl Recording {
    /// Starts recording (interrupting, and later adding to, any recording running).
    #[inline(never)]
    pub fn start() -> Recording {
        Recording {
            outer: READS.with(|r| r.replace(Some(0))),
        }
    }

    /// The keys read since [`Recording::start`].
    #[inline(never)]
    pub fn finish(self) -> KeySet {
        READS.with(|r| {
            let read = r.get().unwrap_or(0);
            r.set(self.outer.map(|o| o | read));
            read
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{spec_index, Params, PARAMS};
    use super::*;

    /// The bit of a key in a [`KeySet`].
    fn bit(key: &str) -> KeySet {
        // Test only: called with keys of PARAMS; an unknown one fails the test here.
        1 << spec_index(key).expect("a key of PARAMS")
    }

    #[test]
    fn every_key_fits_in_a_key_set() {
        assert!(PARAMS.len() <= KeySet::BITS as usize);
    }

    #[test]
    fn a_recording_holds_exactly_the_keys_read() {
        let p = Params::default();
        let ((), read) = p.recording_reads(|p| {
            let _ = p.int("n") + p.int("depth");
            let _ = p.flag("nonexistent");
        });
        let expected = bit("n") | bit("depth");
        assert_eq!(read, expected);
    }

    #[test]
    fn a_nested_recording_adds_its_keys_to_the_outer_one() {
        let p = Params::default();
        let (inner, outer) = p.recording_reads(|p| {
            let _ = p.int("n");
            p.recording_reads(|p| p.float("gain")).1
        });
        let gain = bit("gain");
        assert_eq!(inner, gain);
        assert_eq!(outer, gain | bit("n"));
    }

    #[test]
    fn reads_outside_a_recording_are_not_kept() {
        let p = Params::default();
        let _ = p.int("n");
        assert_eq!(p.recording_reads(|_| ()).1, 0);
    }
}
