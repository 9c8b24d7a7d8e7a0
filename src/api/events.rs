//! The live feed: `GET /tournaments/{id}/events` as Server-Sent Events.
//!
//! Events are rows of `tournament_events`, written in the same transaction as the change they
//! announce (a round published, a result entered or corrected, standings changed, a withdrawal
//! or penalty). The stream sends every event after `Last-Event-ID` (or `?after=`), then polls
//! for new ones once a second, with a keep-alive comment every 15 seconds. Any instance can
//! serve any client: the database is the only shared state.

use std::time::Duration;

use actix_web::{get, http::header, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::api::extract::{Query, TournamentPath};
use crate::auth::MaybeCaller;
use crate::error::{ApiError, ApiResult, Problem};
use crate::services::events::{self as feed, EventRow, LiveEvent};
use crate::state::AppState;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Send events after this id (like `Last-Event-ID`); default: only new events.
    #[param(minimum = 0)]
    pub after: Option<i64>,
}

fn frame(e: &EventRow) -> String {
    let data = serde_json::to_string(&LiveEvent::from(e)).unwrap_or_default();
    format!("id: {}\nevent: {}\ndata: {}\n\n", e.id, e.kind, data)
}

/// A live stream of the tournament's events (public): `round_published`, `result_entered`,
/// `result_corrected`, `round_completed`, `standings_changed`, `withdrawal`, `penalty`,
/// `penalty_annulled`.
///
/// Server-sent events (`text/event-stream`), never compressed. Each event has an `id`; reconnect
/// with `Last-Event-ID` to receive what was missed. Try it with `curl -sN`.
#[utoipa::path(
    operation_id = "stream_events",
    tag = "standings",
    params(TournamentPath, EventsQuery,
        ("Last-Event-ID" = Option<String>, Header, nullable = false, pattern = "^[0-9]{1,18}$", description = "Resume after this event")),
    responses(
        (status = 200, description = "Server-Sent Events: one frame per event, its `data` a `LiveEvent` as JSON", content_type = "text/event-stream", body = String),
        (status = 401, description = "Invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid parameters", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}/events")]
pub async fn events(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<TournamentPath>,
    query: Query<EventsQuery>,
) -> ApiResult<HttpResponse> {
    let tid = path.into_inner().id;
    let from_header = match req.headers().get("last-event-id") {
        None => None,
        Some(v) => Some(
            v.to_str()
                .ok()
                .filter(|s| (1..=18).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|s| s.parse::<i64>().ok())
                .ok_or_else(|| ApiError::field("Last-Event-ID", "must be an event id"))?,
        ),
    };
    if query.0.after.is_some_and(|a| a < 0) {
        return Err(ApiError::field("after", "must be 0 or more"));
    }
    let after = from_header.or(query.0.after);
    let start = state
        .run(move |conn| feed::feed_start(conn, &caller, tid, after))
        .await?;
    let state = state.into_inner();
    let stream = futures_util::stream::unfold(
        (state, start, 0u32, true),
        move |(state, after, idle, first)| async move {
            if !first {
                actix_web::rt::time::sleep(Duration::from_secs(1)).await;
            }
            let rows = state
                .run(move |conn| feed::events_after(conn, tid, after))
                .await;
            let rows = match rows {
                Ok(rows) => rows,
                // The database went away: end the stream; the client reconnects with
                // Last-Event-ID.
                Err(_) => return None,
            };
            let (chunk, after, idle) = if rows.is_empty() {
                if first || idle + 1 >= 15 {
                    (": keep-alive\n\n".to_string(), after, 0)
                } else {
                    (String::new(), after, idle + 1)
                }
            } else {
                let last = rows.last().map(|e| e.id).unwrap_or(after);
                (rows.iter().map(frame).collect::<String>(), last, 0)
            };
            Some((
                Ok::<_, actix_web::Error>(web::Bytes::from(chunk)),
                (state, after, idle, false),
            ))
        },
    );
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        // Never compressed: a compressor would buffer the events.
        .insert_header((header::CONTENT_ENCODING, "identity"))
        .streaming(stream))
}
