//! `/players`: player identities shared across tournaments.

use actix_web::{get, patch, post, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::api::extract::{Json, Query};
use crate::api::support::{cached_json, check_country, Check, Page, Visibility};
use crate::auth::{Caller, MaybeCaller};
use crate::db::models::{NewPlayer, Player};
use crate::db::schema::{players, rating_pools, rating_standings, users};
use crate::error::{ApiError, ApiResult, Problem};
use crate::state::AppState;

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
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<Player> for PlayerOut {
    fn from(p: Player) -> Self {
        Self {
            id: p.id,
            name: p.name,
            club: p.club,
            country: p.country,
            user_id: p.user_id,
            created_at: p.created_at,
            updated_at: p.updated_at,
        }
    }
}

/// A new player.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
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
    /// Link to a user account (one player per account).
    pub user_id: Option<i64>,
}

/// Changes to a player; absent fields stay as they are, `null` clears an optional field.
#[derive(Debug, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
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
}

/// Filters for the player list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PlayerFilter {
    /// Part of the name, any case; blank means no filter.
    #[param(max_length = 100, pattern = r"^[^\u0000-\u001f\u007f-\u009f]*$")]
    pub q: Option<String>,
    /// ISO country code.
    #[param(pattern = "^[A-Za-z]{2}$")]
    pub country: Option<String>,
    /// How many items (1-200, default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// How many items to skip (default 0).
    #[param(minimum = 0, maximum = 1000000000)]
    pub offset: Option<i64>,
}

fn load(conn: &mut PgConnection, id: i64) -> Result<Player, ApiError> {
    players::table
        .find(id)
        .select(Player::as_select())
        .first(conn)
        .optional()?
        .ok_or_else(|| ApiError::NotFound(format!("no player {id}")))
}

fn check_user_link(conn: &mut PgConnection, user_id: Option<i64>) -> Result<(), ApiError> {
    if let Some(uid) = user_id {
        let exists: bool =
            diesel::select(diesel::dsl::exists(users::table.find(uid))).get_result(conn)?;
        if !exists {
            return Err(ApiError::field(
                "user_id",
                format!("there is no user {uid}"),
            ));
        }
    }
    Ok(())
}

/// Create a player (an admin, or anyone who organises a tournament).
#[utoipa::path(
    tag = "players",
    security(("bearer" = [])),
    request_body = CreatePlayer,
    responses(
        (status = 201, description = "Created", body = PlayerOut),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Not signed in", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an organiser", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The user account is linked to another player", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/players")]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    body: Json<CreatePlayer>,
) -> ApiResult<HttpResponse> {
    let input = body.0;
    let mut check = Check::new();
    let name = check.text("name", &input.name, 100);
    let club = check.optional_text("club", input.club.as_deref(), 100);
    let country = check_country(&mut check, "country", input.country.as_deref());
    check.finish()?;
    let player = state
        .run(move |conn| {
            if !caller.is_organiser_anywhere(conn)? {
                return Err(ApiError::Forbidden(
                    "only admins and tournament organisers may create players".into(),
                ));
            }
            conn.transaction(|conn| {
                check_user_link(conn, input.user_id)?;
                Ok(diesel::insert_into(players::table)
                    .values(NewPlayer {
                        name,
                        club,
                        country,
                        user_id: input.user_id,
                        created_by: caller.user_id,
                    })
                    .returning(Player::as_returning())
                    .get_result(conn)?)
            })
        })
        .await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/api/v1/players/{}", player.id)))
        .json(PlayerOut::from(player)))
}

/// List players (public).
#[utoipa::path(
    tag = "players",
    params(PlayerFilter),
    responses(
        (status = 200, description = "A page of players", body = Page<PlayerOut>),
        (status = 304, description = "Not modified"),
        (status = 401, description = "Invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid parameters", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/players")]
pub async fn list(
    req: HttpRequest,
    state: web::Data<AppState>,
    _caller: MaybeCaller,
    filter: Query<PlayerFilter>,
) -> ApiResult<HttpResponse> {
    let filter = filter.0;
    let (limit, offset) = crate::api::support::PageParams {
        limit: filter.limit,
        offset: filter.offset,
    }
    .resolve()?;
    let mut check = Check::new();
    let q = check.search_text("q", filter.q.as_deref(), 100);
    let country = check_country(&mut check, "country", filter.country.as_deref());
    check.finish()?;
    let page = state
        .run(move |conn| {
            let build = || {
                let mut query = players::table.into_boxed();
                if let Some(q) = &q {
                    let pattern = format!(
                        "%{}%",
                        q.replace('\\', "\\\\")
                            .replace('%', "\\%")
                            .replace('_', "\\_")
                    );
                    query = query.filter(players::name.ilike(pattern));
                }
                if let Some(c) = &country {
                    query = query.filter(players::country.eq(c.clone()));
                }
                query
            };
            let total = build().count().get_result(conn)?;
            let items: Vec<Player> = build()
                .order((players::name, players::id))
                .limit(limit)
                .offset(offset)
                .select(Player::as_select())
                .load(conn)?;
            Ok(Page {
                items: items.into_iter().map(PlayerOut::from).collect::<Vec<_>>(),
                total,
                limit,
                offset,
            })
        })
        .await?;
    cached_json(&req, &page, Visibility::Public)
}

/// Read a player (public).
#[utoipa::path(
    tag = "players",
    params(("id" = i64, Path, description = "Player id")),
    responses(
        (status = 200, description = "The player", body = PlayerOut),
        (status = 304, description = "Not modified"),
        (status = 401, description = "Invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such player", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/players/{id}")]
pub async fn read(
    req: HttpRequest,
    state: web::Data<AppState>,
    _caller: MaybeCaller,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let player = state.run(move |conn| load(conn, id)).await?;
    cached_json(&req, &PlayerOut::from(player), Visibility::Public)
}

/// Change a player (an admin, or whoever created it).
#[utoipa::path(
    tag = "players",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Player id")),
    request_body = UpdatePlayer,
    responses(
        (status = 200, description = "The changed player", body = PlayerOut),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Not signed in", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not yours to change", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such player", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields", body = Problem, content_type = "application/problem+json"),
    )
)]
#[patch("/players/{id}")]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: Json<UpdatePlayer>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let input = body.0;
    let mut check = Check::new();
    let name = input.name.as_deref().map(|n| check.text("name", n, 100));
    let club = input
        .club
        .map(|c| check.optional_text("club", c.as_deref(), 100));
    let country = input
        .country
        .map(|c| check_country(&mut check, "country", c.as_deref()));
    check.finish()?;
    let player = state
        .run(move |conn| {
            conn.transaction(|conn| {
                let current = load(conn, id)?;
                if !caller.is_admin && current.created_by != caller.user_id {
                    return Err(ApiError::Forbidden(
                        "only an admin or the player's creator may change it".into(),
                    ));
                }
                let updated = diesel::update(players::table.find(id))
                    .set((
                        players::name.eq(name.unwrap_or(current.name)),
                        players::club.eq(club.unwrap_or(current.club)),
                        players::country.eq(country.unwrap_or(current.country)),
                        players::updated_at.eq(Utc::now()),
                    ))
                    .returning(Player::as_returning())
                    .get_result(conn)?;
                // The leaderboards that list the player show the name, club and country: their
                // ETags derive from the pool's leaderboard version.
                diesel::update(
                    rating_pools::table.filter(
                        rating_pools::id.eq_any(
                            rating_standings::table
                                .filter(rating_standings::player_id.eq(id))
                                .select(rating_standings::pool_id),
                        ),
                    ),
                )
                .set(rating_pools::leaderboard_version.eq(rating_pools::leaderboard_version + 1))
                .execute(conn)?;
                Ok(updated)
            })
        })
        .await?;
    Ok(HttpResponse::Ok().json(PlayerOut::from(player)))
}
