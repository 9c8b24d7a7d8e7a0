//! The tournaments: one by id (locked or not), and the rating pool a tournament names.

use diesel::prelude::*;
use diesel::PgConnection;

use crate::db::ids::UserId;
use crate::db::ids::{PoolId, TournamentId};
use crate::db::models::{NewTournament, StaffRow};
use crate::db::models::{RatingPoolRow, Tournament};
use crate::db::named::{Named, NamesAfter};
use crate::db::schema::tournament_staff;
use crate::db::schema::{rating_pools, tournaments};
use crate::domain::rating::acceptance::RatingStatus;
use crate::domain::scoring::Preset;
use crate::domain::status::TournamentStatus;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::dsl::sql;
use diesel::sql_types::{BigInt, Bool, Date, Nullable, Text};

/// A tournament by id.
pub fn by_id(conn: &mut PgConnection, id: TournamentId) -> QueryResult<Option<Tournament>> {
    tournaments::table
        .find(id.0)
        .select(Tournament::as_select())
        .first(conn)
        .optional()
}

/// A tournament by id, its row locked (`FOR UPDATE`) until the transaction ends.
pub fn lock(conn: &mut PgConnection, id: TournamentId) -> QueryResult<Option<Tournament>> {
    tournaments::table
        .find(id.0)
        .select(Tournament::as_select())
        .for_update()
        .first(conn)
        .optional()
}

/// The rating pool a tournament names, if there is one.
pub fn rating_pool(conn: &mut PgConnection, pool: PoolId) -> QueryResult<Option<RatingPoolRow>> {
    rating_pools::table
        .find(pool.0)
        .select(RatingPoolRow::as_select())
        .first(conn)
        .optional()
}

/// Stores a new tournament.
pub fn insert(conn: &mut PgConnection, new: NewTournament) -> QueryResult<Tournament> {
    diesel::insert_into(tournaments::table)
        .values(new)
        .returning(Tournament::as_returning())
        .get_result(conn)
}

/// What a change of a tournament sets (every field written, as read and changed).
#[derive(Debug, AsChangeset)]
#[diesel(table_name = tournaments, treat_none_as_null = true)]
pub struct TournamentChange {
    pub name: String,
    pub game: String,
    pub planned_rounds: i32,
    pub starts_on: NaiveDate,
    pub ends_on: NaiveDate,
    pub time_zone: String,
    pub venue: Option<String>,
    pub country: Option<String>,
    pub registration_deadline: Option<DateTime<Utc>>,
    pub appeal_window_minutes: i32,
    pub status: TournamentStatus,
    pub updated_at: DateTime<Utc>,
    pub version: i32,
    pub rating_pool_id: Option<PoolId>,
    pub rating_status: Option<RatingStatus>,
    pub rating_reason: Option<String>,
    pub rating_decided_by: Option<UserId>,
    pub rating_decided_at: Option<DateTime<Utc>>,
    pub national_rank: bool,
    pub announced_at: Option<DateTime<Utc>>,
    pub prize_places: i32,
    pub qualification_places: i32,
}

/// Writes `change` when the tournament is still at `version` (compare and set); `None` when
/// it changed meanwhile.
pub fn update_at_version(
    conn: &mut PgConnection,
    id: TournamentId,
    version: i32,
    change: &TournamentChange,
) -> QueryResult<Option<Tournament>> {
    diesel::update(
        tournaments::table
            .find(id.0)
            .filter(tournaments::version.eq(version)),
    )
    .set(change)
    .returning(Tournament::as_returning())
    .get_result(conn)
    .optional()
}

/// The roles a staff list shows (a row with another role is not listed, nor counted).
const LISTED_ROLES: [&str; 3] = ["organiser", "referee", "appeals_committee"];

/// `limit` staff appointments of a tournament after the first `offset`, by role then user,
/// each with the user's name (listed roles only).
pub fn staff_page(
    conn: &mut PgConnection,
    id: TournamentId,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<(StaffRow, String)>> {
    use crate::db::schema::users;
    tournament_staff::table
        .inner_join(users::table.on(users::id.eq(tournament_staff::user_id)))
        .filter(tournament_staff::tournament_id.eq(id))
        .filter(tournament_staff::role.eq_any(LISTED_ROLES))
        .order((tournament_staff::role, tournament_staff::user_id))
        .select((StaffRow::as_select(), users::username))
        .limit(limit)
        .offset(offset)
        .load(conn)
}

/// How many staff appointments a tournament's staff list shows.
pub fn count_staff(conn: &mut PgConnection, id: TournamentId) -> QueryResult<i64> {
    tournament_staff::table
        .filter(tournament_staff::tournament_id.eq(id))
        .filter(tournament_staff::role.eq_any(LISTED_ROLES))
        .count()
        .get_result(conn)
}

/// Appoints `user` to `role` (a stored role name) on the tournament's staff.
pub fn appoint(
    conn: &mut PgConnection,
    id: TournamentId,
    user: UserId,
    role: &str,
    by: UserId,
) -> QueryResult<()> {
    diesel::insert_into(tournament_staff::table)
        .values((
            tournament_staff::tournament_id.eq(id),
            tournament_staff::user_id.eq(user),
            tournament_staff::role.eq(role),
            tournament_staff::appointed_by.eq(by),
        ))
        .execute(conn)?;
    Ok(())
}

/// Removes `user`'s appointment to `role` (a stored role name).
pub fn dismiss(
    conn: &mut PgConnection,
    id: TournamentId,
    user: UserId,
    role: &str,
) -> QueryResult<()> {
    diesel::delete(
        tournament_staff::table
            .filter(tournament_staff::tournament_id.eq(id))
            .filter(tournament_staff::user_id.eq(user))
            .filter(tournament_staff::role.eq(role)),
    )
    .execute(conn)?;
    Ok(())
}

/// Who reads the tournament list: drafts show only to their staff and to admins.
#[derive(Debug, Clone, Copy)]
pub enum ListReader {
    Admin,
    User(UserId),
    Anonymous,
}

/// The filters of the tournament list, checked (texts trimmed, blank ones absent).
#[derive(Debug, Clone)]
pub struct ListFilter {
    pub reader: ListReader,
    /// A search text: part of the name or a near match of a word of it (folded).
    pub q: Option<String>,
    pub status: Option<TournamentStatus>,
    pub game: Option<String>,
    pub ruleset: Option<Preset>,
    pub starts_from: Option<NaiveDate>,
    pub starts_until: Option<NaiveDate>,
    pub country: Option<String>,
    pub rating_pool_id: Option<PoolId>,
}

/// The order of the tournament list (ties by id, in the same direction).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListOrder {
    /// Best match to the search text first, then by name.
    Relevance,
    StartsOnDesc,
    StartsOn,
    Name,
}

/// Where a page starts: after the item with these sort keys, in the list's order.
#[derive(Debug, Clone)]
pub enum ListAfter {
    /// Relevance: the item's negated rank, name and id.
    Relevance(f32, String, i64),
    Name(String, i64),
    StartsOn(NaiveDate, i64),
    StartsOnDesc(NaiveDate, i64),
}

type Condition = Box<dyn BoxableExpression<tournaments::table, diesel::pg::Pg, SqlType = Bool>>;

/// The condition that starts a page after `after`.
fn after_condition(q: &str, after: ListAfter) -> Condition {
    match after {
        // By rank or by name, as the players' and pools' lists (`Named::after`).
        ListAfter::Relevance(rank, name, id) => {
            Named("tournaments").after(q, NamesAfter::Ranked(rank, name, id))
        }
        ListAfter::Name(name, id) => Named("tournaments").after(q, NamesAfter::Named(name, id)),
        ListAfter::StartsOn(day, id) => Box::new(
            sql::<Bool>("(tournaments.starts_on, tournaments.id) > (")
                .bind::<Date, _>(day)
                .sql(", ")
                .bind::<BigInt, _>(id)
                .sql(")"),
        ),
        ListAfter::StartsOnDesc(day, id) => Box::new(
            sql::<Bool>("(tournaments.starts_on, tournaments.id) < (")
                .bind::<Date, _>(day)
                .sql(", ")
                .bind::<BigInt, _>(id)
                .sql(")"),
        ),
    }
}

/// The tournaments the reader may see that pass the filters, unordered.
fn filtered(f: &ListFilter) -> tournaments::BoxedQuery<'static, diesel::pg::Pg> {
    let mut q = tournaments::table.into_boxed();
    match f.reader {
        ListReader::Admin => {}
        ListReader::User(who) => {
            let mine = tournament_staff::table
                .filter(tournament_staff::user_id.eq(who))
                .select(tournament_staff::tournament_id);
            q = q.filter(
                tournaments::status
                    .ne(TournamentStatus::Draft)
                    .or(tournaments::id.eq_any(mine)),
            );
        }
        ListReader::Anonymous => q = q.filter(tournaments::status.ne(TournamentStatus::Draft)),
    }
    if let Some(text) = &f.q {
        q = q.filter(
            sql::<Bool>("(tournaments.name_folded LIKE tourney_like_pattern(")
                .bind::<Text, _>(text.clone())
                .sql(") OR tourney_fold(")
                .bind::<Text, _>(text.clone())
                .sql(") <% tournaments.name_folded)"),
        );
    }
    if let Some(s) = f.status {
        q = q.filter(tournaments::status.eq(s));
    }
    if let Some(g) = &f.game {
        q = q.filter(
            sql::<Bool>("tourney_fold(tournaments.game) = tourney_fold(")
                .bind::<Text, _>(g.clone())
                .sql(")"),
        );
    }
    if let Some(r) = f.ruleset {
        q = q.filter(tournaments::ruleset.eq(r));
    }
    if let Some(d) = f.starts_from {
        q = q.filter(tournaments::starts_on.ge(d));
    }
    if let Some(d) = f.starts_until {
        q = q.filter(tournaments::starts_on.le(d));
    }
    if let Some(country) = &f.country {
        q = q.filter(tournaments::country.eq(country.clone()));
    }
    if let Some(pool) = f.rating_pool_id {
        q = q.filter(tournaments::rating_pool_id.eq(pool));
    }
    q
}

/// One page of the tournament list: up to `limit` rows from `offset` (or after `after`), each
/// with its rank for the search text and, when `counted_here`, the whole list's size counted in
/// the same pass (`count(*) OVER ()`, else NULL).
pub fn list_page(
    conn: &mut PgConnection,
    f: &ListFilter,
    order: ListOrder,
    after: Option<ListAfter>,
    (limit, offset): (i64, i64),
    counted_here: bool,
) -> QueryResult<Vec<(Tournament, f32, Option<i64>)>> {
    let query_text = f.q.clone().unwrap_or_default();
    // The players' and pools' score (the constant 0 for no text).
    let score = || Named("tournaments").score(&query_text);
    // By the name's bytes, as the players' and pools' lists (`Named::name`).
    let by_name = || Named("tournaments").name();
    let mut query = filtered(f);
    if let Some(after) = after {
        query = query.filter(after_condition(&query_text, after));
    }
    let query = match order {
        ListOrder::Relevance => query.order((score().desc(), by_name(), tournaments::id)),
        ListOrder::Name => query.order((by_name(), tournaments::id)),
        ListOrder::StartsOn => query.order((tournaments::starts_on, tournaments::id)),
        ListOrder::StartsOnDesc => {
            query.order((tournaments::starts_on.desc(), tournaments::id.desc()))
        }
    };
    let count = sql::<Nullable<BigInt>>(if counted_here {
        "count(*) OVER ()"
    } else {
        "NULL::int8"
    });
    query
        .select((Tournament::as_select(), score(), count))
        .limit(limit)
        .offset(offset)
        .load(conn)
}

/// How many tournaments pass the filters, counted up to `cap`.
pub fn count_listed(conn: &mut PgConnection, f: &ListFilter, cap: i64) -> QueryResult<i64> {
    Ok(filtered(f)
        .select(tournaments::id)
        .limit(cap)
        .load::<i64>(conn)?
        .len() as i64)
}

/// Which of `ids` the reader may see and pass the filters of `f` other than its search text
/// (the search index found them), in no order.
pub fn passing(
    conn: &mut PgConnection,
    f: &ListFilter,
    ids: &[TournamentId],
) -> QueryResult<Vec<TournamentId>> {
    let unsearched = ListFilter {
        q: None,
        ..f.clone()
    };
    filtered(&unsearched)
        .filter(tournaments::id.eq_any(ids))
        .select(tournaments::id)
        .load(conn)
}

/// The tournaments with these ids (those that exist), in no order.
pub fn by_ids(conn: &mut PgConnection, ids: &[TournamentId]) -> QueryResult<Vec<Tournament>> {
    tournaments::table
        .filter(tournaments::id.eq_any(ids))
        .select(Tournament::as_select())
        .load(conn)
}
