//! Claims on players (issue 29, item 5; issue 37, item 2), who may decide them, and the kept
//! links of players to accounts (`player_links`, written by a trigger).

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool};
use diesel::PgConnection;

use crate::db::ids::{ClaimId, InvitationId, PlayerId, PlayerLinkId, UserId};
use crate::db::schema::{player_claims, player_links, pool_keepers, rating_standings};
use crate::domain::accounts::ClaimStatus;

/// A claim of an account on a player.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = player_claims)]
pub struct ClaimRow {
    pub id: ClaimId,
    pub player_id: PlayerId,
    /// The claimant's account.
    pub user_id: UserId,
    pub message: String,
    pub status: ClaimStatus,
    pub reason: Option<String>,
    pub decided_by: Option<UserId>,
    pub created_at: DateTime<Utc>,
    pub decided_at: Option<DateTime<Utc>>,
}

/// One link of a player to an account, or its cut.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = player_links)]
pub struct PlayerLinkRow {
    pub id: PlayerLinkId,
    pub player_id: PlayerId,
    pub linked: bool,
    pub account_id: UserId,
    /// How (`claim`, `invitation`, `admin`, `created`, `account_removed`, `unrecorded`).
    pub via: String,
    pub claim_id: Option<ClaimId>,
    pub invitation_id: Option<InvitationId>,
    pub decided_by: Option<UserId>,
    pub at: DateTime<Utc>,
}

/// Whether `user` keeps a pool player `player` is rated in.
pub fn keeps_pool_of(conn: &mut PgConnection, user: UserId, player: PlayerId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        pool_keepers::table
            .filter(pool_keepers::user_id.eq(user))
            .filter(
                pool_keepers::pool_id.eq_any(
                    rating_standings::table
                        .filter(rating_standings::player_id.eq(player))
                        .select(rating_standings::pool_id),
                ),
            ),
    ))
    .get_result(conn)
}

/// Whether `user` organises every tournament player `player`'s records lie in (the SQL
/// function `tourney_organises_every_record`).
pub fn organises_every_record(
    conn: &mut PgConnection,
    player: PlayerId,
    user: UserId,
) -> QueryResult<bool> {
    diesel::select(
        diesel::dsl::sql::<Bool>("tourney_organises_every_record(")
            .bind::<BigInt, _>(player.0)
            .sql(", ")
            .bind::<BigInt, _>(user.0)
            .sql(")"),
    )
    .get_result(conn)
}

/// Which claims a list shows.
#[derive(Debug, Clone, Copy)]
pub enum Claims {
    /// The claims on a player, only those of one account when it is given.
    OnPlayer(PlayerId, Option<UserId>),
    /// The open claims a decider may decide, but their own: every one for an admin; else those
    /// on players rated in a pool they keep or whose every record lies in tournaments they
    /// organise.
    DecidableBy { admin: bool, user: UserId },
}

fn listed(which: Claims) -> player_claims::BoxedQuery<'static, diesel::pg::Pg> {
    match which {
        Claims::OnPlayer(player, only_of) => {
            let mut q = player_claims::table
                .filter(player_claims::player_id.eq(player))
                .into_boxed();
            if let Some(user) = only_of {
                q = q.filter(player_claims::user_id.eq(user));
            }
            q
        }
        Claims::DecidableBy { admin, user } => {
            let open = player_claims::table
                .filter(player_claims::status.eq(ClaimStatus::Open))
                .filter(player_claims::user_id.ne(user))
                .into_boxed();
            if admin {
                return open;
            }
            let kept = rating_standings::table
                .filter(
                    rating_standings::pool_id.eq_any(
                        pool_keepers::table
                            .filter(pool_keepers::user_id.eq(user))
                            .select(pool_keepers::pool_id),
                    ),
                )
                .select(rating_standings::player_id);
            let organised = diesel::dsl::sql::<Bool>(
                "tourney_organises_every_record(player_claims.player_id, ",
            )
            .bind::<BigInt, _>(user.0)
            .sql(")");
            open.filter(player_claims::player_id.eq_any(kept).or(organised))
        }
    }
}

/// How many claims a list shows.
pub fn count(conn: &mut PgConnection, which: Claims) -> QueryResult<i64> {
    listed(which).count().get_result(conn)
}

/// A page of the claims a list shows, oldest first.
pub fn page(
    conn: &mut PgConnection,
    which: Claims,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<ClaimRow>> {
    listed(which)
        .order(player_claims::id)
        .select(ClaimRow::as_select())
        .limit(limit)
        .offset(offset)
        .load(conn)
}

/// Stores an open claim of account `user` on `player`.
pub fn insert(
    conn: &mut PgConnection,
    player: PlayerId,
    user: UserId,
    message: &str,
) -> QueryResult<ClaimRow> {
    diesel::insert_into(player_claims::table)
        .values((
            player_claims::player_id.eq(player),
            player_claims::user_id.eq(user),
            player_claims::message.eq(message),
        ))
        .returning(ClaimRow::as_returning())
        .get_result(conn)
}

/// [`insert`] in a savepoint; `None` when the account has an open claim on the player already.
pub fn insert_unless_open(
    conn: &mut PgConnection,
    player: PlayerId,
    user: UserId,
    message: &str,
) -> QueryResult<Option<ClaimRow>> {
    match conn.transaction(|conn| insert(conn, player, user, message)) {
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        )) => Ok(None),
        other => other.map(Some),
    }
}

/// The open claim of account `user` on `player`, if any.
pub fn open_of(
    conn: &mut PgConnection,
    player: PlayerId,
    user: UserId,
) -> QueryResult<Option<ClaimId>> {
    player_claims::table
        .filter(player_claims::player_id.eq(player))
        .filter(player_claims::user_id.eq(user))
        .filter(player_claims::status.eq(ClaimStatus::Open))
        .select(player_claims::id)
        .first(conn)
        .optional()
}

/// Claim `id` on `player`, its row locked (`FOR UPDATE`).
pub fn lock_on(
    conn: &mut PgConnection,
    player: PlayerId,
    id: ClaimId,
) -> QueryResult<Option<ClaimRow>> {
    player_claims::table
        .find(id.0)
        .filter(player_claims::player_id.eq(player))
        .select(ClaimRow::as_select())
        .for_update()
        .first(conn)
        .optional()
}

/// Decides claim `id` (approved or refused) by `by` at `now`, with the reason given.
pub fn set_decided(
    conn: &mut PgConnection,
    id: ClaimId,
    status: ClaimStatus,
    reason: Option<&str>,
    by: UserId,
    now: DateTime<Utc>,
) -> QueryResult<ClaimRow> {
    diesel::update(player_claims::table.find(id.0))
        .set((
            player_claims::status.eq(status),
            player_claims::reason.eq(reason),
            player_claims::decided_by.eq(Some(by)),
            player_claims::decided_at.eq(Some(now)),
        ))
        .returning(ClaimRow::as_returning())
        .get_result(conn)
}

/// Withdraws claim `id` at `now`.
pub fn set_withdrawn(
    conn: &mut PgConnection,
    id: ClaimId,
    now: DateTime<Utc>,
) -> QueryResult<ClaimRow> {
    diesel::update(player_claims::table.find(id.0))
        .set((
            player_claims::status.eq(ClaimStatus::Withdrawn),
            player_claims::decided_at.eq(Some(now)),
        ))
        .returning(ClaimRow::as_returning())
        .get_result(conn)
}

/// How many links and cuts player `player` has.
pub fn count_links(conn: &mut PgConnection, player: PlayerId) -> QueryResult<i64> {
    player_links::table
        .filter(player_links::player_id.eq(player))
        .count()
        .get_result(conn)
}

/// A page of player `player`'s links and cuts, oldest first.
pub fn links_page(
    conn: &mut PgConnection,
    player: PlayerId,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<PlayerLinkRow>> {
    player_links::table
        .filter(player_links::player_id.eq(player))
        .order(player_links::id)
        .select(PlayerLinkRow::as_select())
        .limit(limit)
        .offset(offset)
        .load(conn)
}
