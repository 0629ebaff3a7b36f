//! Training: a small decoder-only transformer built from Pass 4's blocks, trained on a
//! task generated from a seed, with AdamW or plain SGD.
//!
//! [`task`] (reverse, associative recall, and what a model without attention can reach),
//! [`model`] (embeddings, blocks, unembedding, cross-entropy; every parameter's gradient),
//! [`optim`] (AdamW, SGD, warm-up), [`run`] (a seeded run recorded as points) and
//! [`wire`] (a run as the flat messages the training workers exchange with the page).

pub mod model;
pub mod optim;
pub mod presets;
pub mod run;
pub mod task;
pub mod wire;

pub use model::{ModelShape, Params};
pub use optim::Optimizer;
pub use run::{Point, RunConfig, RunStatus, Trainer};
pub use task::{Task, TaskShape};
