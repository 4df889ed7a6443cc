//! `GET /user`: a user token's own account. App and Actions tokens (`ghs_`) have no
//! user, and GitHub refuses them, which is why the product asks GraphQL's `viewer` first.

use super::{Answer, Ctx, Reply, user};
use crate::tokens::forbidden_message;
use crate::world::World;

pub fn me(world: &mut World, ctx: &Ctx) -> Reply {
    match (&ctx.token, ctx.caller(world)) {
        (Some(raw), Some(token)) if !raw.starts_with("ghs_") => Ok(Answer::ok(user(&token.login))),
        (Some(raw), Some(_)) => Err(Answer::message(403, forbidden_message(raw))),
        _ => Err(Answer::message(401, "Requires authentication")),
    }
}
