//! The tests where the `rayon` feature matters, built without it: `cargo test
//! --no-default-features --test without_rayon` (`.ci/run`; the modules are `tests/suite`'s).
//!
//! Not run by a plain `cargo test` (`test = false` in `Cargo.toml`): the suite runs these
//! modules with the default features already. Without them, light assignment (`cull`), the
//! panics' audit (`panics`, thread counts included) and the broadphase's split and join
//! (`broadphase`, every thread count in each test) take their one-thread paths.

#[macro_use]
mod common;
#[path = "common/sweep_order.rs"]
mod sweep_order;

#[path = "suite/broadphase.rs"]
mod broadphase;
#[path = "suite/cull.rs"]
mod cull;
#[path = "suite/panics.rs"]
mod panics;
