//! The live feed: `GET /tournaments/{id}/events` as Server-Sent Events.
//!
//! Events are rows of `tournament_events`, written in the same transaction as the change they
//! announce (a round published, a result entered or corrected, standings changed, a withdrawal
//! or penalty). The stream sends every event after `Last-Event-ID` (or `?after=`) from the
//! table, then each new one as the instance's listener broadcasts it (`infra::live`: one
//! LISTEN connection per instance, no polling per client), with a keep-alive comment after 15
//! quiet seconds. Any instance can serve any client: the database is the only shared state.
//!
//! A stream opened with credentials (an access token or an API key) lives no longer than they
//! do: before each chunk it sends (an event or a keep-alive, so at least every 15 seconds) it
//! checks them again as every request is checked (`api::extract::Credentials`, the account
//! cache of `services::accounts::auth`: no query per event), and it ends, sending nothing more,
//! once they were revoked or expired. A public stream (no credentials) is never checked.

use std::collections::HashSet;
use std::time::Duration;

use tokio::sync::broadcast;

use actix_web::{get, http::header, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::api::extract::{Credentials, Query, TournamentPath};
use crate::api::problem::{InvalidParameters, InvalidToken, NoSuchTournament};
use crate::auth::MaybeCaller;
use crate::domain::TournamentId;
use crate::error::{ApiError, ApiResult};
use crate::runtime::state::AppState;
use crate::services::running::events::{self as feed, EventRow, LiveEvent};

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Send events after this id (like `Last-Event-ID`); default: only new events.
    #[param(minimum = 0)]
    pub after: Option<i64>,
}

/// One client's stream: the events of `tid` after `after`, first from the table, then as the
/// instance's listener broadcasts them.
struct Feed {
    state: std::sync::Arc<AppState>,
    rx: broadcast::Receiver<std::sync::Arc<EventRow>>,
    tid: i64,
    after: i64,
    /// Ids sent from the table, not to be sent again when their broadcast arrives.
    sent: HashSet<i64>,
    first: bool,
    /// What the stream was opened with (`None`: a public stream), checked before each chunk.
    credentials: Option<Credentials>,
    /// When a keep-alive is due: [`KEEP_ALIVE`] after the last chunk sent (events of other
    /// tournaments do not put it off).
    keep_alive_at: tokio::time::Instant,
}

impl Feed {
    /// Reads the table from `after` on (catch-up, or after falling behind the broadcast).
    async fn read_table(&mut self) -> Option<String> {
        let mut out = String::new();
        loop {
            let (tid, after) = (self.tid, self.after);
            // The database went away: end the stream; the client resumes with Last-Event-ID.
            let rows = self
                .state
                .run(move |conn| feed::events_after(conn, tid, after))
                .await
                .ok()?;
            for r in &rows {
                out.push_str(&frame(r));
                self.sent.insert(r.id.0);
                self.after = self.after.max(r.id.0);
            }
            if rows.len() < 500 {
                return Some(out);
            }
        }
    }

    /// The next chunk to send: the catch-up first, then each broadcast event of the tournament,
    /// a keep-alive comment after 15 quiet seconds; `None` ends the stream, as soon as the
    /// stream's credentials no longer hold (before the chunk is sent).
    async fn next_chunk(&mut self) -> Option<String> {
        let chunk = self.next_unchecked().await?;
        if let Some(credentials) = &self.credentials {
            if !credentials.still_hold(&self.state).await {
                return None;
            }
        }
        self.keep_alive_at = tokio::time::Instant::now() + KEEP_ALIVE;
        Some(chunk)
    }

    async fn next_unchecked(&mut self) -> Option<String> {
        if self.first {
            self.first = false;
            let caught_up = self.read_table().await?;
            return Some(format!(": keep-alive\n\n{caught_up}"));
        }
        loop {
            match tokio::time::timeout_at(self.keep_alive_at, self.rx.recv()).await {
                Err(_) => return Some(": keep-alive\n\n".into()),
                Ok(Ok(e)) => {
                    if e.tournament_id != TournamentId(self.tid) || self.sent.remove(&e.id.0) {
                        continue;
                    }
                    self.after = self.after.max(e.id.0);
                    return Some(frame(&e));
                }
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => {
                    let missed = self.read_table().await?;
                    if !missed.is_empty() {
                        return Some(missed);
                    }
                }
                Ok(Err(broadcast::error::RecvError::Closed)) => return None,
            }
        }
    }
}

/// A comment line after this long without events keeps proxies from closing the stream.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

fn frame(e: &EventRow) -> String {
    let data = serde_json::to_string(&LiveEvent::from(e)).unwrap_or_default();
    format!(
        "id: {}\nevent: {}\ndata: {}\n\n",
        e.id,
        e.kind.as_str(),
        data
    )
}

/// A live stream of the tournament's events (public): `round_published`, `result_entered`,
/// `result_corrected`, `round_completed`, `standings_changed`, `withdrawal`, `penalty`,
/// `penalty_annulled`.
///
/// Server-sent events (`text/event-stream`), never compressed. Each event has an `id`; reconnect
/// with `Last-Event-ID` to receive what was missed. Try it with `curl -sN`.
///
/// A stream opened with an access token or an API key (a draft tournament's staff need one)
/// ends once that credential no longer holds: the token expired, its session signed out or
/// revoked, every session ended (sign-out everywhere, password change), the key revoked or
/// expired, or the account disabled or erased. It is checked before every event and every
/// keep-alive (at least every 15 s), and a change shows within 2 s as on any request; nothing
/// is sent after the check fails. Reconnect with a fresh token and `Last-Event-ID`.
#[utoipa::path(
    operation_id = "stream_events",
    tag = "standings",
    params(TournamentPath, EventsQuery,
        ("Last-Event-ID" = Option<String>, Header, nullable = false, pattern = "^[0-9]{1,18}$", description = "Resume after this event")),
    responses(
        (status = 200, description = "Server-Sent Events: one frame per event, its `data` a `LiveEvent` as JSON", content_type = "text/event-stream", body = String),
        InvalidToken,
        NoSuchTournament,
        InvalidParameters,
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
    // Subscribed before the catch-up read, so nothing committed in between is missed (an
    // event both read and received is sent once).
    let rx = state.live.subscribe();
    let credentials = Credentials::of(&req);
    let stream = futures_util::stream::unfold(
        Feed {
            state: state.into_inner(),
            rx,
            tid,
            after: start,
            sent: HashSet::new(),
            first: true,
            credentials,
            keep_alive_at: tokio::time::Instant::now() + KEEP_ALIVE,
        },
        |mut f| async move {
            let chunk = f.next_chunk().await?;
            Some((Ok::<_, actix_web::Error>(web::Bytes::from(chunk)), f))
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
