//! The second binary Trunk builds: a dedicated Web Worker that answers Pass 3's heavy
//! requests ([`handwave::math::jobs::respond`]) and trains the training figures' runs in
//! chunks ([`handwave::math::train::wire::respond`]), so the page's main thread never
//! blocks on them. The page starts one worker for Pass 3 and one per training run.
use handwave::math::jobs::{respond, JobCache, READY};
use handwave::math::train::wire::{self, KIND_TRAIN};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn main() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply_to = scope.clone();
    let mut cache = JobCache::default();
    let mut run = None;
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let request = js_sys::Float64Array::new(&ev.data()).to_vec();
        let answer = if request.get(1) == Some(&f64::from(KIND_TRAIN)) {
            wire::respond(&request, &mut run)
        } else {
            respond(&request, &mut cache)
        };
        let answer = js_sys::Float64Array::from(&answer[..]);
        // Handed over, not copied: the page receives an answer of up to 1 MB (S and A at
        // n = 256) without cloning it.
        let _ = reply_to.post_message_with_transfer(&answer, &js_sys::Array::of1(&answer.buffer()));
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    // Messages that arrive before a handler exists are dropped: say when it does.
    let _ = scope.post_message(&js_sys::Float64Array::from(&READY[..]));
}
