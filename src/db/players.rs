//! Players (`players`).

use std::collections::HashMap;

use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::PlayerId;
use crate::db::schema::players;

/// The names of these players (those that exist).
pub fn names_of(
    conn: &mut PgConnection,
    ids: &[PlayerId],
) -> QueryResult<HashMap<PlayerId, String>> {
    Ok(players::table
        .filter(players::id.eq_any(ids))
        .select((players::id, players::name))
        .load::<(PlayerId, String)>(conn)?
        .into_iter()
        .collect())
}
