//! Withdrawals, voluntary-round opt-outs, penalties and sanctions:
//! `/tournaments/{id}/withdrawals`, `/tournaments/{id}/penalties`.

use actix_web::{get, post, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::api::extract::Json;
use crate::api::support::{cached_json, Check, Visibility};
use crate::auth::{Caller, MaybeCaller, StaffRole};
use crate::db::running::{NewWithdrawal, PenaltyRow, WithdrawalRow};
use crate::db::schema::{penalties, players, withdrawals};
use crate::error::{ApiError, ApiResult, Problem};
use crate::services::access::{load_for_staff, load_visible};
use crate::services::conduct::{
    annul_penalty, ensure_confirmed, insert_withdrawal, penalty_out, record_penalty, rounds_drawn,
    AnnulPenalty, PenaltyOut, RecordPenalty,
};
use crate::state::AppState;

/// Withdrawal (plays no round from `from_round` on; placed last) or opt-out (stops before the
/// voluntary round `from_round`; placed below everyone who continued).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WithdrawalKind {
    Withdrawal,
    OptOut,
}

/// Record a withdrawal or an opt-out.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordWithdrawal {
    pub player_id: i64,
    /// The first round the player does not play; not drawn yet.
    #[schema(minimum = 1, maximum = 1000)]
    pub from_round: i32,
    /// `withdrawal` (default) or `opt_out`.
    pub kind: Option<WithdrawalKind>,
    #[schema(
        max_length = 500,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub reason: Option<String>,
}

/// A recorded withdrawal or opt-out.
#[derive(Debug, Serialize, ToSchema)]
pub struct WithdrawalOut {
    pub player_id: i64,
    #[schema(example = "withdrawal")]
    pub kind: String,
    pub from_round: i32,
    pub reason: Option<String>,
    pub recorded_by: i64,
    pub recorded_at: DateTime<Utc>,
}

fn withdrawal_out(w: WithdrawalRow) -> WithdrawalOut {
    WithdrawalOut {
        player_id: w.player_id,
        kind: w.kind,
        from_round: w.from_round,
        reason: w.reason,
        recorded_by: w.recorded_by,
        recorded_at: w.recorded_at,
    }
}

/// Record a withdrawal or a voluntary-round opt-out (organisers and referees; a player may
/// opt out of a voluntary round themselves).
#[utoipa::path(
    tag = "conduct",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Tournament id")),
    request_body = RecordWithdrawal,
    responses(
        (status = 201, description = "Recorded", body = WithdrawalOut),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Not signed in", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an organiser or referee", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already withdrawn", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/withdrawals")]
pub async fn withdraw(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: Json<RecordWithdrawal>,
) -> ApiResult<HttpResponse> {
    let tid = id.into_inner();
    let input = body.0;
    let mut check = Check::new();
    check.range("from_round", input.from_round.into(), 1, 1000);
    let reason = check.optional_text("reason", input.reason.as_deref(), 500);
    check.finish()?;
    let out = state
        .run(move |conn| {
            conn.transaction(|conn| {
                let kind = input.kind.unwrap_or(WithdrawalKind::Withdrawal);
                // Players opt out of a voluntary round themselves; everything else is recorded
                // by the tournament's organisers and referees.
                let own_opt_out = kind == WithdrawalKind::OptOut
                    && diesel::select(diesel::dsl::exists(
                        players::table
                            .filter(players::id.eq(input.player_id))
                            .filter(players::user_id.eq(caller.user_id)),
                    ))
                    .get_result::<bool>(conn)?;
                if own_opt_out {
                    load_visible(conn, &MaybeCaller(Some(caller.clone())), tid)?;
                } else {
                    load_for_staff(conn, &caller, tid, &[StaffRole::Organiser, StaffRole::Referee])?;
                }
                ensure_confirmed(conn, tid, input.player_id)?;
                let drawn = rounds_drawn(conn, tid)?;
                if input.from_round <= drawn {
                    return Err(ApiError::field(
                        "from_round",
                        format!("round {} is already drawn; the earliest is {}", input.from_round, drawn + 1),
                    ));
                }
                let row = insert_withdrawal(
                    conn,
                    NewWithdrawal {
                        tournament_id: tid,
                        player_id: input.player_id,
                        kind: match kind {
                            WithdrawalKind::Withdrawal => "withdrawal",
                            WithdrawalKind::OptOut => "opt_out",
                        }
                        .into(),
                        from_round: input.from_round,
                        reason,
                        recorded_by: caller.user_id,
                    },
                )?;
                crate::db::events::record(
                    conn,
                    tid,
                    "withdrawal",
                    serde_json::json!({"player_id": row.player_id, "from_round": row.from_round, "kind": row.kind}),
                )?;
                Ok(withdrawal_out(row))
            })
        })
        .await?;
    Ok(HttpResponse::Created().json(out))
}

/// Withdrawals and opt-outs of a tournament.
#[utoipa::path(
    tag = "conduct",
    params(("id" = i64, Path, description = "Tournament id")),
    responses(
        (status = 200, description = "In the order recorded", body = Vec<WithdrawalOut>),
        (status = 304, description = "Not modified"),
        (status = 401, description = "Invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}/withdrawals")]
pub async fn list_withdrawals(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let tid = id.into_inner();
    let out = state
        .run(move |conn| {
            load_visible(conn, &caller, tid)?;
            let rows: Vec<WithdrawalRow> = withdrawals::table
                .filter(withdrawals::tournament_id.eq(tid))
                .order(withdrawals::id)
                .select(WithdrawalRow::as_select())
                .load(conn)?;
            Ok(rows.into_iter().map(withdrawal_out).collect::<Vec<_>>())
        })
        .await?;
    cached_json(&req, &out, Visibility::Private)
}

/// Record a penalty or sanction (referees and organisers).
#[utoipa::path(
    tag = "conduct",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Tournament id")),
    request_body = RecordPenalty,
    responses(
        (status = 201, description = "Recorded", body = PenaltyOut),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Not signed in", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a referee or organiser", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The player has already withdrawn", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/penalties")]
pub async fn penalise(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: Json<RecordPenalty>,
) -> ApiResult<HttpResponse> {
    let tid = id.into_inner();
    let input = body.0;
    let mut check = Check::new();
    let reason = check.text("reason", &input.reason, 500);
    if let Some(r) = input.round {
        check.range("round", r.into(), 1, 1000);
    }
    if let Some(t) = input.table {
        check.range("table", t.into(), 1, 10_000);
    }
    if let Some(p) = input.points {
        check.range("points", p.into(), 1, 1000);
    }
    check.finish()?;
    let out = state
        .run(move |conn| {
            conn.transaction(|conn| {
                let t = load_for_staff(
                    conn,
                    &caller,
                    tid,
                    &[StaffRole::Referee, StaffRole::Organiser],
                )?;
                let row =
                    record_penalty(conn, tid, &t.ruleset, &input, reason, None, caller.user_id)?;
                Ok(penalty_out(row))
            })
        })
        .await?;
    Ok(HttpResponse::Created().json(out))
}

/// Penalties and sanctions of a tournament (annulled ones included, marked).
#[utoipa::path(
    tag = "conduct",
    params(("id" = i64, Path, description = "Tournament id")),
    responses(
        (status = 200, description = "In the order recorded", body = Vec<PenaltyOut>),
        (status = 304, description = "Not modified"),
        (status = 401, description = "Invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}/penalties")]
pub async fn list_penalties(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let tid = id.into_inner();
    let out = state
        .run(move |conn| {
            load_visible(conn, &caller, tid)?;
            let rows: Vec<PenaltyRow> = penalties::table
                .filter(penalties::tournament_id.eq(tid))
                .order(penalties::id)
                .select(PenaltyRow::as_select())
                .load(conn)?;
            Ok(rows.into_iter().map(penalty_out).collect::<Vec<_>>())
        })
        .await?;
    cached_json(&req, &out, Visibility::Private)
}

/// Annul a penalty (referees and organisers); the penalty stays listed with who annulled it,
/// when and why. Annulling a removal lifts the withdrawal if its round is not drawn yet.
#[utoipa::path(
    tag = "conduct",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Tournament id"),
        ("pid" = i64, Path, description = "Penalty id"),
    ),
    request_body = AnnulPenalty,
    responses(
        (status = 200, description = "Annulled", body = PenaltyOut),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Not signed in", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a referee or organiser", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament or penalty", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already annulled, or the removal has taken effect", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/tournaments/{id}/penalties/{pid}/annul")]
pub async fn annul(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
    body: Json<AnnulPenalty>,
) -> ApiResult<HttpResponse> {
    let (tid, pid) = path.into_inner();
    let mut check = Check::new();
    let reason = check.text("reason", &body.0.reason, 500);
    check.finish()?;
    let out = state
        .run(move |conn| {
            conn.transaction(|conn| {
                load_for_staff(
                    conn,
                    &caller,
                    tid,
                    &[StaffRole::Referee, StaffRole::Organiser],
                )?;
                annul_penalty(conn, tid, pid, caller.user_id, reason).map(penalty_out)
            })
        })
        .await?;
    Ok(HttpResponse::Ok().json(out))
}
