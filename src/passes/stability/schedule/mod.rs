//! When Pass 4 computes its stacks: the pure policy of what to compute ahead
//! ([`policy`]) and what was computed lately ([`recent`]), and the browser plumbing that
//! runs stacks in slices ([`pace`]), lends a figure's tape to one task at a time
//! ([`tape_slot`]) and keeps a figure's profile or sweep current ([`profile_hook`],
//! [`sweep_hook`]).

pub mod pace;
pub mod policy;
pub mod profile_hook;
pub mod recent;
pub mod sweep_hook;
pub mod tape_slot;
