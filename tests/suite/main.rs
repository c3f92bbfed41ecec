//! The integration tests: one test binary, a module per file (`tests/suite/blocked.rs` is the
//! module `blocked`, run alone with `cargo test --test suite blocked::`).
//!
//! One binary, not a binary per file: each file used to be a crate of its own that compiled the
//! shared machinery of `tests/common` again and was linked on its own, and the binaries ran one
//! after another, each waiting for its slowest test while a core idled. Measured on the 2-core
//! Intel Xeon of 2026-11-28 (a clean clone, `CARGO_INCREMENTAL=0`, line tables only, as
//! `.ci/run` builds): `cargo test --workspace --no-run` 189 -> 129 s, the tests' run 281 ->
//! 232 s. `tests/backend_env.rs` stays a binary of its own (it sets `BVLANES_BACKEND` before the
//! process's first detection), and `tests/without_rayon.rs` builds a few of these modules
//! without default features (`.ci/run`).

#[macro_use]
#[path = "../common/mod.rs"]
mod common;
#[path = "../common/froxel_ref.rs"]
mod froxel_ref;
#[path = "../common/sweep_order.rs"]
mod sweep_order;

mod adversarial;
mod blocked;
mod blocked_tets;
mod broadphase;
mod conservative;
mod constructors;
mod cull;
mod cull_froxel;
mod differential;
mod errors;
mod frustum;
mod fuzz_regressions;
mod many;
mod obb_sat;
mod obbs;
mod pairwise;
mod panics;
mod properties;
mod seeds;
mod strategy;
mod unsafe_paths;
