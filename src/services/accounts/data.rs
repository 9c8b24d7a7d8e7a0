//! A person's own data (issue 29, item 6; GDPR articles 15, 17 and 20): everything stored about
//! an account and its player as one JSON document, and erasure. An erased account's player who
//! has records (rated games, results, registrations) stays in them under a pseudonym, so
//! results, standings and ratings stay intact; one without records is removed.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use diesel::PgConnection;
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::db::schema::players;
use crate::error::ApiError;
use crate::services::accounts::users::{lock_for_removal, remove_account};

/// Everything stored about an account and its player.
#[derive(Debug, Serialize, ToSchema)]
pub struct Export {
    pub exported_at: DateTime<Utc>,
    /// The account's row (without its password hash).
    #[schema(value_type = Object)]
    pub account: serde_json::Value,
    /// The linked player's row, if any.
    #[schema(value_type = Option<Object>)]
    pub player: Option<serde_json::Value>,
    /// Every row that refers to the account or the player, by `table.column` (secrets and
    /// their hashes left out): registrations, results entered, rating changes, sessions,
    /// keys, messages sent, cases, and so on.
    #[schema(value_type = Object)]
    pub records: BTreeMap<String, Vec<serde_json::Value>>,
}

/// Only the owner, signed in with a password (not an API key), or an admin.
fn may_handle(caller: &Caller, user_id: i64) -> Result<(), ApiError> {
    if caller.key.is_some() {
        return Err(ApiError::Forbidden(
            "personal data is exported and erased with a password sign-in, not an API key".into(),
        ));
    }
    if caller.user_id != user_id {
        caller.require_admin()?;
    }
    Ok(())
}

#[derive(QueryableByName)]
struct Reference {
    #[diesel(sql_type = Text)]
    tbl: String,
    #[diesel(sql_type = Text)]
    col: String,
    #[diesel(sql_type = Text)]
    target: String,
}

#[derive(QueryableByName)]
struct Rows {
    #[diesel(sql_type = Text)]
    rows: String,
}

/// The columns that name a person, from the catalog: every foreign key to `users` or
/// `players`, and every column called `user_id` or `player_id` (the rating log has no foreign
/// keys, for speed), including tables added after this was written.
fn references(conn: &mut PgConnection) -> Result<Vec<Reference>, ApiError> {
    Ok(diesel::sql_query(
        "SELECT DISTINCT tbl, col, target FROM (
             SELECT c.conrelid::regclass::text AS tbl, quote_ident(a.attname) AS col,
                    c.confrelid::regclass::text AS target
             FROM pg_constraint c
             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
             WHERE c.contype = 'f' AND cardinality(c.conkey) = 1
               AND c.confrelid IN ('users'::regclass, 'players'::regclass)
             UNION
             SELECT quote_ident(c.table_name), quote_ident(c.column_name),
                    CASE c.column_name WHEN 'player_id' THEN 'players' ELSE 'users' END
             FROM information_schema.columns c
             JOIN pg_tables t ON t.schemaname = c.table_schema AND t.tablename = c.table_name
             WHERE c.table_schema = current_schema()
               AND c.column_name IN ('player_id', 'user_id')
         ) r
         ORDER BY 1, 2",
    )
    .load(conn)?)
}

/// The results whose seats name player `id` (seats are JSON, not rows).
fn results_of(conn: &mut PgConnection, id: i64) -> Result<Vec<serde_json::Value>, ApiError> {
    let rows: Rows = diesel::sql_query(
        "SELECT coalesce(json_agg(to_jsonb(r) ORDER BY r.round_id, r.table_number, r.version), '[]')::text AS rows
         FROM results r WHERE r.seats @> jsonb_build_array(jsonb_build_object('player', $1))",
    )
    .bind::<BigInt, _>(id)
    .get_result(conn)?;
    serde_json::from_str(&rows.rows)
        .map_err(|e| ApiError::Internal(format!("export of results: {e}")))
}

/// Rows of `table` whose `column` is `id`, as JSON, secrets left out.
fn rows_of(
    conn: &mut PgConnection,
    table: &str,
    column: &str,
    id: i64,
) -> Result<Vec<serde_json::Value>, ApiError> {
    // The names come from the catalog (regclass and quote_ident quote them), never from input.
    let rows: Rows = diesel::sql_query(format!(
        "SELECT coalesce(json_agg(to_jsonb(t) ORDER BY 1), '[]')::text AS rows
         FROM {table} t WHERE t.{column} = $1"
    ))
    .bind::<BigInt, _>(id)
    .get_result(conn)?;
    let mut rows: Vec<serde_json::Value> = serde_json::from_str(&rows.rows)
        .map_err(|e| ApiError::Internal(format!("export of {table}: {e}")))?;
    for row in &mut rows {
        if let Some(o) = row.as_object_mut() {
            o.retain(|k, _| !k.contains("hash") && k != "secret");
        }
    }
    Ok(rows)
}

/// Everything stored about account `user_id` and its player (the owner or an admin), read in
/// one snapshot.
pub fn export(conn: &mut PgConnection, caller: &Caller, user_id: i64) -> Result<Export, ApiError> {
    may_handle(caller, user_id)?;
    conn.build_transaction()
        .read_only()
        .repeatable_read()
        .run(|conn| {
            let account = rows_of(conn, "users", "id", user_id)?
                .pop()
                .filter(|a| a["deleted_at"].is_null())
                .ok_or_else(|| ApiError::NotFound(format!("no user {user_id}")))?;
            let player_id: Option<i64> = players::table
                .filter(players::user_id.eq(user_id))
                .select(players::id)
                .first(conn)
                .optional()?;
            let player = match player_id {
                Some(p) => rows_of(conn, "players", "id", p)?.pop(),
                None => None,
            };
            let mut records = BTreeMap::new();
            for r in references(conn)? {
                let id = match (r.target.as_str(), player_id) {
                    ("users", _) => user_id,
                    ("players", Some(p)) => p,
                    _ => continue,
                };
                let rows = rows_of(conn, &r.tbl, &r.col, id)?;
                if !rows.is_empty() {
                    records.insert(format!("{}.{}", r.tbl, r.col.trim_matches('"')), rows);
                }
            }
            if let Some(p) = player_id {
                let results = results_of(conn, p)?;
                if !results.is_empty() {
                    records.insert("results.seats".to_string(), results);
                }
            }
            Ok(Export {
                exported_at: Utc::now(),
                account,
                player,
                records,
            })
        })
}

/// What erasure did with the player.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlayerErased {
    /// There was no linked player.
    None,
    /// The player had no records and was removed.
    Removed,
    /// The player has records (games, ratings, registrations): kept under a pseudonym, without
    /// club, country or account.
    Pseudonymised,
}

/// What an erasure did.
#[derive(Debug, Serialize, ToSchema)]
pub struct Erased {
    pub user_id: i64,
    pub player: PlayerErased,
}

/// Erases account `user_id` (the owner or an admin; not the last enabled admin): its address,
/// name, password, sessions, keys, codes, mail, roles, player claims and the invitations it
/// accepted or that were sent to its address go; its linked player is removed, or,
/// with records, renamed `Player <id> (erased)` without club or country, so results and
/// ratings stay intact.
pub fn erase(conn: &mut PgConnection, caller: &Caller, user_id: i64) -> Result<Erased, ApiError> {
    may_handle(caller, user_id)?;
    conn.transaction(|conn| {
        let user = lock_for_removal(conn, user_id)?;
        let player_id: Option<i64> = players::table
            .filter(players::user_id.eq(user_id))
            .select(players::id)
            .for_update()
            .first(conn)
            .optional()?;
        let player = match player_id {
            None => PlayerErased::None,
            Some(p) => erase_player(conn, p)?,
        };
        remove_account(conn, &user)?;
        Ok(Erased { user_id, player })
    })
}

/// Removes player `id`, or pseudonymises it when records refer to it; inside the caller's
/// transaction.
fn erase_player(conn: &mut PgConnection, id: i64) -> Result<PlayerErased, ApiError> {
    use crate::db::schema::rating_changes;
    // The rating log names players without a foreign key: a rated player is always kept.
    let rated: bool = diesel::select(diesel::dsl::exists(
        rating_changes::table.filter(rating_changes::player_id.eq(id)),
    ))
    .get_result(conn)?;
    let removed = if rated {
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::ForeignKeyViolation,
            Box::new("rated games".to_string()),
        ))
    } else {
        conn.transaction(|conn| diesel::delete(players::table.find(id)).execute(conn))
    };
    match removed {
        Ok(_) => Ok(PlayerErased::Removed),
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::ForeignKeyViolation,
            _,
        )) => {
            diesel::update(players::table.find(id))
                .set((
                    players::name.eq(format!("Player {id} (erased)")),
                    players::club.eq(None::<String>),
                    players::country.eq(None::<String>),
                    players::user_id.eq(None::<i64>),
                    players::updated_at.eq(Utc::now()),
                ))
                .execute(conn)?;
            crate::services::players::leaderboards_show_changed(conn, id)?;
            Ok(PlayerErased::Pseudonymised)
        }
        Err(e) => Err(e.into()),
    }
}
