//! The AABO readme's table (lands with the box-query strategies).

use crate::Ctx;
use crate::report::{Table, Target};

/// The AABO table (none yet).
pub fn run(ctx: &Ctx<'_>, _targets: &mut Vec<Target>) -> Vec<Table> {
    ctx.progress.note("aabo: not yet available");
    Vec::new()
}
