//! The inputs of a tournament's standings as stored.

use diesel::prelude::*;
use diesel::sql_types::{Int8, Text};
use diesel::PgConnection;

use crate::db::ids::TournamentId;

#[derive(QueryableByName)]
struct Stamp {
    #[diesel(sql_type = Text)]
    stamp: String,
}

/// The digest of everything a tournament's standings are computed from: the tournament (its
/// version moves with every setting), its rounds (their versions move with every draw,
/// publication and completion), every result version, the registrations, teams, withdrawals and
/// penalties row by row, and the registered players' last change (names in the table).
pub fn stamp(conn: &mut PgConnection, tid: TournamentId) -> QueryResult<String> {
    let s: Stamp = diesel::sql_query(
        "SELECT concat_ws('|',
            (SELECT version || '.' || status FROM tournaments WHERE id = $1),
            (SELECT count(*) || '.' || coalesce(sum(version), 0) FROM rounds
             WHERE tournament_id = $1),
            (SELECT count(*) || '.' || coalesce(sum(x.version), 0)
             FROM results x JOIN rounds r ON r.id = x.round_id WHERE r.tournament_id = $1),
            (SELECT md5(coalesce(string_agg(g::text, ',' ORDER BY g.id), ''))
             FROM registrations g WHERE g.tournament_id = $1),
            (SELECT md5(coalesce(string_agg(m::text, ',' ORDER BY m.id), ''))
             FROM teams m WHERE m.tournament_id = $1),
            (SELECT md5(coalesce(string_agg(w::text, ',' ORDER BY w.id), ''))
             FROM withdrawals w WHERE w.tournament_id = $1),
            (SELECT md5(coalesce(string_agg(p::text, ',' ORDER BY p.id), ''))
             FROM penalties p WHERE p.tournament_id = $1),
            (SELECT coalesce(max(p.updated_at)::text, '')
             FROM players p JOIN registrations g ON g.player_id = p.id
             WHERE g.tournament_id = $1)
         ) AS stamp",
    )
    .bind::<Int8, _>(tid)
    .get_result(conn)?;
    Ok(s.stamp)
}
