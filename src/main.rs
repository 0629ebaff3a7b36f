//! The binary Trunk builds: installs the panic hook and mounts the app.
use wasm_bindgen::prelude::wasm_bindgen;

/// The page's allocator: the system one, counting live bytes for the soak test.
#[global_allocator]
static ALLOCATOR: handwave::heap::CountingAllocator = handwave::heap::CountingAllocator::new();

/// Bytes live on the page's heap now (allocated and not yet freed). Read by the soak test
/// through the wasm exports; unlike the linear memory's size it goes down again.
#[wasm_bindgen]
pub fn live_heap_bytes() -> f64 {
    ALLOCATOR.live_bytes() as f64
}

/// Milliseconds per Pass 4 stack in this browser, the mean over `reps` runs at the page's
/// defaults (d_model 32, 2 heads, 8 tokens, pre-norm with residual) and `depth` blocks:
/// forward, backward and per-layer norms, the weights' unit draws made once beforehand
/// (as the page keeps them), a new gain each run. `make bench` prints it, to tell the
/// arithmetic apart from the page around it.
#[wasm_bindgen]
pub fn time_gradient_stack(depth: u32, reps: u32) -> f64 {
    use handwave::math::stability::{StackShape, Tape, WeightBank, Wiring};
    let now = || {
        web_sys::window()
            .and_then(|w| w.performance())
            .map_or(0.0, |p| p.now())
    };
    let (depth, reps) = (depth.clamp(1, 256) as usize, reps.clamp(1, 1000));
    let shape = |rep: u32| StackShape {
        d_model: 32,
        heads: 2,
        seq_len: 8,
        gain: 1.0 + 0.001 * f64::from(rep),
        seed: 1,
        wiring: Wiring::PRE_NORM,
    };
    let mut bank = WeightBank::default();
    for layer in 0..depth {
        bank.units(&shape(0), layer);
    }
    let t0 = now();
    for rep in 0..reps {
        let mut tape = Tape::new(shape(rep));
        while tape.len() < depth {
            tape.push_block_with(&mut bank);
        }
        std::hint::black_box(tape.backward(depth).finish(&tape));
    }
    (now() - t0) / f64::from(reps)
}

fn main() {
    console_error_panic_hook::set_once();
    remove_boot_notice();
    leptos::mount::mount_to_body(handwave::app::App);
}

/// Removes index.html's `#boot` notice, which says what the page needs for as long as its
/// WebAssembly has not started (where it cannot start, the notice stays).
fn remove_boot_notice() {
    if let Some(notice) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("boot"))
    {
        notice.remove();
    }
}
