//! The page's binary (scripts/page-wasm.sh builds and splits it): installs the panic hook,
//! hands the app its lazily loaded passes and mounts it.
use wasm_bindgen::prelude::wasm_bindgen;

mod split_points;

/// The page's allocator: the system one, counting live bytes for the soak test.
#[global_allocator]
static ALLOCATOR: handwave::heap::CountingAllocator = handwave::heap::CountingAllocator::new();

/// Bytes live on the page's heap now (allocated and not yet freed). Read by the soak test
/// through the wasm exports; unlike the linear memory's size it goes down again.
#[wasm_bindgen]
pub fn live_heap_bytes() -> f64 {
    ALLOCATOR.live_bytes() as f64
}

/// Milliseconds per Pass 4 stack in this browser (a promise: Pass 4's module is fetched
/// first, outside the timing); see [`split_points::gradient_stack_ms`]. `make bench` prints
/// it, to tell the arithmetic apart from the page around it.
#[wasm_bindgen]
pub async fn time_gradient_stack(depth: u32, reps: u32) -> f64 {
    split_points::gradient_stack_ms(depth, reps)
        .await
        .unwrap_or(f64::NAN)
}

fn main() {
    console_error_panic_hook::set_once();
    remove_boot_notice();
    handwave::passes::lazy::register_pass_loaders(split_points::loaders());
    handwave::widgets::chrome::register_chrome_loader(split_points::chrome_loader);
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
