//! The tournament list: search by name ignoring case and diacritics, filters, sorts, and pages
//! by keyset (issue 31).

use chrono::NaiveDate;
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Date, Float, Text};
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::auth::MaybeCaller;
use crate::db::models::Tournament;
use crate::db::schema::{rating_pools, tournament_staff, tournaments};
use crate::domain::scoring::Preset;
use crate::domain::status::TournamentStatus;
use crate::error::ApiError;
use crate::services::running::tournaments::TournamentOut;
use crate::services::validate::{
    check_country, count_in_pass, keyset_page, keyset_start, Check, Page, Start, COUNT_CAP,
};

/// How the tournament list is ordered (ties by id, in the same direction).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
pub enum TournamentSort {
    /// Best match to `q` first, then by name; the default with `q`, refused without it.
    #[serde(rename = "relevance")]
    Relevance,
    /// Latest first day first; the default without `q`.
    #[serde(rename = "-starts_on")]
    StartsOnDesc,
    /// Earliest first day first.
    #[serde(rename = "starts_on")]
    StartsOn,
    /// By name.
    #[serde(rename = "name")]
    Name,
}

/// Filters for the tournament list. Every filter narrows the list; a bad value is a 422
/// naming the parameter.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct TournamentFilter {
    /// Part of the name, or a near match of a word of it; ignores case and diacritics. Blank
    /// means no filter.
    #[param(max_length = 200, pattern = r"^[^\u0000-\u001f\u007f-\u009f]*$")]
    pub q: Option<String>,
    pub status: Option<TournamentStatus>,
    /// The game, as named (ignoring case and diacritics).
    #[param(max_length = 100, pattern = r"^[^\u0000-\u001f\u007f-\u009f]*$")]
    pub game: Option<String>,
    pub ruleset: Option<Preset>,
    /// Only tournaments whose first day is on or after this date.
    pub starts_from: Option<NaiveDate>,
    /// Only tournaments whose first day is on or before this date.
    pub starts_until: Option<NaiveDate>,
    /// Where it is held (ISO 3166-1 alpha-2).
    #[param(pattern = "^[A-Za-z]{2}$")]
    pub country: Option<String>,
    /// Only tournaments that name this rating pool.
    #[param(minimum = 1)]
    pub rating_pool_id: Option<i64>,
    /// `-starts_on` (the default without `q`), `starts_on`, `name`, or `relevance` (the
    /// default with `q`).
    #[param(inline)]
    pub sort: Option<TournamentSort>,
    /// How many items (1-200, default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// How many items to skip (default 0, at most 10000; later pages through `cursor`).
    #[param(minimum = 0, maximum = 10000)]
    pub offset: Option<i64>,
    /// Where the page starts: the `next_cursor` of the page before (also in its `next` link).
    #[param(max_length = 1000)]
    pub cursor: Option<String>,
}

/// The sort keys of a tournament in the list: relevance (negated), name, first day, id; each
/// sort uses its own.
#[derive(Debug, Serialize, Deserialize)]
struct TournamentKey(Option<f32>, Option<String>, Option<NaiveDate>, i64);

/// The checked filters.
struct Checked {
    q: Option<String>,
    game: Option<String>,
    country: Option<String>,
    sort: TournamentSort,
}

fn check_filter(conn: &mut PgConnection, f: &TournamentFilter) -> Result<Checked, ApiError> {
    let mut check = Check::new();
    let q = check.search_text("q", f.q.as_deref(), 200);
    let game = check.search_text("game", f.game.as_deref(), 100);
    let country = check_country(&mut check, "country", f.country.as_deref());
    if let (Some(from), Some(until)) = (f.starts_from, f.starts_until) {
        check.ensure(
            from <= until,
            "starts_until",
            "must not be before starts_from",
        );
    }
    let sort = match (f.sort, &q) {
        (Some(TournamentSort::Relevance), None) => {
            check.fail("sort", "relevance needs a search text in q");
            TournamentSort::StartsOnDesc
        }
        (Some(s), _) => s,
        (None, Some(_)) => TournamentSort::Relevance,
        (None, None) => TournamentSort::StartsOnDesc,
    };
    if let Some(pool) = f.rating_pool_id {
        let exists: bool =
            diesel::select(diesel::dsl::exists(rating_pools::table.find(pool))).get_result(conn)?;
        check.ensure(exists, "rating_pool_id", format!("there is no pool {pool}"));
    }
    check.finish()?;
    Ok(Checked {
        q,
        game,
        country,
        sort,
    })
}

/// The condition that starts a page after the item `key` names, in `sort`'s order.
fn after(
    sort: TournamentSort,
    q: &str,
    key: TournamentKey,
) -> Result<Box<dyn BoxableExpression<tournaments::table, diesel::pg::Pg, SqlType = Bool>>, ApiError>
{
    let foreign = || {
        ApiError::field(
            "cursor",
            "is not a cursor of this list; follow the next link as given",
        )
    };
    Ok(match (sort, key) {
        (TournamentSort::Relevance, TournamentKey(Some(rank), Some(name), None, id)) => Box::new(
            sql::<Bool>("(-word_similarity(tourney_fold(")
                .bind::<Text, _>(q.to_string())
                .sql("), tournaments.name_folded), tournaments.name, tournaments.id) > (")
                .bind::<Float, _>(rank)
                .sql(", ")
                .bind::<Text, _>(name)
                .sql(", ")
                .bind::<BigInt, _>(id)
                .sql(")"),
        ),
        (TournamentSort::Name, TournamentKey(None, Some(name), None, id)) => Box::new(
            sql::<Bool>("(tournaments.name, tournaments.id) > (")
                .bind::<Text, _>(name)
                .sql(", ")
                .bind::<BigInt, _>(id)
                .sql(")"),
        ),
        (TournamentSort::StartsOn, TournamentKey(None, None, Some(day), id)) => Box::new(
            sql::<Bool>("(tournaments.starts_on, tournaments.id) > (")
                .bind::<Date, _>(day)
                .sql(", ")
                .bind::<BigInt, _>(id)
                .sql(")"),
        ),
        (TournamentSort::StartsOnDesc, TournamentKey(None, None, Some(day), id)) => Box::new(
            sql::<Bool>("(tournaments.starts_on, tournaments.id) < (")
                .bind::<Date, _>(day)
                .sql(", ")
                .bind::<BigInt, _>(id)
                .sql(")"),
        ),
        _ => return Err(foreign()),
    })
}

/// The tournaments `caller` may see that pass the filters, unordered.
fn filtered(
    caller: &MaybeCaller,
    filter: &TournamentFilter,
    c: &Checked,
) -> tournaments::BoxedQuery<'static, diesel::pg::Pg> {
    let mut q = tournaments::table.into_boxed();
    match &caller.0 {
        Some(who) if who.is_admin => {}
        Some(who) => {
            let mine = tournament_staff::table
                .filter(tournament_staff::user_id.eq(who.user_id))
                .select(tournament_staff::tournament_id);
            q = q.filter(
                tournaments::status
                    .ne(TournamentStatus::Draft)
                    .or(tournaments::id.eq_any(mine)),
            );
        }
        None => q = q.filter(tournaments::status.ne(TournamentStatus::Draft)),
    }
    if let Some(text) = &c.q {
        q = q.filter(
            sql::<Bool>("(tournaments.name_folded LIKE tourney_like_pattern(")
                .bind::<Text, _>(text.clone())
                .sql(") OR tourney_fold(")
                .bind::<Text, _>(text.clone())
                .sql(") <% tournaments.name_folded)"),
        );
    }
    if let Some(s) = filter.status {
        q = q.filter(tournaments::status.eq(s));
    }
    if let Some(g) = &c.game {
        q = q.filter(
            sql::<Bool>("tourney_fold(tournaments.game) = tourney_fold(")
                .bind::<Text, _>(g.clone())
                .sql(")"),
        );
    }
    if let Some(r) = filter.ruleset {
        q = q.filter(tournaments::ruleset.eq(r));
    }
    if let Some(d) = filter.starts_from {
        q = q.filter(tournaments::starts_on.ge(d));
    }
    if let Some(d) = filter.starts_until {
        q = q.filter(tournaments::starts_on.le(d));
    }
    if let Some(country) = &c.country {
        q = q.filter(tournaments::country.eq(country.clone()));
    }
    if let Some(pool) = filter.rating_pool_id {
        q = q.filter(tournaments::rating_pool_id.eq(pool));
    }
    q
}

/// One page of the tournaments the caller may see (drafts only for their staff), searched,
/// filtered and sorted; later pages by keyset (`cursor`), never by counting through.
pub fn list_tournaments(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    filter: TournamentFilter,
) -> Result<Page<TournamentOut>, ApiError> {
    let c = check_filter(conn, &filter)?;
    let scope = format!(
        "{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}",
        c.q,
        filter.status,
        c.game,
        filter.ruleset,
        filter.starts_from,
        filter.starts_until,
        c.country,
        filter.rating_pool_id,
        c.sort
    );
    let (limit, start) = keyset_start::<TournamentKey>(
        filter.limit,
        filter.offset,
        filter.cursor.as_deref(),
        "tournaments",
        &scope,
    )?;
    let query_text = c.q.clone().unwrap_or_default();
    let score = || {
        sql::<Float>("word_similarity(tourney_fold(")
            .bind::<Text, _>(query_text.clone())
            .sql("), tournaments.name_folded)")
    };
    let build = || filtered(caller, &filter, &c);
    let mut query = build();
    let (mut offset, mut first) = (0, false);
    match start {
        Start::Offset(o) => (offset, first) = (o, true),
        Start::After(key) => query = query.filter(after(c.sort, &query_text, key)?),
    }
    let query = match c.sort {
        TournamentSort::Relevance => {
            query.order((score().desc(), tournaments::name, tournaments::id))
        }
        TournamentSort::Name => query.order((tournaments::name, tournaments::id)),
        TournamentSort::StartsOn => query.order((tournaments::starts_on, tournaments::id)),
        TournamentSort::StartsOnDesc => {
            query.order((tournaments::starts_on.desc(), tournaments::id.desc()))
        }
    };
    // A ranked page scores every match before it cuts: it counts them in the same pass (as
    // `services::players::list_players` does).
    let counted_here = c.sort == TournamentSort::Relevance && first;
    let rows: Vec<(Tournament, f32, Option<i64>)> = query
        .select((
            Tournament::as_select(),
            score(),
            count_in_pass(counted_here),
        ))
        .limit(limit + 1)
        .offset(offset)
        .load(conn)?;
    let counted = rows.first().and_then(|r| r.2);
    let sort = c.sort;
    keyset_page(
        rows,
        limit,
        (offset, first),
        || match counted {
            Some(n) => Ok(n),
            None => Ok(build()
                .select(tournaments::id)
                .limit(COUNT_CAP + 1)
                .load::<i64>(conn)?
                .len() as i64),
        },
        "tournaments",
        &scope,
        |(t, rank, _)| match sort {
            TournamentSort::Relevance => {
                TournamentKey(Some(-rank), Some(t.name.clone()), None, t.id)
            }
            TournamentSort::Name => TournamentKey(None, Some(t.name.clone()), None, t.id),
            TournamentSort::StartsOn | TournamentSort::StartsOnDesc => {
                TournamentKey(None, None, Some(t.starts_on), t.id)
            }
        },
        |(t, _, _)| TournamentOut::try_from(t),
    )
}
