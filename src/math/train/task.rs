//! The tasks a model is trained on, generated from a seed: each needs attention across
//! positions, so a model that sees only the current token and its position can do no
//! better than guess ([`TaskShape::chance_accuracy`]).

use crate::math::rng::SeededStream;

/// What the model learns to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Task {
    /// n symbols, a separator, then the symbols in reverse order (teacher-forced):
    /// `a₁ … aₙ | aₙ … a₂`, predicting `aₙ … a₁` from the separator on.
    Reverse,
    /// n key–value pairs with distinct keys, then one of the keys: predict its value.
    /// `k₁ v₁ … kₙ vₙ q`, the target `v_i` where `q = k_i`.
    Recall,
}

/// A task and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TaskShape {
    pub task: Task,
    /// Symbols a position can hold (values, for recall); at least 2.
    pub symbols: usize,
    /// Symbols to reverse, or pairs to recall from; at least 2.
    pub length: usize,
}

/// One training sequence: its tokens and, per position, the next token to predict
/// (`None` where nothing is asked).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Example {
    pub tokens: Vec<usize>,
    pub targets: Vec<Option<usize>>,
}

impl TaskShape {
    /// Tokens in the vocabulary: the symbols and a separator (reverse), or the keys
    /// (as many as pairs) and the values (recall).
    pub fn vocab(&self) -> usize {
        match self.task {
            Task::Reverse => self.symbols + 1,
            Task::Recall => self.length + self.symbols,
        }
    }

    /// Positions in a sequence: 2n for reverse, 2n + 1 for recall.
    pub fn seq_len(&self) -> usize {
        match self.task {
            Task::Reverse => 2 * self.length,
            Task::Recall => 2 * self.length + 1,
        }
    }

    /// Targets in one sequence: n for reverse, 1 for recall.
    pub fn targets_per_example(&self) -> usize {
        match self.task {
            Task::Reverse => self.length,
            Task::Recall => 1,
        }
    }

    /// The best held-out accuracy of a model without attention: each target is a symbol
    /// drawn uniformly and independently of the token at its own position, so from that
    /// token and its position alone it is a guess, right 1/symbols of the time.
    pub fn chance_accuracy(&self) -> f64 {
        1.0 / self.symbols as f64
    }

    /// The cross-entropy of that best guess, ln(symbols) nats.
    pub fn chance_loss(&self) -> f64 {
        (self.symbols as f64).ln()
    }

    /// One sequence drawn from `stream`.
    pub fn example(&self, stream: &mut SeededStream) -> Example {
        match self.task {
            Task::Reverse => self.reverse_example(stream),
            Task::Recall => self.recall_example(stream),
        }
    }

    /// `count` sequences drawn from stream `path` of `seed`.
    pub fn examples(&self, seed: u64, path: &[u64], count: usize) -> Vec<Example> {
        let mut stream = SeededStream::new(seed, path);
        (0..count).map(|_| self.example(&mut stream)).collect()
    }

    fn reverse_example(&self, stream: &mut SeededStream) -> Example {
        let n = self.length;
        let separator = self.symbols;
        let a: Vec<usize> = (0..n).map(|_| stream.below(self.symbols)).collect();
        let mut tokens = a.clone();
        tokens.push(separator);
        tokens.extend(a.iter().rev().take(n - 1));
        let mut targets = vec![None; n];
        targets.extend(a.iter().rev().map(|&s| Some(s)));
        Example { tokens, targets }
    }

    fn recall_example(&self, stream: &mut SeededStream) -> Example {
        let n = self.length;
        // Keys are tokens 0..n in a random order (a Fisher–Yates shuffle); values are
        // tokens n..n + symbols.
        let mut keys: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            keys.swap(i, stream.below(i + 1));
        }
        let values: Vec<usize> = (0..n).map(|_| n + stream.below(self.symbols)).collect();
        let asked = stream.below(n);
        let mut tokens = Vec::with_capacity(2 * n + 1);
        for (k, v) in keys.iter().zip(&values) {
            tokens.push(*k);
            tokens.push(*v);
        }
        tokens.push(keys[asked]);
        let mut targets = vec![None; 2 * n];
        targets.push(Some(values[asked]));
        Example { tokens, targets }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REVERSE: TaskShape = TaskShape {
        task: Task::Reverse,
        symbols: 8,
        length: 4,
    };
    const RECALL: TaskShape = TaskShape {
        task: Task::Recall,
        symbols: 8,
        length: 4,
    };

    #[test]
    fn a_reverse_example_predicts_the_symbols_backwards_from_the_separator() {
        let e = &REVERSE.examples(3, &[1], 1)[0];
        let a = &e.tokens[..4];
        assert_eq!(e.tokens.len(), REVERSE.seq_len());
        assert_eq!(e.tokens[4], 8, "the separator");
        // Teacher forcing: after the separator the input is the target one position back.
        assert_eq!(&e.tokens[5..], &[a[3], a[2], a[1]]);
        let asked: Vec<usize> = e.targets.iter().flatten().copied().collect();
        assert_eq!(asked, vec![a[3], a[2], a[1], a[0]]);
        assert!(e.targets[..4].iter().all(Option::is_none));
    }

    #[test]
    fn a_recall_example_asks_the_value_of_one_of_its_keys() {
        for e in RECALL.examples(5, &[2], 50) {
            assert_eq!(e.tokens.len(), RECALL.seq_len());
            let query = e.tokens[8];
            // Test only: the query is one of the example's keys by construction; a miss is
            // the failure this test reports.
            let at = (0..4)
                .find(|&i| e.tokens[2 * i] == query)
                .expect("the key was given");
            assert_eq!(e.targets[8], Some(e.tokens[2 * at + 1]));
            let mut keys: Vec<usize> = (0..4).map(|i| e.tokens[2 * i]).collect();
            keys.sort_unstable();
            assert_eq!(keys, vec![0, 1, 2, 3], "distinct keys");
            assert!((0..4).all(|i| (4..12).contains(&e.tokens[2 * i + 1])));
        }
    }

    #[test]
    fn every_token_is_in_the_vocabulary() {
        for shape in [REVERSE, RECALL] {
            for e in shape.examples(9, &[3], 200) {
                assert!(e.tokens.iter().all(|&t| t < shape.vocab()));
                assert!(e.targets.iter().flatten().all(|&t| t < shape.vocab()));
                assert_eq!(
                    e.targets.iter().flatten().count(),
                    shape.targets_per_example()
                );
            }
        }
    }

    #[test]
    fn reversed_symbols_are_drawn_uniformly() {
        // Chance accuracy holds only if targets are uniform: each of 8 symbols within 10 %
        // of 1/8 of 8,000 draws (4.5 standard deviations).
        let mut counts = [0usize; 8];
        for e in REVERSE.examples(1, &[4], 2000) {
            for t in e.targets.iter().flatten() {
                counts[*t] += 1;
            }
        }
        assert!(
            counts.iter().all(|&c| (900..=1100).contains(&c)),
            "{counts:?}"
        );
    }
}
