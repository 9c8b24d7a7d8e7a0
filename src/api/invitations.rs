//! Invitations to a tournament (issue 29, item 4): `POST`/`GET /tournaments/{id}/invitations`,
//! `DELETE /tournaments/{id}/invitations/{invitation_id}` and `POST /auth/invitations/accept`.

use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};

use crate::api::extract::{Json, Query};
use crate::api::problem::{AuthErrors, BodyErrors, NotModified};
use crate::api::problem::{MailNotConfigured, NoSuchTournament, NotTheOrganiser};
use crate::api::support::{page_json, Page, PageParams, Visibility};
use crate::auth::{Caller, MaybeCaller};
use crate::domain::accounts::Language;
use crate::domain::TournamentId;
use crate::error::{ApiError, ApiResult, Problem};
use crate::runtime::state::AppState;
use crate::services::invitations::invite::{
    self, AcceptInvitation, InvitationAccepted, InvitationId, InvitationOut, Invite,
};

fn language(req: &HttpRequest) -> Language {
    Language::from_accept_language(
        req.headers()
            .get("accept-language")
            .and_then(|v| v.to_str().ok()),
    )
}

/// Invite a person by e-mail to the tournament (organisers and admins).
///
/// The message goes to the address through the mail outbox, in the inviter's `Accept-Language`
/// (en, nb, pl, de, zh-Hant; else English), and carries a code that works once and for 14
/// days. `player_id` invites the person as that player (linked to their account only if they
/// consent when accepting). Answers 201 with `Location`.
#[utoipa::path(
    operation_id = "create_invitation",
    tag = "registrations",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Tournament id"),
        ("Accept-Language" = Option<String>, Header, description = "The language of the message"),
    ),
    request_body = Invite,
    responses(
        BodyErrors,
        (status = 201, description = "Invited; the message is on its way", body = InvitationOut,
            headers(("Location" = String, description = "The tournament's invitations"))),
        NotTheOrganiser,
        NoSuchTournament,
        (status = 409, description = "The tournament is checked out to a venue: read-only here until it is checked back in (naming `tournament`)", body = Problem, content_type = "application/problem+json"),
        MailNotConfigured,
    )
)]
#[post("/tournaments/{id}/invitations")]
pub async fn create(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: Json<Invite>,
) -> ApiResult<HttpResponse> {
    let tid = id.into_inner();
    let lang = language(&req);
    // Told to the service, which lets it be answered only to an organiser (issue 37, item 6).
    let mail = state.signup.mail.require();
    let ready = mail.is_ok();
    let links = ready.then(|| state.signup.links.clone());
    let now = state.clock.now();
    let out = state
        .run(move |conn| invite::invite(conn, &caller, tid, &body.0, lang, links.as_ref(), now))
        .await?;
    let Some(out) = out else {
        return Err(mail
            .err()
            .unwrap_or_else(|| ApiError::Internal("no invitation was made".into())));
    };
    Ok(HttpResponse::Created()
        .insert_header(("Cache-Control", "no-store"))
        .insert_header((
            "Location",
            format!("/api/v1/tournaments/{tid}/invitations/{}", out.id),
        ))
        .json(out))
}

/// List the tournament's invitations, oldest first (organisers and admins).
///
/// Each with its state: `accepted_at`, `revoked_at`, or pending until `expires_at`. Never the
/// codes.
#[utoipa::path(
    operation_id = "list_invitations",
    tag = "registrations",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Tournament id"), PageParams),
    responses(
        AuthErrors,
        (status = 200, description = "Invitations, oldest first", body = Page<InvitationOut>),
        NotModified,
        NotTheOrganiser,
        NoSuchTournament,
    )
)]
#[get("/tournaments/{id}/invitations")]
pub async fn list(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    page: Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let tid = id.into_inner();
    let page = state
        .run(move |conn| invite::list(conn, &caller, tid, &page.0))
        .await?;
    page_json(&req, &page, Visibility::Private)
}

/// Revoke an invitation (organisers and admins).
///
/// Its code is refused from then on; revoking again changes nothing. An accepted invitation
/// cannot be revoked (409 naming `id`).
#[utoipa::path(
    operation_id = "revoke_invitation",
    tag = "registrations",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Tournament id"),
        ("invitation_id" = i64, Path, description = "Invitation id"),
    ),
    responses(
        AuthErrors,
        (status = 204, description = "Revoked"),
        NotTheOrganiser,
        (status = 404, description = "No such tournament or invitation", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already accepted, or the tournament is checked out to a venue", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/tournaments/{id}/invitations/{invitation_id}")]
pub async fn revoke(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
) -> ApiResult<HttpResponse> {
    let (tid, inv) = path.into_inner();
    let now = state.clock.now();
    state
        .run(move |conn| invite::revoke(conn, &caller, TournamentId(tid), InvitationId(inv), now))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Accept an invitation with its code.
///
/// Public. Either with `username` and `password` for a new account (when `SIGNUP_MODE` is
/// `invite` or `open`; the invited address becomes its verified address; sign in with it at
/// `POST /auth/token` afterwards), or signed in (bearer token) to an existing account (any
/// mode). With `consent_link_player` the invited player is linked to the account (409 naming
/// `player_id` if it already has an account, or the account already has another player);
/// without it, the player is registered but stays unlinked. An invitation without a player
/// registers the account's player, or a new one named after the account. The registration is
/// made by the inviter's authority: confirmed or waitlisted as any other; an inviter whose
/// account is disabled or erased has none left (409 naming `token`, the code left unspent).
/// The code works once and for 14 days; an unknown, revoked, used or expired code is 422 naming
/// `token`.
#[utoipa::path(
    operation_id = "accept_invitation",
    tag = "auth",
    params(("Accept-Language" = Option<String>, Header, description = "A new account's language")),
    request_body = AcceptInvitation,
    responses(
        BodyErrors,
        (status = 200, description = "Accepted: the account, the player and the registration", body = InvitationAccepted),
        (status = 403, description = "A new account, but sign-up is closed on this instance", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The username is taken, the invited address has an account, the player is linked elsewhere, the tournament is checked out to a venue, or the inviter's account is disabled or erased (naming `token`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/invitations/accept")]
pub async fn accept(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: MaybeCaller,
    body: Json<AcceptInvitation>,
) -> ApiResult<HttpResponse> {
    let mode = state.signup.mode;
    let lang = language(&req);
    let now = state.clock.now();
    let out: InvitationAccepted = state
        .run(move |conn| invite::accept(conn, mode, &caller, &body.0, lang, now))
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(out))
}
