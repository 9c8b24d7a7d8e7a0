//! Claims on players (issue 29, item 5; standing narrowed by issue 37, item 2): a signed-in
//! account without a player asks to be linked to an existing one, with a message; those
//! responsible for the player's existing records approve or refuse it with a reason: an admin,
//! a keeper of a pool the player is rated in, or an organiser only where every record of the
//! player lies in tournaments they organise (`docs/decisions/claims.md`). Nobody decides their
//! own claim. The claimant can withdraw an open claim. The decision goes to the claimant by
//! mail. One open claim per player and account. Every link and cut of a player is kept in
//! `player_links` (who, when, how, on whose decision) and shown to the player's deciders.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::keys::Scope;
use crate::auth::Caller;
use crate::db::claims::{self as store, ClaimRow, Claims, PlayerLinkRow};
/// A claim's id, as the handlers name the claim they act on.
pub use crate::db::ids::ClaimId;
use crate::db::ids::{PlayerId, UserId};
use crate::db::player_links::{say_how, LinkContext};
use crate::db::rounds::Lock;
use crate::db::PgConnection;
use crate::domain::accounts::ClaimStatus;
use crate::error::ApiError;
use crate::services::accounts::mail_text::Mail;
use crate::services::accounts::outbox;
use crate::services::validate::{Page, PageParams};

/// The longest message or reason.
const TEXT_MAX: usize = 2000;

/// A claim to make.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"message": "This is me: I played the Oslo Open 2025 for Asker."}))]
pub struct NewClaim {
    /// Why the player is the claimant's, for the deciders (1-2000 characters).
    #[schema(min_length = 1, max_length = 2000)]
    pub message: String,
}

/// A decision on a claim.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"approve": false, "reason": "Kari Nordmann of Asker is someone else."}))]
pub struct ClaimDecision {
    pub approve: bool,
    /// Required when refusing; sent to the claimant.
    #[schema(max_length = 2000)]
    pub reason: Option<String>,
}

/// A claim as shown to its claimant and its deciders.
#[derive(Debug, Serialize, ToSchema)]
pub struct ClaimOut {
    pub id: i64,
    pub player_id: i64,
    /// The claimant's account.
    pub user_id: i64,
    pub message: String,
    pub status: ClaimStatus,
    pub reason: Option<String>,
    pub decided_by: Option<i64>,
    pub created_at: DateTime<Utc>,
    pub decided_at: Option<DateTime<Utc>>,
}

impl From<ClaimRow> for ClaimOut {
    fn from(c: ClaimRow) -> Self {
        Self {
            id: c.id.0,
            player_id: c.player_id.0,
            user_id: c.user_id.0,
            message: c.message,
            status: c.status,
            reason: c.reason,
            decided_by: c.decided_by.map(|u| u.0),
            created_at: c.created_at,
            decided_at: c.decided_at,
        }
    }
}

fn check_text(field: &str, text: &str) -> Result<(), ApiError> {
    let n = text.trim().chars().count();
    if n == 0 || n > TEXT_MAX {
        return Err(ApiError::field(
            field,
            format!("must be 1-{TEXT_MAX} characters"),
        ));
    }
    Ok(())
}

fn linked_player(conn: &mut PgConnection, user_id: i64) -> Result<Option<i64>, ApiError> {
    Ok(crate::db::players::of_account(conn, UserId(user_id))?.map(|p| p.0))
}

/// Whether the caller may decide claims on `player` (and see its links): an admin, a keeper of
/// a pool the player is rated in, or an organiser of every tournament the player's records lie
/// in (none rated; `docs/decisions/claims.md`).
pub fn may_decide(conn: &mut PgConnection, caller: &Caller, player: i64) -> Result<bool, ApiError> {
    if caller.is_admin {
        return Ok(true);
    }
    let (me, player) = (UserId(caller.user_id), PlayerId(player));
    if store::keeps_pool_of(conn, me, player)? {
        return Ok(true);
    }
    Ok(store::organises_every_record(conn, player, me)?)
}

/// Whether the caller decides a claim on `player` with the credential they used: as
/// [`may_decide`], but through an API key an admin's standing needs the `admin` scope and a
/// keeper's `pools:write` on a pool the player is rated in (`auth::keys::KeyLimits::keeps_pool`):
/// an approval hands the player to an account, and a `tournaments:write` key (a tournament's
/// software) acts as an organiser, as elsewhere.
fn decides(conn: &mut PgConnection, caller: &Caller, player: PlayerId) -> Result<bool, ApiError> {
    let Some(key) = caller.key.as_deref() else {
        return may_decide(conn, caller, player.0);
    };
    if caller.is_admin && key.scopes.contains(&Scope::Admin) {
        return Ok(true);
    }
    let me = UserId(caller.user_id);
    let kept = crate::db::players::pools_kept_rating(conn, me, player)?;
    if kept.iter().any(|pool| key.keeps_pool(pool.0)) {
        return Ok(true);
    }
    Ok(store::organises_every_record(conn, player, me)?)
}

/// Claims `player` for the caller's account: 409 naming `player_id` if the account already has
/// a player, the player an account, or the account an open claim on the player already.
pub fn claim(
    conn: &mut PgConnection,
    caller: &Caller,
    player: i64,
    input: &NewClaim,
) -> Result<ClaimOut, ApiError> {
    check_text("message", &input.message)?;
    crate::db::transaction(conn, |conn| {
        let owner = crate::db::players::account_of(conn, PlayerId(player), Lock::None)?
            .ok_or_else(|| ApiError::NotFound(format!("no player {player}")))?;
        if let Some(own) = linked_player(conn, caller.user_id)? {
            return Err(ApiError::conflict_at(
                "player_id",
                format!("your account is already linked to player {own}"),
            ));
        }
        if owner.is_some() {
            return Err(ApiError::conflict_at(
                "player_id",
                format!("player {player} is already linked to an account"),
            ));
        }
        let inserted = store::insert_unless_open(
            conn,
            PlayerId(player),
            UserId(caller.user_id),
            input.message.trim(),
        )?;
        inserted.map(ClaimOut::from).ok_or_else(|| {
            ApiError::conflict_at("player_id", "you already have an open claim on this player")
        })
    })
}

/// The claims on `player`, oldest first, a page read in SQL: all of them for its deciders,
/// the caller's own for anyone else signed in.
pub fn list_for_player(
    conn: &mut PgConnection,
    caller: &Caller,
    player: i64,
    params: &PageParams,
) -> Result<Page<ClaimOut>, ApiError> {
    if !crate::db::players::exists(conn, PlayerId(player))? {
        return Err(ApiError::NotFound(format!("no player {player}")));
    }
    let only_own = (!may_decide(conn, caller, player)?).then_some(UserId(caller.user_id));
    page_of(conn, params, Claims::OnPlayer(PlayerId(player), only_own))
}

/// The open claims the caller may decide, oldest first (the deciders' queue), a page read in
/// SQL: every open claim but their own for an admin; else those on players rated in a pool the
/// caller keeps or whose every record lies in tournaments the caller organises, as
/// [`may_decide`] says (the same SQL function).
pub fn queue(
    conn: &mut PgConnection,
    caller: &Caller,
    params: &PageParams,
) -> Result<Page<ClaimOut>, ApiError> {
    let which = Claims::DecidableBy {
        admin: caller.is_admin,
        user: UserId(caller.user_id),
    };
    page_of(conn, params, which)
}

/// A page of the claims `which` selects, oldest first.
fn page_of(
    conn: &mut PgConnection,
    params: &PageParams,
    which: Claims,
) -> Result<Page<ClaimOut>, ApiError> {
    let page = Page::read(
        conn,
        params,
        |conn| store::count(conn, which),
        |conn, limit, offset| store::page(conn, which, limit, offset),
    )?;
    page.try_map(|c| Ok::<_, ApiError>(ClaimOut::from(c)))
}

/// The open claim, locked; 404 if there is none such on the player, 409 naming `claim_id` if
/// it is no longer open. Inside the caller's transaction.
fn open_claim(
    conn: &mut PgConnection,
    player: PlayerId,
    id: ClaimId,
) -> Result<ClaimRow, ApiError> {
    let c = store::lock_on(conn, player, id)?
        .ok_or_else(|| ApiError::NotFound(format!("no claim {id} on player {player}")))?;
    if c.status != ClaimStatus::Open {
        return Err(ApiError::conflict_at(
            "claim_id",
            format!("the claim is already {}", c.status.as_str()),
        ));
    }
    Ok(c)
}

/// Decides a claim (its deciders; 403 for others). Approving links the account to the player
/// (409 naming `player_id` if the player or the account was linked meanwhile: the player's row
/// lock is taken first; 409 naming `claim_id` while the claimant's account is disabled); refusing needs a reason (422 naming `reason`). The claimant gets a
/// mail either way; a second decision is 409 naming `claim_id`.
pub fn decide(
    conn: &mut PgConnection,
    caller: &Caller,
    player: PlayerId,
    id: ClaimId,
    input: &ClaimDecision,
    now: DateTime<Utc>,
) -> Result<ClaimOut, ApiError> {
    if let Some(r) = &input.reason {
        check_text("reason", r)?;
    } else if !input.approve {
        return Err(ApiError::field("reason", "required when refusing a claim"));
    }
    crate::db::transaction(conn, |conn| {
        // The player's row first: an approval and an invitation linking it wait for each other.
        let owner = crate::db::players::account_of(conn, player, Lock::ForUpdate)?
            .ok_or_else(|| ApiError::NotFound(format!("no player {player}")))?;
        if !decides(conn, caller, player)? {
            return Err(ApiError::Forbidden(
                "claims are decided by an admin, a keeper of a pool the player is rated in, or an organiser of every tournament the player's records lie in".into(),
            ));
        }
        let c = open_claim(conn, player, id)?;
        if c.user_id == UserId(caller.user_id) {
            return Err(ApiError::Forbidden(
                "nobody decides their own claim: another of the player's deciders does".into(),
            ));
        }
        let status = if input.approve {
            if owner.is_some() {
                return Err(ApiError::conflict_at(
                    "player_id",
                    format!("player {player} was linked to an account meanwhile"),
                ));
            }
            if let Some(other) = linked_player(conn, c.user_id.0)? {
                return Err(ApiError::conflict_at(
                    "player_id",
                    format!("the claimant's account was linked to player {other} meanwhile"),
                ));
            }
            // A disabled account's claim waits: approving it would hand the player to an
            // account an admin has stopped (erasure deletes an account's claims).
            if crate::db::accounts::enabled_name_and_admin(conn, c.user_id)?.is_none() {
                return Err(ApiError::conflict_at(
                    "claim_id",
                    "the claimant's account is disabled: approve the claim once an admin enables \
                     it, or refuse it",
                ));
            }
            say_how(
                conn,
                &LinkContext {
                    via: "claim",
                    claim_id: Some(c.id),
                    invitation_id: None,
                    decided_by: Some(crate::db::ids::UserId(caller.user_id)),
                },
            )?;
            crate::db::players::link(conn, player, c.user_id, now)?;
            ClaimStatus::Approved
        } else {
            ClaimStatus::Refused
        };
        let out = store::set_decided(
            conn,
            id,
            status,
            input.reason.as_deref().map(str::trim),
            UserId(caller.user_id),
            now,
        )?;
        notify(conn, &out)?;
        Ok(ClaimOut::from(out))
    })
}

/// The decision's mail to the claimant (if the account has an address), inside the caller's
/// transaction.
fn notify(conn: &mut PgConnection, c: &ClaimRow) -> Result<(), ApiError> {
    let who = crate::db::accounts::mail_to(conn, c.user_id)?;
    let name = crate::db::players::name_of(conn, c.player_id)?;
    let Some(to) = who.1 else {
        return Ok(());
    };
    outbox::queue(
        conn,
        Some(c.user_id.0),
        &to,
        who.2,
        &Mail::ClaimDecided {
            username: &who.0,
            player: &name,
            approved: c.status == ClaimStatus::Approved,
            reason: c.reason.as_deref().unwrap_or(""),
        },
    )
}

/// Withdraws the caller's own open claim (409 naming `claim_id` once decided).
pub fn withdraw(
    conn: &mut PgConnection,
    caller: &Caller,
    player: PlayerId,
    id: ClaimId,
    now: DateTime<Utc>,
) -> Result<ClaimOut, ApiError> {
    crate::db::transaction(conn, |conn| {
        let c = open_claim(conn, player, id)?;
        if c.user_id != UserId(caller.user_id) {
            return Err(ApiError::Forbidden(
                "only the claimant withdraws a claim".into(),
            ));
        }
        Ok(store::set_withdrawn(conn, id, now)?.into())
    })
}

/// One link of a player to an account, or its cut, as its deciders see it.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerLinkOut {
    pub id: i64,
    pub player_id: i64,
    /// `true`: the player was linked to the account; `false`: the link was cut.
    pub linked: bool,
    /// The account (its id stays here after the account is erased).
    pub user_id: i64,
    /// How: `claim` (an approved claim), `invitation` (an accepted invitation), `admin` (an
    /// admin's `PATCH /players/{id}`), `created` (made linked, by an admin or by the account
    /// itself), `account_removed` (the account was erased or deleted),
    /// `unrecorded` (a change no path described).
    pub via: String,
    /// The approved claim (`via: claim`).
    pub claim_id: Option<i64>,
    /// The accepted invitation (`via: invitation`).
    pub invitation_id: Option<i64>,
    /// On whose decision: the claim's decider, the inviter, the admin.
    pub decided_by: Option<i64>,
    pub at: DateTime<Utc>,
}

impl From<PlayerLinkRow> for PlayerLinkOut {
    fn from(l: PlayerLinkRow) -> Self {
        Self {
            id: l.id.0,
            player_id: l.player_id.0,
            linked: l.linked,
            user_id: l.account_id.0,
            via: l.via,
            claim_id: l.claim_id.map(|c| c.0),
            invitation_id: l.invitation_id.map(|i| i.0),
            decided_by: l.decided_by.map(|u| u.0),
            at: l.at,
        }
    }
}

/// Who linked the player to which account, when and on whose decision, oldest first: for the
/// player's deciders ([`may_decide`]: admins, keepers of a pool it is rated in, the organiser of
/// every tournament its records lie in); 403 for anyone else.
pub fn links(
    conn: &mut PgConnection,
    caller: &Caller,
    player: i64,
    params: &PageParams,
) -> Result<Page<PlayerLinkOut>, ApiError> {
    if !crate::db::players::exists(conn, PlayerId(player))? {
        return Err(ApiError::NotFound(format!("no player {player}")));
    }
    if !may_decide(conn, caller, player)? {
        return Err(ApiError::Forbidden(
            "a player's links are shown to its deciders: an admin, a keeper of a pool it is rated in, or the organiser of every tournament its records lie in".into(),
        ));
    }
    let page = Page::read(
        conn,
        params,
        |conn| store::count_links(conn, PlayerId(player)),
        |conn, limit, offset| store::links_page(conn, PlayerId(player), limit, offset),
    )?;
    page.try_map(|l| Ok::<_, ApiError>(PlayerLinkOut::from(l)))
}
