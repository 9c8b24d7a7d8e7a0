//! Calendars (issue 41 item 4): `GET /tournaments/{id}/calendar` (a tournament's iCalendar
//! feed), `GET /calendars/{token}` (a player's private feed) and `/me/calendar` (make, rotate
//! or revoke that feed).

use actix_web::{delete, get, post, web, HttpResponse};

use crate::api::extract::TournamentPath;
use crate::api::problem::{AuthErrors, InvalidToken, NoSuchTournament};
use crate::auth::{Caller, MaybeCaller};
use crate::error::{ApiResult, Problem};
use crate::runtime::state::AppState;
use crate::services::play::calendars::{self, CalendarFeedOut};

fn ics(text: String, cache: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/calendar; charset=utf-8")
        .insert_header(("Cache-Control", cache))
        .body(text)
}

/// A tournament's calendar (iCalendar).
///
/// Its published rounds at their times, the deadlines of self-scheduled rounds, and each
/// self-scheduled game once its time is agreed (RFC 5545; subscribe to it in a calendar app).
#[utoipa::path(
    operation_id = "read_tournament_calendar",
    tag = "calendars",
    params(TournamentPath),
    responses(
        (status = 200, description = "The feed (RFC 5545)", content_type = "text/calendar", body = String),
        InvalidToken,
        NoSuchTournament,
    )
)]
#[get("/tournaments/{id}/calendar")]
pub async fn tournament(
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<TournamentPath>,
) -> ApiResult<HttpResponse> {
    let tid = path.into_inner().id;
    let (public, text) = state
        .run(move |conn| calendars::tournament_feed(conn, &caller, tid))
        .await?;
    // A draft's feed is its staff's: never kept by a shared cache.
    Ok(ics(
        text,
        if public {
            "public, max-age=60"
        } else {
            "private, no-cache"
        },
    ))
}

/// A player's private calendar (iCalendar).
///
/// The games of the player whose feed this is (at the round's time, or at the agreed time of a
/// self-scheduled game) and the deadlines of their self-scheduled rounds, in every tournament
/// they play. The token is the only key: a revoked or unknown one answers 404, and so does the
/// feed of a disabled or erased account (the same answer), or one ended by a password reset.
#[utoipa::path(
    operation_id = "read_player_calendar",
    tag = "calendars",
    params(("token" = String, Path, description = "The feed's token, as `POST /me/calendar` gave it")),
    responses(
        (status = 200, description = "The feed (RFC 5545)", content_type = "text/calendar", body = String),
        (status = 404, description = "No such feed (never made, rotated, revoked, ended when the player's account changed or its password was reset, or its account is disabled)", content_type = "application/problem+json", body = Problem),
    )
)]
#[get("/calendars/{token}")]
pub async fn player(
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let token = token.into_inner();
    let text = state
        .run(move |conn| calendars::player_feed(conn, &token))
        .await?;
    Ok(ics(text, "private, no-store"))
}

/// Make or rotate my private calendar feed.
///
/// Answers the feed's path with a new unguessable token; the previous URL, if any, answers 404
/// from now on. The token is shown only here (the service keeps its SHA-256).
#[utoipa::path(
    operation_id = "rotate_my_calendar",
    tag = "calendars",
    security(("bearer" = [])),
    responses(
        AuthErrors,
        (status = 200, description = "The feed's new path", body = CalendarFeedOut),
        (status = 409, description = "No player is linked to the account", content_type = "application/problem+json", body = Problem),
    )
)]
#[post("/me/calendar")]
pub async fn rotate(state: web::Data<AppState>, caller: Caller) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let out = state
        .run(move |conn| calendars::rotate_feed(conn, &caller, now))
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(out))
}

/// Revoke my private calendar feed.
///
/// Its URL answers 404 from now on.
#[utoipa::path(
    operation_id = "revoke_my_calendar",
    tag = "calendars",
    security(("bearer" = [])),
    responses(
        AuthErrors,
        (status = 204, description = "Revoked"),
        (status = 404, description = "No feed to revoke", content_type = "application/problem+json", body = Problem),
        (status = 409, description = "No player is linked to the account", content_type = "application/problem+json", body = Problem),
    )
)]
#[delete("/me/calendar")]
pub async fn revoke(state: web::Data<AppState>, caller: Caller) -> ApiResult<HttpResponse> {
    state
        .run(move |conn| calendars::revoke_feed(conn, &caller))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
