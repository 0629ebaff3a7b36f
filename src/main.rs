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

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(handwave::app::App);
}
