//! Standard normal draws from xoshiro256++, in bulk.
//!
//! The draws are `rand_distr`'s ziggurat, unchanged: the same bits as
//! `StandardNormal.sample(rng)` called once per entry. They live in a crate of their own
//! because `rand_distr`'s sampler is generic, so it is compiled with the crate that names
//! the generator; handwave's crate compiles for size (opt-level "z"), where one draw
//! takes ~5 ns natively, against ~3 ns at opt-level 3 (`cargo run --release --example
//! draw_time`). The workspace's release profile compiles this crate at opt-level 3.

use rand_distr::{Distribution, StandardNormal};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Fills `out` with independent N(0, 1) draws from `rng`, first entry first.
#[inline(never)]
pub fn fill_standard_normal(rng: &mut Xoshiro256PlusPlus, out: &mut [f64]) {
    for x in out.iter_mut() {
        *x = StandardNormal.sample(rng);
    }
}
