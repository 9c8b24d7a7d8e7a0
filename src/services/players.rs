//! Player identities shared across tournaments.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::auth::keys::Scope;
use crate::auth::Caller;
use crate::db::ids::{PlayerId, UserId};
use crate::db::models::{NewPlayer, Player};
use crate::db::named::NamesAfter;
use crate::db::players::{self as store, PlayerSearch, PlayersAfter};
use crate::db::PgConnection;
use crate::error::ApiError;
use crate::infra::search::{self, Names, Order, Ranked, SearchIndex};
use crate::infra::{charge, rfc3339};
use crate::services::validate::{
    check_country, keyset_page, keyset_start, Check, Page, Start, COUNT_CAP,
};

/// A player identity.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerOut {
    pub id: i64,
    #[schema(example = "Kari Nordmann")]
    pub name: String,
    #[schema(example = "Oslo Brettspillklubb")]
    pub club: Option<String>,
    /// ISO 3166-1 alpha-2.
    #[schema(example = "NO")]
    pub country: Option<String>,
    /// The user account linked to this player, if any.
    pub user_id: Option<i64>,
    // Written by `infra::rfc3339`, as chrono writes it (40 times a page of a search).
    #[serde(serialize_with = "rfc3339::timestamp")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "rfc3339::timestamp")]
    pub updated_at: DateTime<Utc>,
}

impl From<Player> for PlayerOut {
    fn from(p: Player) -> Self {
        Self {
            id: p.id.0,
            name: p.name,
            club: p.club,
            country: p.country,
            user_id: p.user_id.map(|id| id.0),
            created_at: p.created_at,
            updated_at: p.updated_at,
        }
    }
}

/// A new player.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Kari Nordmann", "club": "Oslo Brettspillklubb", "country": "NO"}))]
pub struct CreatePlayer {
    #[schema(
        example = "Kari Nordmann",
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub name: String,
    #[schema(
        example = "Oslo Brettspillklubb",
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub club: Option<String>,
    #[schema(example = "NO", pattern = "^[A-Za-z]{2}$")]
    pub country: Option<String>,
    /// Link to a user account (one player per account): your own, or any for an admin (through
    /// an API key, one with the `admin` scope).
    pub user_id: Option<i64>,
}

/// Changes to a player; absent fields stay as they are, `null` clears an optional field.
#[derive(Debug, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"club": "Bergen Brettspillklubb"}))]
pub struct UpdatePlayer {
    #[schema(
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub name: Option<String>,
    #[serde(default, with = "crate::services::validate::double_option")]
    #[schema(value_type = Option<String>, max_length = 100, pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$")]
    pub club: Option<Option<String>>,
    #[serde(default, with = "crate::services::validate::double_option")]
    #[schema(value_type = Option<String>, pattern = "^[A-Za-z]{2}$")]
    pub country: Option<Option<String>>,
    /// Links the player to an account (`null` unlinks it): admins only (issue 29), through an
    /// API key one with the `admin` scope. The account must exist and have no other player.
    #[serde(default, with = "crate::services::validate::double_option")]
    #[schema(value_type = Option<i64>)]
    pub user_id: Option<Option<i64>>,
}

/// How the player list is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlayerSort {
    /// Best match to `q` first (then by name and id); the default with `q`, refused without it.
    Relevance,
    /// By name, then id; the default without `q`.
    Name,
}

/// Filters for the player list.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PlayerFilter {
    /// Part of the name, or a near match of a word of it; ignores case and diacritics
    /// (`oystein` finds `Øystein`, `lodz` finds `Łódź`). Blank means no filter.
    /// A search counts against the caller's read limit by what it cost: one read more for
    /// every millisecond it took (the instance's `RATE_LIMIT_SEARCH_MICROS`): the service's
    /// processor time, or the time its queries took when the database answers it (while the
    /// instance builds its index); a text without three letters in a row reads every name.
    #[param(max_length = 100, pattern = r"^[^\u0000-\u001f\u007f-\u009f]*$")]
    pub q: Option<String>,
    /// ISO country code.
    #[param(pattern = "^[A-Za-z]{2}$")]
    pub country: Option<String>,
    /// `relevance` (the default with `q`) or `name` (the default without).
    #[param(inline)]
    pub sort: Option<PlayerSort>,
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

fn load(conn: &mut PgConnection, id: i64) -> Result<Player, ApiError> {
    store::by_id(conn, PlayerId(id))?.ok_or_else(|| ApiError::NotFound(format!("no player {id}")))
}

/// A player may be linked to an account only with that account's consent: by its owner (an
/// organiser creating their own player) or by an admin (who links a claimed account). Anyone
/// else could make a stranger's `/me` show their player and make them a party in cases.
fn check_user_link(
    conn: &mut PgConnection,
    caller: &Caller,
    user_id: Option<i64>,
) -> Result<(), ApiError> {
    if let Some(uid) = user_id {
        if uid != caller.user_id {
            links_accounts(caller)?;
        }
        if !crate::db::accounts::user_exists(conn, UserId(uid))? {
            return Err(ApiError::field(
                "user_id",
                format!("there is no user {uid}"),
            ));
        }
    }
    Ok(())
}

/// 403 unless the caller links players to others' accounts: an admin, signed in or through an
/// API key with the `admin` scope. Linking hands an account a player's profile and its erasure,
/// an operation on accounts: an admin's `tournaments:write` key (a tournament's software) does
/// not (`auth::keys::Scope`).
fn links_accounts(caller: &Caller) -> Result<(), ApiError> {
    if !caller.is_admin {
        return Err(ApiError::Forbidden(
            "only an admin links a player to another account".into(),
        ));
    }
    if caller
        .key
        .as_ref()
        .is_some_and(|k| !k.scopes.contains(&Scope::Admin))
    {
        return Err(ApiError::Forbidden(
            "linking a player to an account through an API key needs the `admin` scope".into(),
        ));
    }
    Ok(())
}

/// Creates a player (an admin, or anyone who organises a tournament).
pub fn create_player(
    conn: &mut PgConnection,
    caller: &Caller,
    input: CreatePlayer,
) -> Result<PlayerOut, ApiError> {
    let mut check = Check::new();
    let name = check.text("name", &input.name, 100);
    let club = check.optional_text("club", input.club.as_deref(), 100);
    let country = check_country(&mut check, "country", input.country.as_deref());
    check.finish()?;
    if !caller.is_organiser_anywhere(conn)? {
        return Err(ApiError::Forbidden(
            "only admins and tournament organisers may create players".into(),
        ));
    }
    crate::db::unit_of_work(conn, |conn| {
        check_user_link(conn, caller, input.user_id)?;
        // A player made linked: kept in its links as its creator's decision (issue 37).
        crate::db::player_links::say_how(
            conn,
            &crate::db::player_links::LinkContext {
                via: "created",
                claim_id: None,
                invitation_id: None,
                decided_by: Some(crate::db::ids::UserId(caller.user_id)),
            },
        )?;
        Ok(store::insert(
            conn,
            NewPlayer {
                name,
                club,
                country,
                user_id: input.user_id.map(UserId),
                created_by: UserId(caller.user_id),
            },
        )?)
    })
    .map(PlayerOut::from)
}

/// The keys of a row of a list searched by name (`db::named`: players, and the rating pools'
/// list, which shares this with the players' list) that its cursor names: its negated similarity when ranked, its name and id.
#[derive(Debug, Serialize, Deserialize)]
pub struct NameKey(pub Option<f32>, pub String, pub i64);

impl NameKey {
    /// The keys of a row named `name` with id `id` and similarity `rank` (`ranked`).
    pub fn of(ranked: bool, rank: f32, name: &str, id: i64) -> Self {
        NameKey(ranked.then_some(-rank), name.to_string(), id)
    }
}

/// Where a page of a list searched by name starts: its offset, whether it is a first page
/// (not after a cursor), and the row it follows. A cursor of the other order (`ranked` or by
/// name) is refused, naming `cursor`.
pub fn name_keyset_start<I: From<i64>>(
    start: Start<NameKey>,
    ranked: bool,
) -> Result<(i64, bool, Option<NamesAfter<I>>), ApiError> {
    match start {
        Start::Offset(o) => Ok((o, true, None)),
        Start::After(NameKey(Some(rank), name, id)) if ranked => {
            Ok((0, false, Some(NamesAfter::Ranked(rank, name, id.into()))))
        }
        Start::After(NameKey(None, name, id)) if !ranked => {
            Ok((0, false, Some(NamesAfter::Named(name, id.into()))))
        }
        Start::After(_) => Err(ApiError::field(
            "cursor",
            "is not a cursor of this list; follow the next link as given",
        )),
    }
}

/// A players' list as asked: the search, its order, where the page starts, and the scope its
/// cursors are bound to.
struct Asked {
    search: PlayerSearch,
    ranked: bool,
    limit: i64,
    offset: i64,
    first: bool,
    after: Option<PlayersAfter>,
    scope: String,
    /// Whether the matches are counted (`count`, default true).
    counting: bool,
}

/// Checks a players' list's filter: 422 naming the field at fault.
fn asked(filter: PlayerFilter) -> Result<Asked, ApiError> {
    let mut check = Check::new();
    let q = check.search_text("q", filter.q.as_deref(), 100);
    let country = check_country(&mut check, "country", filter.country.as_deref());
    let sort = match (filter.sort, &q) {
        (Some(PlayerSort::Relevance), None) => {
            check.fail("sort", "relevance needs a search text in q");
            PlayerSort::Name
        }
        (Some(s), _) => s,
        (None, Some(_)) => PlayerSort::Relevance,
        (None, None) => PlayerSort::Name,
    };
    check.finish()?;
    let scope = format!("{q:?}|{country:?}|{sort:?}");
    let (limit, start) = keyset_start::<NameKey>(
        filter.limit,
        filter.offset,
        filter.cursor.as_deref(),
        "players",
        &scope,
    )?;
    let ranked = sort == PlayerSort::Relevance;
    let (offset, first, after) = name_keyset_start(start, ranked)?;
    Ok(Asked {
        search: PlayerSearch { q, country },
        ranked,
        limit,
        offset,
        first,
        after,
        scope,
        counting: filter.count != Some(false),
    })
}

/// One page of players, filtered by name (ignoring case and diacritics) and country, ranked by
/// similarity to `q` or by name; later pages by keyset (`cursor`), never by counting through.
/// With the instance's search index (`index`), a search is answered from it once it has
/// applied every name change committed before (`infra::search`), and only the page's rows are
/// read.
pub fn list_players(
    conn: &mut PgConnection,
    filter: PlayerFilter,
    index: Option<&SearchIndex>,
) -> Result<Page<PlayerOut>, ApiError> {
    let a = asked(filter)?;
    // A ranked page scores every match before it cuts, so it counts them in the same pass
    // (`count(*) OVER ()`, taken before LIMIT and OFFSET) instead of a second query, which for
    // a common term scanned the table testing the match on every row.
    let counted_here = a.ranked && a.first && a.counting;
    let indexed = match (index, &a.search.q) {
        (Some(index), Some(q)) => {
            let at = (a.offset as usize, (a.limit + 1) as usize);
            let narrowed = (q.as_str(), a.search.country.as_deref());
            let how = (a.ranked, a.counting);
            indexed_page(conn, index, narrowed, how, a.after.as_ref(), at)?
        }
        _ => None,
    };
    // A search PostgreSQL answers is charged by the time its queries take (`infra::charge`).
    let _waited = (indexed.is_none() && a.search.q.is_some()).then(charge::Timed::waiting);
    let (rows, counted) = match indexed {
        Some(page) => page,
        None => {
            let rows = store::search_page(
                conn,
                &a.search,
                a.ranked,
                a.after,
                a.limit,
                a.offset,
                counted_here,
            )?;
            let counted = rows.first().and_then(|r| r.2);
            (rows, counted)
        }
    };
    keyset_page(
        rows,
        a.limit,
        (a.offset, a.first),
        a.counting.then_some(|| match counted {
            Some(n) => Ok(n),
            None => Ok(store::search_count(conn, &a.search, COUNT_CAP)?),
        }),
        "players",
        &a.scope,
        |(p, rank, _)| NameKey::of(a.ranked, *rank, &p.name, p.id.0),
        |(p, _, _)| Ok(PlayerOut::from(p)),
    )
}

/// The page [`list_players`] answers with, from the names and rows the instance's search
/// index holds, without the database: a search, or the list by name with no search text (a
/// page by cursor starts at a binary search of the names). Call it once
/// `SearchIndex::current` has said the index has applied every change committed before the
/// request. `None` where the index cannot answer (a search text that is not ASCII, which the
/// database folds, or a row the index does not hold whole): then `list_players` answers.
pub fn list_players_held(
    index: &SearchIndex,
    filter: PlayerFilter,
) -> Result<Option<Page<PlayerOut>>, ApiError> {
    let a = asked(filter)?;
    let folded = match a.search.q.as_deref() {
        // Every name matches, in the list's order (`Names::plain`).
        None => String::new(),
        Some(q) => match search::fold_ascii(q) {
            Some(folded) => folded,
            None => return Ok(None),
        },
    };
    let query = search::Query {
        folded: &folded,
        tag: a
            .search
            .country
            .as_deref()
            .map(|c| search::names::tag(Some(c))),
        order: if a.ranked {
            Order::Ranked
        } else {
            Order::Named
        },
        after: a.after.as_ref().map(PlayersAfter::keys),
        skip: a.offset as usize,
        take: (a.limit + 1) as usize,
        count_to: counted_to(a.counting),
    };
    let held = index.held_players(|names| {
        let (hits, total) = names.search_shown(&query)?;
        let rows = hits
            .into_iter()
            .map(|(h, shown)| Some((held_out(h.id, h.name, shown?), h.score)))
            .collect::<Option<Vec<_>>>()?;
        Some((rows, total as i64))
    });
    let Some((rows, total)) = held else {
        return Ok(None);
    };
    keyset_page(
        rows,
        a.limit,
        (a.offset, a.first),
        a.counting.then_some(|| Ok(total)),
        "players",
        &a.scope,
        |(p, rank)| NameKey::of(a.ranked, *rank, &p.name, p.id),
        |(p, _)| Ok(p),
    )
    .map(Some)
}

/// A page of the players whose names match `q` (in `country`), as the store's `search_page`
/// gives it, from the search index: the index ranks the matches, and the page's rows are read
/// by id with the search stamp that shows the index was current (`SearchIndex::answer_players`:
/// one round trip); and how many players match in all. `None`: PostgreSQL answers.
fn indexed_page(
    conn: &mut PgConnection,
    index: &SearchIndex,
    (q, country): (&str, Option<&str>),
    (ranked, counting): (bool, bool),
    after: Option<&PlayersAfter>,
    (offset, limit): (usize, usize),
) -> Result<Option<Ranked<Player>>, ApiError> {
    let folded = match search::fold_ascii(q) {
        Some(f) => Some(f),
        // Asked of the database only when the index can answer.
        None if index.built() => Some(crate::db::search::fold(conn, q)?),
        None => None,
    };
    let order = if ranked { Order::Ranked } else { Order::Named };
    let after = after.map(PlayersAfter::keys);
    let tag = country.map(|c| search::names::tag(Some(c)));
    let search = |names: &Names| {
        Some(names.search(&search::Query {
            folded: folded.as_deref()?,
            tag,
            order,
            after,
            skip: offset,
            take: limit,
            count_to: counted_to(counting),
        }))
    };
    let read = |(hits, total): (Vec<search::Hit>, usize)| -> Result<_, ApiError> {
        let ids: Vec<PlayerId> = hits.iter().map(|h| PlayerId(h.id)).collect();
        let (rows, stamp) = store::by_ids_at_stamp(conn, &ids)?;
        let total = Some(total as i64);
        let page = search::in_hits_order(&hits, rows, |p: &Player| p.id.0, total);
        Ok(((page, total), stamp))
    };
    index.answer_players(search, read)
}

/// How far the index counts a search's matches: just past [`COUNT_CAP`], or not at all
/// where the caller asked not to count (`count=false`).
fn counted_to(counting: bool) -> usize {
    if counting {
        COUNT_CAP as usize + 1
    } else {
        0
    }
}

/// A player as the search index holds it (its name and what the list shows of it).
fn held_out(id: i64, name: String, (country, shown): search::names::ShownRow) -> PlayerOut {
    PlayerOut {
        id,
        name,
        club: shown.club,
        country,
        user_id: shown.user_id,
        created_at: shown.created_at,
        updated_at: shown.updated_at,
    }
}

/// One player, read from the search index's memory: to be called once
/// `SearchIndex::current` has said the index has applied every change committed before the
/// request. `None` where the index does not hold the whole row (an unknown id among them):
/// PostgreSQL answers ([`read_player`]).
pub fn read_player_held(index: &SearchIndex, id: i64) -> Option<PlayerOut> {
    index.held_players(|names| {
        let (name, shown) = names.row(id)?;
        Some(held_out(id, name.to_string(), shown))
    })
}

/// One player.
pub fn read_player(conn: &mut PgConnection, id: i64) -> Result<PlayerOut, ApiError> {
    load(conn, id).map(PlayerOut::from)
}

/// Changes a player (who may: [`may_change`]); the leaderboards that show the player get a
/// new version.
pub fn update_player(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    input: UpdatePlayer,
    now: DateTime<Utc>,
) -> Result<PlayerOut, ApiError> {
    let mut check = Check::new();
    let name = input.name.as_deref().map(|n| check.text("name", n, 100));
    let club = input
        .club
        .map(|c| check.optional_text("club", c.as_deref(), 100));
    let country = input
        .country
        .map(|c| check_country(&mut check, "country", c.as_deref()));
    check.finish()?;
    crate::db::transaction(conn, |conn| {
        let current = load(conn, id)?;
        may_change(conn, caller, &current)?;
        if let Some(link) = input.user_id {
            link_account(conn, caller, id, link)?;
        }
        let updated = store::set_details(
            conn,
            PlayerId(id),
            (
                name.unwrap_or(current.name),
                club.unwrap_or(current.club),
                country.unwrap_or(current.country),
            ),
            now,
        )?;
        leaderboards_show_changed(conn, id)?;
        Ok(updated)
    })
    .map(PlayerOut::from)
}

/// 403 unless the caller may change `player`'s name, club and country
/// (`docs/decisions/claims.md`, "Who changes a player"): an admin; the account it is linked to;
/// a keeper of a pool it is rated in (through an API key, one that may do a keeper's work on
/// that pool: `pools:write`); its creator only while the creator alone answers for it (never
/// linked, rated in no pool, every record in a tournament the creator organises). The
/// creator's rights end at the link: a rival who typed a person in does not rename them.
fn may_change(conn: &mut PgConnection, caller: &Caller, player: &Player) -> Result<(), ApiError> {
    let me = UserId(caller.user_id);
    if caller.is_admin || player.user_id == Some(me) {
        return Ok(());
    }
    let kept = store::pools_kept_rating(conn, me, player.id)?;
    if kept
        .iter()
        .any(|pool| caller.key.as_ref().is_none_or(|k| k.keeps_pool(pool.0)))
    {
        return Ok(());
    }
    if player.created_by == me {
        if store::creator_answers_for(conn, player.id, me)? {
            return Ok(());
        }
        return Err(ApiError::Forbidden(
            "you created this player, but it is no longer yours alone to change: it is linked \
             to an account (or was), rated in a pool, or has records in tournaments you do not \
             organise; its account, a keeper of a pool it is rated in, or an admin changes it"
                .into(),
        ));
    }
    Err(ApiError::Forbidden(
        "a player is changed by the account it is linked to, a keeper of a pool it is rated \
         in, an admin, or its creator while it is unlinked, unrated and has records only in \
         the creator's tournaments"
            .into(),
    ))
}

/// The leaderboards that list player `id` show its name, club and country: their ETags derive
/// from the pool's leaderboard version, moved on here after a change of those, inside the
/// caller's transaction.
pub fn leaderboards_show_changed(conn: &mut PgConnection, id: i64) -> Result<(), ApiError> {
    Ok(store::leaderboards_changed(conn, PlayerId(id))?)
}

/// Links player `id` to account `link` (or unlinks it), inside the caller's transaction: an
/// admin only; 422 naming `user_id` for an account that does not exist, 409 for one linked to
/// another player.
fn link_account(
    conn: &mut PgConnection,
    caller: &Caller,
    id: i64,
    link: Option<i64>,
) -> Result<(), ApiError> {
    links_accounts(caller)?;
    if let Some(user_id) = link {
        if !crate::db::accounts::live_user_exists(conn, UserId(user_id))? {
            return Err(ApiError::field("user_id", "no such account"));
        }
        if let Some(other) = store::other_of_account(conn, UserId(user_id), PlayerId(id))? {
            return Err(ApiError::conflict_at(
                "user_id",
                format!("that account is already linked to player {other}"),
            ));
        }
    }
    // Kept in the player's links as the admin's decision (issue 37, item 2).
    crate::db::player_links::say_how(
        conn,
        &crate::db::player_links::LinkContext {
            via: "admin",
            claim_id: None,
            invitation_id: None,
            decided_by: Some(crate::db::ids::UserId(caller.user_id)),
        },
    )?;
    store::set_account(conn, PlayerId(id), link.map(UserId))?;
    Ok(())
}
