//! The personal-data export's read model (issue 29, item 6; issue 37, item 1): the sections of
//! `services::accounts::export`, each field chosen here and typed in the OpenAPI document, read
//! by person from their tables. Nothing is read by walking the catalogue, so a table added later
//! stays out until someone decides what of it belongs here (tests/api/account_theft.rs fails for
//! a column that names a person and is neither exported nor listed in
//! `db::personal_data::LEFT_OUT`).
//!
//! No code, hash, token, secret or message body is in it.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Bool, Double, Integer, Nullable, Text, Timestamptz};
use diesel::PgConnection;
use serde::Serialize;
use utoipa::ToSchema;

use crate::db::ids::{
    AccountTokenId, ApiKeyId, CaseId, ClaimId, InvitationId, MailId, PenaltyId, PlayerId, PoolId,
    RefreshTokenId, RegistrationId, RoundId, SessionFamilyId, TournamentId, UserId, WithdrawalId,
};

/// Everything stored about an account and its player, by section.
#[derive(Debug, Serialize, ToSchema)]
pub struct Export {
    pub exported_at: DateTime<Utc>,
    pub account: ExportAccount,
    /// The linked player, if any.
    pub player: Option<ExportPlayer>,
    /// Sign-ins (refresh-token families' members), without their tokens.
    pub sessions: Vec<ExportSession>,
    /// API keys, without their secrets.
    pub api_keys: Vec<ExportApiKey>,
    /// Verification and reset codes issued: what and when, never the code.
    pub codes: Vec<ExportCode>,
    /// Messages to the account or its address, sent or waiting: recipient, subject, kind and
    /// delivery, never the body.
    pub messages: Vec<ExportMessage>,
    /// Roles on tournaments (organiser, arbiter, ...).
    pub tournament_roles: Vec<ExportTournamentRole>,
    /// Rating pools the account keeps.
    pub pools_kept: Vec<ExportPoolKept>,
    /// Claims on players made by the account.
    pub claims: Vec<ExportClaim>,
    /// Invitations to the account's address or accepted by it, without their codes.
    pub invitations: Vec<ExportInvitation>,
    /// The player's registrations.
    pub registrations: Vec<ExportRegistration>,
    /// The player's seats in results (every version).
    pub results: Vec<ExportResultSeat>,
    /// The player's rating changes.
    pub rating_changes: Vec<ExportRatingChange>,
    /// The player's current ratings.
    pub ratings: Vec<ExportRating>,
    /// The player's withdrawals.
    pub withdrawals: Vec<ExportWithdrawal>,
    /// Penalties given to the player.
    pub penalties: Vec<ExportPenalty>,
    /// Cases in which the account or the player is a party or sits on the panel.
    pub cases: Vec<ExportCaseRole>,
    /// Records the account made or decided, or that name the player, by kind and key (their
    /// content belongs to the tournaments, pools and cases they are in).
    pub acts: Vec<ExportAct>,
}

#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportAccount {
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub id: UserId,
    #[diesel(sql_type = Text)]
    pub username: String,
    #[diesel(sql_type = Nullable<Text>)]
    pub email: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub email_verified_at: Option<DateTime<Utc>>,
    /// The language of the account's messages.
    #[diesel(sql_type = Text)]
    pub language: String,
    #[diesel(sql_type = Bool)]
    pub is_admin: bool,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub disabled_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportPlayer {
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub id: PlayerId,
    #[diesel(sql_type = Text)]
    pub name: String,
    #[diesel(sql_type = Nullable<Text>)]
    pub club: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub country: Option<String>,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
    #[diesel(sql_type = Timestamptz)]
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportSession {
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub id: RefreshTokenId,
    /// The sign-in the session belongs to (refreshes rotate within it).
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub family_id: SessionFamilyId,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
    #[diesel(sql_type = Timestamptz)]
    pub expires_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub rotated_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub revoked_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportApiKey {
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub id: ApiKeyId,
    #[diesel(sql_type = Text)]
    pub name: String,
    /// The key's visible prefix, as the key list shows it (not the secret).
    #[diesel(sql_type = Text)]
    pub prefix: String,
    #[diesel(sql_type = Array<Text>)]
    pub scopes: Vec<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    #[schema(value_type = Option<i64>)]
    pub tournament_id: Option<TournamentId>,
    #[diesel(sql_type = Nullable<BigInt>)]
    #[schema(value_type = Option<i64>)]
    pub pool_id: Option<PoolId>,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub expires_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub last_used_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub revoked_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportCode {
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub id: AccountTokenId,
    /// `verify` or `reset`.
    #[diesel(sql_type = Text)]
    pub purpose: String,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
    #[diesel(sql_type = Timestamptz)]
    pub expires_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub used_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportMessage {
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub id: MailId,
    #[diesel(sql_type = Text)]
    pub to_address: String,
    #[diesel(sql_type = Text)]
    pub subject: String,
    /// `verify`, `already_registered`, `reset`, `invitation`, `claim_decided` or `notice`.
    #[diesel(sql_type = Text)]
    pub kind: String,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
    #[diesel(sql_type = Integer)]
    pub attempts: i32,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub sent_at: Option<DateTime<Utc>>,
    /// When sending was given up.
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub failed_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Text>)]
    pub last_error: Option<String>,
}

#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportTournamentRole {
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub tournament_id: TournamentId,
    #[diesel(sql_type = Text)]
    pub role: String,
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub appointed_by: UserId,
    #[diesel(sql_type = Timestamptz)]
    pub appointed_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportPoolKept {
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub pool_id: PoolId,
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub granted_by: UserId,
    #[diesel(sql_type = Timestamptz)]
    pub granted_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportClaim {
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub id: ClaimId,
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub player_id: PlayerId,
    #[diesel(sql_type = Text)]
    pub message: String,
    #[diesel(sql_type = Text)]
    pub status: String,
    #[diesel(sql_type = Nullable<Text>)]
    pub reason: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    #[schema(value_type = Option<i64>)]
    pub decided_by: Option<UserId>,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub decided_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportInvitation {
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub id: InvitationId,
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub tournament_id: TournamentId,
    #[diesel(sql_type = Text)]
    pub email: String,
    #[diesel(sql_type = Nullable<BigInt>)]
    #[schema(value_type = Option<i64>)]
    pub player_id: Option<PlayerId>,
    #[diesel(sql_type = Nullable<Text>)]
    pub message: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    #[schema(value_type = Option<i64>)]
    pub invited_by: Option<UserId>,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
    #[diesel(sql_type = Timestamptz)]
    pub expires_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub revoked_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub accepted_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportRegistration {
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub id: RegistrationId,
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub tournament_id: TournamentId,
    #[diesel(sql_type = Text)]
    pub status: String,
    #[diesel(sql_type = Nullable<Double>)]
    pub seeding_rating: Option<f64>,
    #[diesel(sql_type = Integer)]
    pub seeding_rated_games: i32,
    #[diesel(sql_type = Timestamptz)]
    pub registered_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub cancelled_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportResultSeat {
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub round_id: RoundId,
    #[diesel(sql_type = Integer)]
    pub table_number: i32,
    #[diesel(sql_type = Integer)]
    pub version: i32,
    /// The player's score at the table.
    #[diesel(sql_type = Nullable<Double>)]
    pub score: Option<f64>,
    /// `win`, `draw`, `loss`, ... where the ruleset says.
    #[diesel(sql_type = Nullable<Text>)]
    pub outcome: Option<String>,
    #[diesel(sql_type = Timestamptz)]
    pub entered_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportRatingChange {
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub pool_id: PoolId,
    #[diesel(sql_type = BigInt)]
    pub sequence: i64,
    #[diesel(sql_type = Text)]
    pub kind: String,
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub tournament_id: TournamentId,
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub round_id: RoundId,
    #[diesel(sql_type = Integer)]
    pub table_number: i32,
    #[diesel(sql_type = Timestamptz)]
    pub rated_at: DateTime<Utc>,
    #[diesel(sql_type = Double)]
    pub rating_before: f64,
    #[diesel(sql_type = Double)]
    pub rating_after: f64,
    #[diesel(sql_type = Double)]
    pub delta: f64,
    #[diesel(sql_type = Integer)]
    pub games: i32,
}

#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportRating {
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub pool_id: PoolId,
    #[diesel(sql_type = Double)]
    pub rating: f64,
    #[diesel(sql_type = BigInt)]
    pub games: i64,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub last_played: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportWithdrawal {
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub id: WithdrawalId,
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub tournament_id: TournamentId,
    #[diesel(sql_type = Text)]
    pub kind: String,
    #[diesel(sql_type = Integer)]
    pub from_round: i32,
    #[diesel(sql_type = Nullable<Text>)]
    pub reason: Option<String>,
    #[diesel(sql_type = Timestamptz)]
    pub recorded_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportPenalty {
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub id: PenaltyId,
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub tournament_id: TournamentId,
    #[diesel(sql_type = Text)]
    pub kind: String,
    #[diesel(sql_type = Nullable<Integer>)]
    pub round_number: Option<i32>,
    #[diesel(sql_type = Integer)]
    pub points: i32,
    #[diesel(sql_type = Text)]
    pub reason: String,
    #[diesel(sql_type = Timestamptz)]
    pub issued_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub annulled_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportCaseRole {
    #[diesel(sql_type = BigInt)]
    #[schema(value_type = i64)]
    pub case_id: CaseId,
    /// A party's role (`complainant`, `respondent`, ...) or `panel`.
    #[diesel(sql_type = Text)]
    pub role: String,
}

/// A record the account made or decided, or that names the player.
#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportAct {
    /// Which record and column, e.g. `tournaments.created_by`, `results.entered_by`.
    #[diesel(sql_type = Text)]
    pub record: String,
    /// The record's key (`17`, or `17/3` for a round's table).
    #[diesel(sql_type = Text)]
    pub key: String,
}

/// Records the account made or decided: (table, column naming the account, key of the row).
const USER_ACTS: &[(&str, &str, &str)] = &[
    ("tournaments", "created_by", "id::text"),
    ("player_links", "account_id", "id::text"),
    ("player_links", "decided_by", "id::text"),
    ("tournaments", "rating_decided_by", "id::text"),
    (
        "tournament_staff",
        "appointed_by",
        "tournament_id || '/' || user_id",
    ),
    ("players", "created_by", "id::text"),
    ("registrations", "registered_by", "id::text"),
    ("rounds", "created_by", "id::text"),
    ("round_draws", "drawn_by", "round_id || '/' || attempt"),
    (
        "results",
        "entered_by",
        "round_id || '/' || table_number || '/' || version",
    ),
    ("withdrawals", "recorded_by", "id::text"),
    ("penalties", "issued_by", "id::text"),
    ("penalties", "annulled_by", "id::text"),
    ("rating_pools", "created_by", "id::text"),
    ("pool_keepers", "granted_by", "pool_id || '/' || user_id"),
    ("rating_decisions", "decided_by", "id::text"),
    ("rating_imports", "imported_by", "id::text"),
    ("cases", "opened_by", "id::text"),
    ("cases", "decided_by", "id::text"),
    ("case_parties", "added_by", "id::text"),
    ("votes", "member_id", "case_id::text"),
    ("case_events", "author", "id::text"),
    ("result_reports", "reported_by_user", "id::text"),
    ("result_reports", "answered_by_user", "id::text"),
    ("schedule_messages", "by_user", "id::text"),
    ("webhook_endpoints", "created_by", "id::text"),
    ("tournament_checkouts", "checked_out_by", "id::text"),
    ("tournament_checkouts", "closed_by", "id::text"),
    ("invitations", "invited_by", "id::text"),
    ("player_claims", "decided_by", "id::text"),
];

/// Records that name the player outside the sections above.
const PLAYER_ACTS: &[(&str, &str, &str)] = &[
    // Who linked the player to an account (issue 37 item 2); the rows name the account too.
    ("player_links", "player_id", "id::text"),
    ("teams", "pair_a1", "id::text"),
    ("teams", "pair_a2", "id::text"),
    ("teams", "pair_b1", "id::text"),
    ("teams", "pair_b2", "id::text"),
    (
        "results",
        "playoff_winner",
        "round_id || '/' || table_number || '/' || version",
    ),
    (
        "game_schedules",
        "waiting_on",
        "round_id || '/' || table_number",
    ),
    (
        "game_schedules",
        "proposed_by",
        "round_id || '/' || table_number",
    ),
    (
        "game_schedules",
        "forfeited_player",
        "round_id || '/' || table_number",
    ),
    ("schedule_messages", "player_id", "id::text"),
    ("result_reports", "reported_by_player", "id::text"),
    ("rating_import_rows", "player_id", "import_id::text"),
];

/// The exported sections' columns that name a person (`table.column`), for the test that holds
/// every such column of the schema to a decision.
pub const SECTIONS: &[&str] = &[
    "players.user_id",
    "refresh_tokens.user_id",
    "api_keys.user_id",
    "account_tokens.user_id",
    "mail_outbox.user_id",
    "tournament_staff.user_id",
    "pool_keepers.user_id",
    "player_claims.user_id",
    "player_claims.player_id",
    "invitations.accepted_by",
    "invitations.player_id",
    "registrations.player_id",
    "rating_changes.player_id",
    "rating_standings.player_id",
    "withdrawals.player_id",
    "penalties.player_id",
    "case_parties.user_id",
    "case_parties.player_id",
    "case_panel.user_id",
];

/// Every column the export reads by person (`table.column`), sections and acts.
pub fn covered() -> Vec<String> {
    let acts = USER_ACTS.iter().chain(PLAYER_ACTS);
    SECTIONS
        .iter()
        .map(|s| s.to_string())
        .chain(acts.map(|(t, c, _)| format!("{t}.{c}")))
        .collect()
}

fn load<T: QueryableByName<diesel::pg::Pg> + 'static>(
    conn: &mut PgConnection,
    sql: &str,
    id: i64,
) -> QueryResult<Vec<T>> {
    diesel::sql_query(sql).bind::<BigInt, _>(id).load(conn)
}

/// The acts of `id` (the account's or the player's) in `list`, in one statement.
fn acts(
    conn: &mut PgConnection,
    list: &[(&str, &str, &str)],
    id: i64,
) -> QueryResult<Vec<ExportAct>> {
    // The names are this module's constants, never input.
    let sql = list
        .iter()
        .map(|(t, c, key)| {
            format!("SELECT '{t}.{c}' AS record, ({key})::text AS key FROM {t} WHERE {c} = $1")
        })
        .collect::<Vec<_>>()
        .join(" UNION ALL ");
    load(conn, &format!("{sql} ORDER BY 1, 2"), id)
}

const PLAYER_SQL: &str =
    "SELECT id, name, club, country, created_at, updated_at FROM players WHERE user_id = $1";

/// The account's own sections.
fn account_sections(conn: &mut PgConnection, uid: i64, e: &mut Export) -> QueryResult<()> {
    e.sessions = load(conn, "SELECT id, family_id, created_at, expires_at, rotated_at, revoked_at FROM refresh_tokens WHERE user_id = $1 ORDER BY id", uid)?;
    e.api_keys = load(conn, "SELECT id, name, prefix, scopes, tournament_id, pool_id, created_at, expires_at, last_used_at, revoked_at FROM api_keys WHERE user_id = $1 ORDER BY id", uid)?;
    e.codes = load(conn, "SELECT id, purpose, created_at, expires_at, used_at FROM account_tokens WHERE user_id = $1 ORDER BY id", uid)?;
    e.messages = load(conn, "SELECT id, to_address, subject, kind, created_at, attempts, sent_at, failed_at, last_error FROM mail_outbox WHERE user_id = $1 OR lower(to_address) = (SELECT lower(email) FROM users WHERE id = $1) ORDER BY id", uid)?;
    e.tournament_roles = load(conn, "SELECT tournament_id, role, appointed_by, appointed_at FROM tournament_staff WHERE user_id = $1 ORDER BY 1, 2", uid)?;
    e.pools_kept = load(
        conn,
        "SELECT pool_id, granted_by, granted_at FROM pool_keepers WHERE user_id = $1 ORDER BY 1",
        uid,
    )?;
    e.claims = load(conn, "SELECT id, player_id, message, status, reason, decided_by, created_at, decided_at FROM player_claims WHERE user_id = $1 ORDER BY id", uid)?;
    e.invitations = load(conn, "SELECT i.id, i.tournament_id, i.email, i.player_id, i.message, i.invited_by, i.created_at, i.expires_at, i.revoked_at, i.accepted_at FROM invitations i WHERE i.accepted_by = $1 OR lower(i.email) = (SELECT lower(email) FROM users WHERE id = $1) OR i.player_id = (SELECT id FROM players WHERE user_id = $1) ORDER BY i.id", uid)?;
    e.cases = load(conn, "SELECT case_id, role FROM case_parties WHERE user_id = $1 OR player_id = (SELECT id FROM players WHERE user_id = $1) UNION SELECT case_id, 'panel' FROM case_panel WHERE user_id = $1 ORDER BY 1, 2", uid)?;
    e.acts = acts(conn, USER_ACTS, uid)?;
    Ok(())
}

/// The player's sections.
fn player_sections(conn: &mut PgConnection, pid: i64, e: &mut Export) -> QueryResult<()> {
    e.registrations = load(conn, "SELECT id, tournament_id, status, seeding_rating, seeding_rated_games, registered_at, cancelled_at FROM registrations WHERE player_id = $1 ORDER BY id", pid)?;
    e.results = load(conn, "SELECT r.round_id, r.table_number, r.version, (s ->> 'score')::float8 AS score, s ->> 'outcome' AS outcome, r.entered_at FROM results r CROSS JOIN LATERAL jsonb_array_elements(r.seats) s WHERE r.seats @> jsonb_build_array(jsonb_build_object('player', $1)) AND s -> 'player' = to_jsonb($1) ORDER BY 1, 2, 3", pid)?;
    e.rating_changes = load(conn, "SELECT pool_id, sequence, kind, tournament_id, round_id, table_number, rated_at, rating_before, rating_after, delta, games FROM rating_changes WHERE player_id = $1 ORDER BY pool_id, sequence", pid)?;
    e.ratings = load(conn, "SELECT pool_id, rating, games, last_played FROM rating_standings WHERE player_id = $1 ORDER BY pool_id", pid)?;
    e.withdrawals = load(conn, "SELECT id, tournament_id, kind, from_round, reason, recorded_at FROM withdrawals WHERE player_id = $1 ORDER BY id", pid)?;
    e.penalties = load(conn, "SELECT id, tournament_id, kind, round_number, points, reason, issued_at, annulled_at FROM penalties WHERE player_id = $1 ORDER BY id", pid)?;
    e.acts.extend(acts(conn, PLAYER_ACTS, pid)?);
    Ok(())
}

/// Everything stored about live account `user_id` and its player, stamped `exported_at`
/// (`None`: no such live account). Read it in one snapshot (the caller's transaction).
pub fn read(
    conn: &mut PgConnection,
    user_id: UserId,
    exported_at: DateTime<Utc>,
) -> QueryResult<Option<Export>> {
    let user_id = user_id.0;
    let Some(account) = load::<ExportAccount>(conn, "SELECT id, username, email, email_verified_at, language, is_admin, created_at, disabled_at FROM users WHERE id = $1 AND deleted_at IS NULL", user_id)?
        .pop()
    else {
        return Ok(None);
    };
    let player: Option<ExportPlayer> = load(conn, PLAYER_SQL, user_id)?.pop();
    let mut e = Export {
        exported_at,
        account,
        player: None,
        sessions: vec![],
        api_keys: vec![],
        codes: vec![],
        messages: vec![],
        tournament_roles: vec![],
        pools_kept: vec![],
        claims: vec![],
        invitations: vec![],
        registrations: vec![],
        results: vec![],
        rating_changes: vec![],
        ratings: vec![],
        withdrawals: vec![],
        penalties: vec![],
        cases: vec![],
        acts: vec![],
    };
    account_sections(conn, user_id, &mut e)?;
    if let Some(p) = &player {
        player_sections(conn, p.id.0, &mut e)?;
    }
    e.player = player;
    Ok(Some(e))
}
