//! The tournament list: search by name ignoring case and diacritics, filters, sorts, and pages
//! by keyset (issue 31).

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::auth::MaybeCaller;
use crate::db;
use crate::db::tournaments::{ListAfter, ListFilter, ListOrder, ListReader};
use crate::db::PgConnection;
use crate::domain::scoring::Preset;
use crate::domain::status::TournamentStatus;
use crate::domain::{PoolId, UserId};
use crate::error::ApiError;
use crate::infra::search::SearchIndex;
use crate::services::running::tournaments::TournamentOut;
use crate::services::validate::{
    check_country, keyset_page, keyset_start, Check, Page, Start, COUNT_CAP,
};

mod indexed;

/// Rows of a page, each with its similarity and (when counted) the count, and the count.
type Rows = (Vec<(db::models::Tournament, f32, Option<i64>)>, Option<i64>);

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
    /// By name (by its UTF-8 bytes, whatever the database's collation).
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
    /// A search counts against the caller's read limit by what it cost: one read more for
    /// every millisecond it took (the instance's `RATE_LIMIT_SEARCH_MICROS`): the service's
    /// processor time, or the time its queries took when the database answers it (while the
    /// instance builds its index); a text without three letters in a row reads every name.
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
    /// `false`: the matches are not counted (a search as someone types, which shows the
    /// first names, not how many match): `total` is then a lower bound (the items before the
    /// page, its own, and one more where a next page exists) and `total_exact` false, unless
    /// a first page holds the whole list. Default `true`: counted up to 1000.
    pub count: Option<bool>,
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
        let exists = db::ratings::pools::exists(conn, PoolId(pool))?;
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

/// Where a page starts after the item `key` names, in `sort`'s order; 422 naming `cursor`
/// when the keys are not those of this sort.
fn after(sort: TournamentSort, key: TournamentKey) -> Result<ListAfter, ApiError> {
    Ok(match (sort, key) {
        (TournamentSort::Relevance, TournamentKey(Some(rank), Some(name), None, id)) => {
            ListAfter::Relevance(rank, name, id)
        }
        (TournamentSort::Name, TournamentKey(None, Some(name), None, id)) => {
            ListAfter::Name(name, id)
        }
        (TournamentSort::StartsOn, TournamentKey(None, None, Some(day), id)) => {
            ListAfter::StartsOn(day, id)
        }
        (TournamentSort::StartsOnDesc, TournamentKey(None, None, Some(day), id)) => {
            ListAfter::StartsOnDesc(day, id)
        }
        _ => {
            return Err(ApiError::field(
                "cursor",
                "is not a cursor of this list; follow the next link as given",
            ))
        }
    })
}

/// The store's filter: who reads, and the checked filters.
fn store_filter(caller: &MaybeCaller, filter: &TournamentFilter, c: &Checked) -> ListFilter {
    let reader = match &caller.0 {
        Some(who) if who.is_admin => ListReader::Admin,
        Some(who) => ListReader::User(UserId(who.user_id)),
        None => ListReader::Anonymous,
    };
    ListFilter {
        reader,
        q: c.q.clone(),
        status: filter.status,
        game: c.game.clone(),
        ruleset: filter.ruleset,
        starts_from: filter.starts_from,
        starts_until: filter.starts_until,
        country: c.country.clone(),
        rating_pool_id: filter.rating_pool_id.map(PoolId),
    }
}

/// One page of the tournaments the caller may see (drafts only for their staff), searched,
/// filtered and sorted; later pages by keyset (`cursor`), never by counting through. With the
/// instance's search index (`index`, once it has applied every name change committed before:
/// see `infra::search`), a search ranked or by name takes its matches from the index in the
/// list's order and asks the database only which of them pass the other filters.
pub fn list_tournaments(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    filter: TournamentFilter,
    index: Option<&SearchIndex>,
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
    let list = store_filter(caller, &filter, &c);
    let (mut offset, mut first, mut from) = (0, false, None);
    match start {
        Start::Offset(o) => (offset, first) = (o, true),
        Start::After(key) => from = Some(after(c.sort, key)?),
    }
    let order = match c.sort {
        TournamentSort::Relevance => ListOrder::Relevance,
        TournamentSort::Name => ListOrder::Name,
        TournamentSort::StartsOn => ListOrder::StartsOn,
        TournamentSort::StartsOnDesc => ListOrder::StartsOnDesc,
    };
    // A ranked page scores every match before it cuts: it counts them in the same pass (as
    // `services::players::list_players` does).
    let counting = filter.count != Some(false);
    let counted_here = c.sort == TournamentSort::Relevance && first && counting;
    let names = match (index, &c.q, order) {
        (Some(index), Some(_), ListOrder::Relevance | ListOrder::Name) => {
            index.tournaments(|| db::search::stamp(conn))?
        }
        _ => None,
    };
    let indexed = match (names.as_deref(), &c.q, order) {
        (Some(names), Some(q), ListOrder::Relevance | ListOrder::Name) => {
            let at = (offset as usize, (limit + 1) as usize, counting);
            Some(indexed::page(
                conn,
                names,
                (q, &list),
                order,
                from.as_ref(),
                at,
            )?)
        }
        _ => None,
    };
    // A search PostgreSQL answers is charged by the time its queries take (`infra::charge`).
    let _waited = (indexed.is_none() && c.q.is_some()).then(crate::infra::charge::Timed::waiting);
    let (rows, counted) = match indexed {
        Some(page) => page,
        None => {
            let rows = db::tournaments::list_page(
                conn,
                &list,
                order,
                from,
                (limit + 1, offset),
                counted_here,
            )?;
            let counted = rows.first().and_then(|r| r.2);
            (rows, counted)
        }
    };
    let sort = c.sort;
    keyset_page(
        rows,
        limit,
        (offset, first),
        counting.then_some(|| match counted {
            Some(n) => Ok(n),
            None => Ok(db::tournaments::count_listed(conn, &list, COUNT_CAP + 1)?),
        }),
        "tournaments",
        &scope,
        |(t, rank, _)| match sort {
            TournamentSort::Relevance => {
                TournamentKey(Some(-rank), Some(t.name.clone()), None, t.id.0)
            }
            TournamentSort::Name => TournamentKey(None, Some(t.name.clone()), None, t.id.0),
            TournamentSort::StartsOn | TournamentSort::StartsOnDesc => {
                TournamentKey(None, None, Some(t.starts_on), t.id.0)
            }
        },
        |(t, _, _)| TournamentOut::try_from(t),
    )
}
