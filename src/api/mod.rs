//! The HTTP API: one module per resource. Each handler carries its own `#[utoipa::path]`, and
//! routes are registered through `utoipa-actix-web`, so the OpenAPI document cannot drift from
//! the routes.

pub mod account_pages;
pub mod accounts;
pub mod archives;
pub mod auth;
pub mod calendars;
pub mod cases;
pub mod claims;
pub mod conduct;
pub mod document;
pub mod embed;
pub mod events;
pub mod extract;
pub mod hall;
pub mod health;
pub mod invitations;
pub mod keys;
pub mod me;
pub mod metrics;
pub mod players;
pub mod pool_keepers;
pub mod problem;
pub mod ratings;
pub mod registrations;
pub mod reports;
pub mod results;
pub mod rounds;
pub mod scheduling;
pub mod standings;
pub mod support;
pub mod tournaments;
pub mod users;
pub mod webhooks;

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::service_config::ServiceConfig;

/// The document's frame: info, tags, security scheme. Paths and schemas are added by the
/// route registration.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "tourney",
        description = "Board-game tournaments, leagues and ratings: registrations, rounds and draws, results, standings, appeals and Elo leaderboards.\n\nErrors are RFC 9457 problem details (`application/problem+json`). Sign in with `POST /api/v1/auth/token` and send `Authorization: Bearer <access_token>`; renew it with the refresh token at `POST /api/v1/auth/refresh`. Scripts and websites use an API key (`POST /api/v1/me/api-keys`) the same way. Public reads need no token.",
        license(name = "MIT")
    ),
    tags(
        (name = "auth", description = "Sign-in, sessions (refresh tokens), password, API keys and the signed-in user"),
        (name = "users", description = "Accounts (admin)"),
        (name = "players", description = "Player identities shared across tournaments"),
        (name = "tournaments", description = "Tournaments, their configuration and staff"),
        (name = "registrations", description = "Registrations, waitlist and teams"),
        (name = "rounds", description = "Rounds, their draws and the seed commitments"),
        (name = "results", description = "Table results with every version"),
        (name = "standings", description = "Standings and the live event stream"),
        (name = "conduct", description = "Withdrawals, opt-outs, penalties and sanctions"),
        (name = "cases", description = "Complaints, referee rulings, appeals and the committee's votes"),
        (name = "ratings", description = "Rating pools, leaderboards, seasons and rating history"),
        (name = "webhooks", description = "Signed webhooks (Standard Webhooks) for tournaments and rating pools, with their delivery logs"),
        (name = "embed", description = "HTML pages for club websites and hall screens, which any site may frame"),
        (name = "calendars", description = "iCalendar feeds: a tournament's rounds and agreed games, and a player's private feed of their games and deadlines"),
        (name = "pages", description = "The service's own HTML pages for the links in its messages: confirm an address, choose a new password, accept an invitation (never cached, never framed)"),
        (name = "print", description = "HTML pages for the hall: pairings, result slips with their table codes and standings to print, and the table's report page the slips' QR codes open"),
        (name = "archives", description = "Tournament archives: one versioned document to keep or to import into another instance"),
        (name = "operations", description = "Health and readiness"),
    ),
    modifiers(&BearerAuth),
    components(schemas(
        crate::error::Problem,
        crate::error::FieldError,
        crate::services::running::events::LiveEvent,
        crate::domain::events::TournamentEvent,
        // A case's steps by `what`: `CaseEventOut` spells them out with their author and time
        // (since 1.5.2), and clients generated before it name this type.
        crate::services::cases::CaseEvent,
        // Enums used only by query parameters: IntoParams refers to them, so they must be in
        // the components for the references to resolve.
        crate::services::running::standings::StandingsPurpose,
        // The embeds' query parameters (the pages are in the document, issue 41).
        crate::api::embed::Lang,
        crate::api::embed::Theme,
    ))
)]
pub struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "An access token (a JWT) from POST /api/v1/auth/token or /auth/refresh, \
                         or an API key (`tk_...`) from POST /api/v1/me/api-keys",
                    ))
                    .build(),
            ),
        );
    }
}

/// The routes that bring people in (issue 29): accounts people make, verify, reset, export and
/// erase themselves, invitations, and claims on players.
fn people_routes(cfg: &mut ServiceConfig) {
    cfg.service(calendars::tournament)
        .service(webhooks::read_delivery)
        .service(webhooks::redeliver)
        .service(calendars::player)
        .service(calendars::rotate)
        .service(calendars::revoke)
        .service(accounts::sign_up)
        .service(accounts::verify_email)
        .service(accounts::resend_verification)
        .service(accounts::request_reset)
        .service(accounts::confirm_reset)
        .service(accounts::export_me)
        .service(accounts::erase_me)
        .service(accounts::export_user)
        .service(accounts::erase_user)
        .service(accounts::update_me)
        .service(invitations::create)
        .service(invitations::list)
        .service(invitations::revoke)
        .service(invitations::accept)
        .service(claims::create)
        .service(claims::list)
        .service(claims::queue)
        .service(claims::decide)
        .service(claims::withdraw)
        .service(claims::links);
}

/// Registers every `/api/v1` route. actix tries routes in this order, one path pattern after
/// another, so the public reads that take the most traffic come first (matching the standings
/// at the 33rd pattern took most of a kept read's time; no two patterns match one path, so the
/// order changes nothing else).
pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(standings::standings)
        .service(standings::standings_csv)
        .service(tournaments::read)
        .service(rounds::read)
        .service(ratings::leaderboard)
        .service(ratings::leaderboard_csv)
        .service(events::events)
        .service(auth::issue_token)
        .service(auth::refresh)
        .service(auth::logout)
        .service(auth::me)
        .service(auth::change_password)
        .service(me::games)
        .service(me::tournaments)
        .service(keys::create)
        .service(keys::list)
        .service(keys::read)
        .service(keys::revoke)
        .service(users::create)
        .service(users::list)
        .service(users::read)
        .service(users::update)
        .service(users::delete)
        .service(players::create)
        .service(players::list)
        .service(players::read)
        .service(players::update)
        .service(tournaments::create)
        .service(tournaments::list)
        .service(tournaments::update)
        .service(tournaments::list_staff)
        .service(tournaments::appoint)
        .service(tournaments::dismiss)
        .service(registrations::list)
        .service(registrations::register)
        .service(registrations::read)
        .service(registrations::update)
        .service(registrations::cancel)
        .service(registrations::list_teams)
        .service(registrations::create_team)
        .service(rounds::create)
        .service(rounds::list)
        .service(rounds::update)
        .service(rounds::redraw)
        .service(rounds::publish)
        .service(rounds::withdraw)
        .service(rounds::draws)
        .service(rounds::matches)
        .service(rounds::cup_matches)
        .service(results::enter)
        .service(results::read)
        .service(reports::report)
        .service(reports::read)
        .service(reports::confirm)
        .service(reports::dispute)
        .service(hall::code_report)
        .service(hall::code_confirm)
        .service(hall::queue)
        .service(hall::slips_link)
        .service(scheduling::read)
        .service(scheduling::propose)
        .service(scheduling::accept)
        .service(scheduling::missed)
        .service(scheduling::reinstate)
        .service(standings::team_standings)
        .service(conduct::withdraw)
        .service(conduct::list_withdrawals)
        .service(conduct::penalise)
        .service(conduct::list_penalties)
        .service(conduct::annul)
        .service(cases::open)
        .service(cases::list)
        .service(cases::read)
        .service(cases::add_parties)
        .service(cases::decision)
        .service(cases::vote)
        .service(cases::appeal)
        .service(ratings::create_pool)
        .service(ratings::list_pools)
        .service(ratings::read_pool)
        .service(ratings::update_pool)
        .service(ratings::rebuild)
        .service(ratings::import)
        .service(ratings::list_imports)
        .service(ratings::list_seasons)
        .service(ratings::read_season)
        .service(ratings::league)
        .service(ratings::league_csv)
        .service(ratings::player_ratings)
        .service(ratings::pool_changes)
        .service(archives::archive)
        .service(archives::import)
        .service(archives::check_out)
        .service(archives::check_in)
        .service(archives::break_checkout)
        .service(archives::pool_archive)
        .service(archives::import_pool)
        .service(archives::archive_key)
        .service(pool_keepers::list_keepers)
        .service(pool_keepers::keeper_candidates)
        .service(pool_keepers::grant_keeper)
        .service(pool_keepers::revoke_keeper)
        .service(pool_keepers::pool_tournaments)
        .service(pool_keepers::decide)
        .service(pool_keepers::ask_again)
        .service(pool_keepers::tournament_decisions)
        .service(webhooks::create_for_tournament)
        .service(webhooks::list_for_tournament)
        .service(webhooks::create_for_pool)
        .service(webhooks::list_for_pool)
        .service(webhooks::read)
        .service(webhooks::update)
        .service(webhooks::remove)
        .service(webhooks::rotate_secret)
        .service(webhooks::ping)
        .service(webhooks::deliveries);
    people_routes(cfg);
}
