//! The main thread's side of [`crate::math::jobs`]: sends a job to the Web Worker and calls
//! back with the answer. One request per job kind is in flight at a time and only the
//! newest waits behind it, so a dragged slider never builds a backlog: a newer request
//! supersedes an older one that has not started. Where no worker can start (or it fails),
//! jobs run inline in their own task, after the input event has been handled.

use std::cell::RefCell;
use std::collections::HashMap;

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::math::jobs::{respond, Job, JobCache, READY};

/// The worker's script, next to the page (relative, so any sub-path works).
pub(crate) const WORKER_URL: &str = "./handwave-worker_loader.js";

type Done = Box<dyn FnOnce(Vec<f64>)>;

struct Channel {
    in_flight: Option<(u64, Vec<f64>, Done)>,
    queued: Option<(Vec<f64>, Done)>,
}

#[derive(Default)]
struct Client {
    worker: Option<web_sys::Worker>,
    /// The worker has said it can take requests (see [`crate::math::jobs::READY`]).
    ready: bool,
    broken: bool,
    started: bool,
    next_id: u64,
    channels: HashMap<u32, Channel>,
    inline_cache: JobCache,
}

thread_local! {
    static CLIENT: RefCell<Client> = RefCell::new(Client::default());
}

fn start_worker(client: &mut Client) {
    client.started = true;
    let Ok(worker) = web_sys::Worker::new(WORKER_URL) else {
        client.broken = true;
        return;
    };
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|ev: web_sys::MessageEvent| {
            // The worker's Float64Array as it arrived (copied once, into wasm memory).
            let answer = match ev.data().dyn_into::<js_sys::Float64Array>() {
                Ok(array) => array.to_vec(),
                Err(other) => js_sys::Float64Array::new(&other).to_vec(),
            };
            if answer == READY {
                worker_ready();
            } else {
                finish(answer);
            }
        });
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(|ev: web_sys::Event| {
        ev.prevent_default();
        fall_back_inline();
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    // Both handlers live as long as the page.
    on_message.forget();
    on_error.forget();
    client.worker = Some(worker);
    // A worker that never says it is ready (blocked by a policy, say) is given up on.
    set_timeout(
        || {
            if !CLIENT.with_borrow(|c| c.ready) {
                fall_back_inline();
            }
        },
        std::time::Duration::from_secs(5),
    );
}

/// The worker can take requests: send what waited for it, one per channel.
fn worker_ready() {
    mark_worker_state("ready");
    CLIENT.with_borrow_mut(|c| {
        c.ready = true;
        let waiting: Vec<(u32, Vec<f64>, Done)> = c
            .channels
            .iter_mut()
            .filter_map(|(kind, ch)| ch.queued.take().map(|(r, d)| (*kind, r, d)))
            .collect();
        for (kind, mut request, done) in waiting {
            c.next_id += 1;
            let id = c.next_id;
            request[0] = id as f64;
            send(c, kind, id, request, done);
        }
    });
}

/// The worker failed (missing script, crash): answer everything inline from now on.
fn fall_back_inline() {
    mark_worker_state("inline");
    let stranded: Vec<(Vec<f64>, Done)> = CLIENT.with_borrow_mut(|c| {
        c.broken = true;
        c.worker = None;
        c.channels
            .values_mut()
            .flat_map(|ch| {
                let first = ch.in_flight.take().map(|(_, req, done)| (req, done));
                first.into_iter().chain(ch.queued.take())
            })
            .collect()
    });
    for (request, done) in stranded {
        run_inline(request, done);
    }
}

/// `data-worker` on the root element says where Pass 3's big jobs run ("ready": in the
/// worker; "inline": on the main thread), for tests and for anyone curious.
fn mark_worker_state(state: &str) {
    if let Some(root) = document().document_element() {
        let _ = root.set_attribute("data-worker", state);
    }
}

fn run_inline(request: Vec<f64>, done: Done) {
    // Its own task: the input event that asked for it has already been handled and drawn.
    set_timeout(
        move || {
            let answer = CLIENT.with_borrow_mut(|c| respond(&request, &mut c.inline_cache));
            done(answer);
        },
        std::time::Duration::ZERO,
    );
}

fn send(client: &mut Client, kind: u32, id: u64, request: Vec<f64>, done: Done) {
    let array = js_sys::Float64Array::from(&request[..]);
    let posted = client
        .worker
        .as_ref()
        .is_some_and(|w| w.post_message(&array).is_ok());
    if posted {
        client
            .channels
            .entry(kind)
            .or_insert(Channel {
                in_flight: None,
                queued: None,
            })
            .in_flight = Some((id, request, done));
    } else {
        run_inline(request, done);
    }
}

/// An answer arrived: hand it over, then send what waited on the same channel. The
/// channel is found by the request id (ids are unique), not by the answer's kind, so an
/// answer to a request the worker could not decode (kind 0) still frees its channel.
fn finish(answer: Vec<f64>) {
    let Some(&id) = answer.first() else {
        return;
    };
    let id = id as u64;
    let found = CLIENT.with_borrow_mut(|c| {
        c.channels
            .iter_mut()
            .find_map(|(kind, ch)| match ch.in_flight.take() {
                Some((sent, _, done)) if sent == id => Some((*kind, done)),
                other => {
                    ch.in_flight = other;
                    None
                }
            })
    });
    let Some((kind, done)) = found else {
        return;
    };
    done(answer);
    CLIENT.with_borrow_mut(|c| {
        let next = c.channels.get_mut(&kind).and_then(|ch| {
            if ch.in_flight.is_none() {
                ch.queued.take()
            } else {
                None
            }
        });
        if let Some((mut request, done)) = next {
            c.next_id += 1;
            let id = c.next_id;
            request[0] = id as f64;
            send(c, kind, id, request, done);
        }
    });
}

/// Answers `job` at once, on the page (for jobs that [`Job::runs_inline`]): the payload
/// after `[id, kind]`, the same numbers the worker would send.
pub fn answer_now(job: &Job) -> Vec<f64> {
    let answer = CLIENT.with_borrow_mut(|c| respond(&job.encode(0), &mut c.inline_cache));
    answer.get(2..).map(<[f64]>::to_vec).unwrap_or_default()
}

/// Computes `job` off the main thread and calls `done` with the answer's payload
/// (after `[id, kind]`; empty for a malformed job). If a job of the same kind is running,
/// this one waits and replaces any other waiting job, whose `done` is never called.
pub fn submit(job: Job, done: impl FnOnce(Vec<f64>) + 'static) {
    let done: Done = Box::new(move |answer: Vec<f64>| {
        done(answer.get(2..).map(<[f64]>::to_vec).unwrap_or_default())
    });
    CLIENT.with_borrow_mut(|c| {
        if !c.started {
            start_worker(c);
        }
        c.next_id += 1;
        let id = c.next_id;
        let request = job.encode(id);
        if c.broken || c.worker.is_none() {
            run_inline(request, done);
            return;
        }
        let kind = job.kind();
        let busy = c
            .channels
            .get(&kind)
            .is_some_and(|ch| ch.in_flight.is_some());
        if busy || !c.ready {
            c.channels
                .entry(kind)
                .or_insert(Channel {
                    in_flight: None,
                    queued: None,
                })
                .queued = Some((request, done));
        } else {
            send(c, kind, id, request, done);
        }
    });
}

/// A job's answer (see [`use_worker_job`]), and whether the job is in flight.
#[derive(Clone, Copy)]
pub struct WorkerJob<T: Send + Sync + 'static> {
    /// The decoded answer to the latest request.
    pub answer: Memo<Option<T>>,
    /// The latest request was sent to the worker and its answer has not arrived: true even
    /// when the figure has since left the screen (the worker finishes what it was sent).
    pub in_flight: Signal<bool>,
}

/// The decoded answer to the job `request()` describes, while `active`: computed in the
/// memo itself when the job is small ([`Job::runs_inline`]), so whatever draws it draws
/// once per change with the answer already there; otherwise sent to the worker whenever it
/// changes and `None` until the answer to the latest request arrives. While not `active`
/// nothing new is computed or sent (a small job keeps what it had). With it, whether the
/// latest request is in flight.
pub fn use_worker_job<T: Clone + PartialEq + Send + Sync + 'static>(
    request: impl Fn() -> Job + Send + Sync + 'static,
    decode: fn(&Job, &[f64]) -> Option<T>,
    active: RwSignal<bool>,
) -> WorkerJob<T> {
    let request = Memo::new(move |_| request());
    let from_worker = RwSignal::new(None::<(Job, T)>);
    let sent = RwSignal::new(None::<Job>);
    // The last request an answer arrived for (decoded or not).
    let answered = RwSignal::new(None::<Job>);
    Effect::new(move |_| {
        // Only for a figure a reader can see: the worker (and its 47 KiB) is not even
        // fetched until Pass 3 comes near the screen.
        if !active.get() {
            return;
        }
        let job = request.get();
        if job.runs_inline() || sent.with_untracked(|l| l.as_ref() == Some(&job)) {
            return;
        }
        sent.set(Some(job.clone()));
        let asked = job.clone();
        submit(job, move |payload| {
            if request.with_untracked(|latest| *latest == asked) {
                answered.set(Some(asked.clone()));
                if let Some(answer) = decode(&asked, &payload) {
                    from_worker.set(Some((asked, answer)));
                }
            }
        });
    });
    let answer = Memo::new(move |prev: Option<&Option<T>>| {
        let job = request.get();
        if job.runs_inline() {
            if !active.get() {
                return prev.cloned().flatten();
            }
            // Small: answered in this frame, without the worker's round trip.
            return decode(&job, &answer_now(&job));
        }
        // Always subscribed to the worker's answer: one that arrives after the figure left
        // the screen is still shown when it comes back (and in its caption meanwhile).
        from_worker.with(|answer| match answer {
            Some((answered, value)) if *answered == job => Some(value.clone()),
            _ => None,
        })
    });
    let in_flight = Signal::derive(move || {
        request.with(|job| {
            sent.with(|s| s.as_ref() == Some(job)) && answered.with(|a| a.as_ref() != Some(job))
        })
    });
    WorkerJob { answer, in_flight }
}
