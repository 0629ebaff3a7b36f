//! Work that may leave the main thread: Pass 3's matrices at n up to 256 (S, A =
//! softmax(S) and σ(S); the singular values of A; the full SVD of a target pattern with
//! its rank-k truncation). Pure: requests and answers are flat `f64` vectors so they cross a
//! `postMessage` as one typed array, and [`respond`] is the whole worker. The same code
//! runs inline where no worker can start (component tests), so both paths give the
//! same bits.
//!
//! Request layout: `[id, kind, …arguments]`; answer: `[id, kind, …payload]`.

use crate::math::rank::scores::{score_rank, ScoreRank};
use crate::math::rank::{
    row_softmax, score_matrix, singular_values, target_pattern, token_matrix, Pattern, SortedSvd,
};

/// What to compute.
#[derive(Clone, Debug, PartialEq)]
pub enum Job {
    /// σ(A) for A = softmax(QKᵀ/√d_k), Q, K from [`token_matrix`] streams 1 and 2.
    AttentionSpectrum { seed: u64, n: usize, d_k: usize },
    /// S = QKᵀ/√d_k, A = softmax(S) and σ(S) ([`score_rank`]).
    Scores { seed: u64, n: usize, d_k: usize },
    /// σ(T) and the best rank-k approximation T_k of a target pattern.
    TargetApproximation {
        pattern: Pattern,
        n: usize,
        k: usize,
    },
}

/// Tokens up to which a job is answered at once on the page rather than in the worker:
/// there its decomposition takes under about a millisecond (σ of a 64×64 matrix ≈ 0.6 ms,
/// its full SVD ≈ 1.1 ms in Chromium), less than a round trip to the worker costs.
pub const INLINE_MAX_N: usize = 64;

/// Tokens up to which S, A and σ(S) are computed on the page: a few milliseconds there
/// (a matrix product and a thin QR). Above, their task could pass 50 ms on a slow day.
pub const SCORES_INLINE_MAX_N: usize = 128;

impl Job {
    /// Tokens n of the matrix the job decomposes.
    pub fn tokens(&self) -> usize {
        match self {
            Job::AttentionSpectrum { n, .. }
            | Job::Scores { n, .. }
            | Job::TargetApproximation { n, .. } => *n,
        }
    }

    /// True when the job is small enough to answer within the input's own frame.
    pub fn runs_inline(&self) -> bool {
        match self {
            Job::Scores { n, .. } => *n <= SCORES_INLINE_MAX_N,
            _ => self.tokens() <= INLINE_MAX_N,
        }
    }
}

/// Job kinds on the wire (also the channel each job travels on).
pub const KIND_SPECTRUM: u32 = 1;
pub const KIND_TARGET: u32 = 2;
pub const KIND_SCORES: u32 = 3;

fn pattern_code(p: Pattern) -> [f64; 2] {
    match p {
        Pattern::Identity => [0.0, 0.0],
        Pattern::PreviousToken => [1.0, 0.0],
        Pattern::CausalAverage => [2.0, 0.0],
        Pattern::FirstToken => [3.0, 0.0],
        Pattern::Random(seed) => [4.0, seed as f64],
    }
}

fn pattern_of(code: f64, seed: f64) -> Option<Pattern> {
    Some(match code as i64 {
        0 => Pattern::Identity,
        1 => Pattern::PreviousToken,
        2 => Pattern::CausalAverage,
        3 => Pattern::FirstToken,
        4 => Pattern::Random(seed as u64),
        _ => return None,
    })
}

/// The worker's first message: `[0, 0]`, sent once it can take requests.
pub const READY: [f64; 2] = [0.0, 0.0];

/// Largest n a request may ask for (the page's maximum).
pub use crate::math::rank::MAX_N;

impl Job {
    /// The wire kind of this job.
    pub fn kind(&self) -> u32 {
        match self {
            Job::AttentionSpectrum { .. } => KIND_SPECTRUM,
            Job::TargetApproximation { .. } => KIND_TARGET,
            Job::Scores { .. } => KIND_SCORES,
        }
    }

    /// `[id, kind, …arguments]`.
    pub fn encode(&self, id: u64) -> Vec<f64> {
        match *self {
            Job::AttentionSpectrum { seed, n, d_k } | Job::Scores { seed, n, d_k } => {
                vec![
                    id as f64,
                    self.kind() as f64,
                    seed as f64,
                    n as f64,
                    d_k as f64,
                ]
            }
            Job::TargetApproximation { pattern, n, k } => {
                let [code, seed] = pattern_code(pattern);
                vec![
                    id as f64,
                    KIND_TARGET as f64,
                    code,
                    seed,
                    n as f64,
                    k as f64,
                ]
            }
        }
    }

    /// The job of a request, validated (sizes clamped to 1…[`MAX_N`]); `None` if malformed.
    pub fn decode(request: &[f64]) -> Option<(u64, Job)> {
        if request.iter().any(|x| !x.is_finite() || *x < 0.0) {
            return None;
        }
        let size = |x: f64| (x as usize).clamp(1, MAX_N);
        let id = *request.first()? as u64;
        let job = match (*request.get(1)? as u32, &request[2..]) {
            (KIND_SPECTRUM, [seed, n, d_k]) => Job::AttentionSpectrum {
                seed: *seed as u64,
                n: size(*n).max(2),
                d_k: size(*d_k),
            },
            (KIND_SCORES, [seed, n, d_k]) => Job::Scores {
                seed: *seed as u64,
                n: size(*n),
                d_k: size(*d_k),
            },
            (KIND_TARGET, [code, seed, n, k]) => Job::TargetApproximation {
                pattern: pattern_of(*code, *seed)?,
                n: size(*n).max(2),
                k: size(*k),
            },
            _ => return None,
        };
        Some((id, job))
    }
}

/// What a worker keeps between requests: the last target's SVD, so that moving k only
/// truncates again.
#[derive(Default)]
pub struct JobCache {
    target: Option<((Pattern, usize), SortedSvd)>,
}

/// The singular values of A = softmax(S) for `seed`, `n`, `d_k` (the expensive half of the
/// score-rank figure).
pub fn attention_spectrum(seed: u64, n: usize, d_k: usize) -> Vec<f64> {
    let (q, k) = (token_matrix(seed, 1, n, d_k), token_matrix(seed, 2, n, d_k));
    singular_values(&row_softmax(&score_matrix(&q, &k)))
}

/// Answers one request: `[id, kind, …payload]`, or `[id, 0]` for a malformed request.
///
/// Payloads: spectrum → σ(A) (n values); scores → [`ScoreRank::to_flat`]; target → n,
/// σ(T) (n values), T_k row-major (n²).
pub fn respond(request: &[f64], cache: &mut JobCache) -> Vec<f64> {
    let Some((id, job)) = Job::decode(request) else {
        return vec![request.first().copied().unwrap_or(0.0), 0.0];
    };
    let mut out = vec![id as f64, job.kind() as f64];
    match job {
        Job::AttentionSpectrum { seed, n, d_k } => out.extend(attention_spectrum(seed, n, d_k)),
        Job::Scores { seed, n, d_k } => out.extend(score_rank(seed, n, d_k).to_flat()),
        Job::TargetApproximation { pattern, n, k } => {
            let key = (pattern, n);
            if cache.target.as_ref().map(|(k, _)| *k) != Some(key) {
                cache.target = Some((key, SortedSvd::new(&target_pattern(pattern, n))));
            }
            if let Some((_, svd)) = &cache.target {
                let approx = svd.truncate(k.min(n));
                out.push(n as f64);
                out.extend(&svd.sigma);
                for i in 0..n {
                    out.extend(approx.row(i).iter());
                }
            }
        }
    }
    out
}

/// Reads the payload of a scores answer (after `[id, kind]`) to `job`.
pub fn decode_scores(job: &Job, payload: &[f64]) -> Option<ScoreRank> {
    match *job {
        Job::Scores { n, d_k, .. } => ScoreRank::from_flat(n, d_k, payload),
        _ => None,
    }
}

/// A decoded target answer: σ(T) and T_k.
#[derive(Clone, Debug, PartialEq)]
pub struct TargetAnswer {
    pub sigma: Vec<f64>,
    pub approx: nalgebra::DMatrix<f64>,
}

/// Reads the payload of a target answer (after `[id, kind]`).
pub fn decode_target(payload: &[f64]) -> Option<TargetAnswer> {
    let n = *payload.first()? as usize;
    let (sigma, rest) = payload.get(1..)?.split_at_checked(n)?;
    (rest.len() == n * n).then(|| TargetAnswer {
        sigma: sigma.to_vec(),
        approx: nalgebra::DMatrix::from_row_slice(n, n, rest),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::rank::reference::best_rank_k;

    #[test]
    fn jobs_up_to_64_tokens_run_inline_and_larger_ones_in_the_worker() {
        let spectrum = |n| Job::AttentionSpectrum { seed: 1, n, d_k: 4 };
        assert!(spectrum(2).runs_inline() && spectrum(64).runs_inline());
        assert!(!spectrum(65).runs_inline());
        let target = Job::TargetApproximation {
            pattern: Pattern::Identity,
            n: 256,
            k: 4,
        };
        assert!(!target.runs_inline());
    }

    #[test]
    fn scores_run_inline_up_to_128_tokens() {
        let scores = |n| Job::Scores {
            seed: 1,
            n,
            d_k: 64,
        };
        assert!(scores(2).runs_inline() && scores(128).runs_inline());
        assert!(!scores(129).runs_inline() && !scores(256).runs_inline());
    }

    #[test]
    fn the_worker_scores_are_the_pages_scores_bit_for_bit() {
        let mut cache = JobCache::default();
        for (n, d_k) in [(2, 1), (20, 3), (40, 64)] {
            let job = Job::Scores { seed: 5, n, d_k };
            let out = respond(&job.encode(3), &mut cache);
            assert_eq!(out[..2], [3.0, KIND_SCORES as f64]);
            assert_eq!(decode_scores(&job, &out[2..]), Some(score_rank(5, n, d_k)));
        }
    }

    #[test]
    fn a_scores_payload_of_the_wrong_length_is_refused() {
        let job = Job::Scores {
            seed: 5,
            n: 4,
            d_k: 2,
        };
        let flat = score_rank(5, 4, 2).to_flat();
        assert_eq!(flat.len(), 2 * 16 + 4);
        assert_eq!(decode_scores(&job, &flat[1..]), None);
        assert_eq!(
            decode_scores(
                &Job::Scores {
                    seed: 5,
                    n: 5,
                    d_k: 2
                },
                &flat
            ),
            None
        );
    }

    #[test]
    fn requests_round_trip() {
        for job in [
            Job::Scores {
                seed: 9,
                n: 256,
                d_k: 64,
            },
            Job::AttentionSpectrum {
                seed: 7,
                n: 40,
                d_k: 3,
            },
            Job::TargetApproximation {
                pattern: Pattern::Random(99),
                n: 12,
                k: 4,
            },
            Job::TargetApproximation {
                pattern: Pattern::CausalAverage,
                n: 256,
                k: 256,
            },
        ] {
            assert_eq!(Job::decode(&job.encode(5)), Some((5, job)));
        }
    }

    #[test]
    fn malformed_requests_get_an_empty_answer_not_a_panic() {
        let mut cache = JobCache::default();
        for bad in [
            vec![],
            vec![1.0],
            vec![1.0, 9.0, 1.0],
            vec![1.0, 1.0, f64::NAN, 3.0, 2.0],
            vec![1.0, 2.0, 7.0, 0.0, 4.0, 2.0],
        ] {
            let out = respond(&bad, &mut cache);
            assert_eq!(out.get(1), Some(&0.0), "{bad:?}");
        }
        // Oversized requests are clamped, not honoured.
        // Test only: a well-formed request; a panic would be the test's failure report.
        let (_, job) = Job::decode(&[1.0, 1.0, 3.0, 1e9, 1e9]).unwrap();
        assert_eq!(
            job,
            Job::AttentionSpectrum {
                seed: 3,
                n: MAX_N,
                d_k: MAX_N
            }
        );
    }

    #[test]
    fn the_worker_answers_what_the_main_thread_would_compute() {
        let mut cache = JobCache::default();
        let out = respond(
            &Job::AttentionSpectrum {
                seed: 2,
                n: 20,
                d_k: 3,
            }
            .encode(1),
            &mut cache,
        );
        assert_eq!(&out[2..], attention_spectrum(2, 20, 3).as_slice());
        for k in [1, 5, 12] {
            let job = Job::TargetApproximation {
                pattern: Pattern::Random(4),
                n: 12,
                k,
            };
            // Test only: the worker's own answer to a valid job always decodes.
            let answer = decode_target(&respond(&job.encode(2), &mut cache)[2..]).unwrap();
            let t = target_pattern(Pattern::Random(4), 12);
            assert!((answer.approx - best_rank_k(&t, k)).norm() < 1e-12);
            assert_eq!(answer.sigma, SortedSvd::new(&t).sigma);
        }
    }
}
