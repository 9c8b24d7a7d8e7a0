//! Shared builders for the rating tests: pools, players, tournaments, completed rounds and results written directly, and readers of the rating log.

#![allow(dead_code)]

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Int4, Int8, Jsonb, Text};
use serde_json::{json, Value};
use std::collections::HashMap;

use crate::helpers::TestApp;

#[derive(QueryableByName)]
pub(crate) struct Id {
    #[diesel(sql_type = BigInt)]
    pub(crate) id: i64,
}

pub(crate) fn db(app: &TestApp) -> PgConnection {
    PgConnection::establish(&app.database_url).expect("connect to the test database")
}

/// A completed round of `tournament`, completed and played at `at` (RFC 3339).
pub(crate) fn completed_round(
    conn: &mut PgConnection,
    tournament: i64,
    number: i32,
    at: &str,
) -> i64 {
    // A draw as the service stores one (rows are decoded as they are read): no tables, the
    // games are the results written beside it.
    let draw = tourney::domain::seating::Draw {
        round: number as u32,
        method: tourney::domain::seating::SeatingMethod::Random,
        tables: Vec::new(),
        bridge_groups: Vec::new(),
        shared_deal: None,
        byes: Vec::new(),
        groups: Vec::new(),
        team_matches: Vec::new(),
        seeds: Vec::new(),
        plan: None,
        report: Default::default(),
    };
    diesel::sql_query(
        "INSERT INTO rounds (tournament_id, number, kind, method, seed, seed_commitment,
                             draw, created_by, status, completed_at, played_at)
         VALUES ($1, $2, 'preliminary', 'random', '00', '00', $4::jsonb,
                 (SELECT min(id) FROM users), 'completed', $3::timestamptz, $3::timestamptz)
         RETURNING id",
    )
    .bind::<Int8, _>(tournament)
    .bind::<Int4, _>(number)
    .bind::<Text, _>(at)
    .bind::<Text, _>(serde_json::to_string(&draw).expect("a draw"))
    .get_result::<Id>(conn)
    .expect("insert round")
    .id
}

pub(crate) fn result(conn: &mut PgConnection, round: i64, table: i32, version: i32, seats: Value) {
    diesel::sql_query(
        "INSERT INTO results (round_id, table_number, version, seats, entered_by)
         VALUES ($1, $2, $3, $4, (SELECT min(id) FROM users))",
    )
    .bind::<Int8, _>(round)
    .bind::<Int4, _>(table)
    .bind::<Int4, _>(version)
    .bind::<Jsonb, _>(seats)
    .execute(conn)
    .expect("insert result");
    notified();
}

/// An Ashes game: `winner` beats `loser`.
pub(crate) fn win(winner: i64, loser: i64) -> Value {
    json!([
        {"player": winner, "score": 10, "outcome": "win"},
        {"player": loser, "score": 4, "outcome": "loss"}
    ])
}

pub(crate) fn draw(a: i64, b: i64) -> Value {
    json!([
        {"player": a, "score": 5, "outcome": "draw"},
        {"player": b, "score": 5, "outcome": "draw"}
    ])
}

/// Calls the feed as the results code does: inside a transaction.
pub(crate) fn feed(conn: &mut PgConnection, tournament: i64) {
    conn.transaction(|c| tourney::services::ratings::results_changed(c, tournament))
        .expect("results_changed");
    notified();
}

/// A change written straight to the database (not through the service) reaches the service's
/// kept anonymous reads through its notification (`infra::kept`): give the instance's
/// listener, which reads its socket every 10 ms, time to see it. The listener is its own
/// thread, so blocking this one does not hold it up.
pub(crate) fn notified() {
    std::thread::sleep(std::time::Duration::from_millis(60));
}

/// The pool's log: (sequence, player, before, after, delta).
pub(crate) fn log(conn: &mut PgConnection, pool: i64) -> Vec<(i64, i64, f64, f64, f64)> {
    use tourney::db::schema::rating_changes::dsl as rc;
    rc::rating_changes
        .filter(rc::pool_id.eq(pool))
        .order((rc::sequence, rc::player_id))
        .select((
            rc::sequence,
            rc::player_id,
            rc::rating_before,
            rc::rating_after,
            rc::delta,
        ))
        .load(conn)
        .expect("log")
}

pub(crate) async fn pool(app: &TestApp, token: &str, body: Value) -> i64 {
    let r = app.post("/api/v1/rating-pools", Some(token), body).await;
    assert_eq!(r.status(), 201, "create pool");
    r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
}

pub(crate) async fn player(
    app: &TestApp,
    token: &str,
    name: &str,
    country: &str,
    club: &str,
) -> i64 {
    let r = app
        .post(
            "/api/v1/players",
            Some(token),
            json!({"name": name, "country": country, "club": club}),
        )
        .await;
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
}

pub(crate) async fn tournament(
    app: &TestApp,
    token: &str,
    ruleset: &str,
    pool: i64,
    starts_on: &str,
) -> i64 {
    let r = app
        .post(
            "/api/v1/tournaments",
            Some(token),
            json!({
                "name": format!("Cup {starts_on}"), "game": "Ashes", "ruleset": ruleset,
                "planned_rounds": 4, "starts_on": starts_on, "time_zone": "Europe/Warsaw",
                "rating_pool_id": pool
            }),
        )
        .await;
    assert_eq!(r.status(), 201);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["rating_pool_id"], json!(pool));
    body["id"].as_i64().unwrap()
}

pub(crate) fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// The stored standings of a pool, and the same aggregate computed from its log from scratch:
/// (player, rating, games, last_played, trend_games, trend_delta, last_delta).
#[allow(clippy::type_complexity)]
pub(crate) fn standings_vs_log(
    conn: &mut PgConnection,
    pool: i64,
) -> (
    Vec<(i64, f64, i64, Option<String>, i64, f64, Option<f64>)>,
    Vec<(i64, f64, i64, Option<String>, i64, f64, Option<f64>)>,
) {
    #[derive(QueryableByName)]
    struct Row {
        #[diesel(sql_type = Int8)]
        player_id: i64,
        #[diesel(sql_type = diesel::sql_types::Double)]
        rating: f64,
        #[diesel(sql_type = BigInt)]
        games: i64,
        #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
        last_played: Option<String>,
        #[diesel(sql_type = BigInt)]
        trend_games: i64,
        #[diesel(sql_type = diesel::sql_types::Double)]
        trend_delta: f64,
        #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Double>)]
        last_delta: Option<f64>,
    }
    let load = |conn: &mut PgConnection, sql: &str| {
        diesel::sql_query(sql)
            .bind::<Int8, _>(pool)
            .load::<Row>(conn)
            .expect("standings")
            .into_iter()
            .map(|r| {
                (
                    r.player_id,
                    r.rating,
                    r.games,
                    r.last_played,
                    r.trend_games,
                    r.trend_delta,
                    r.last_delta,
                )
            })
            .collect::<Vec<_>>()
    };
    let stored = load(
        conn,
        "SELECT player_id, rating, games, last_played::text AS last_played, trend_games,
                trend_delta, last_delta
         FROM rating_standings WHERE pool_id = $1 ORDER BY player_id",
    );
    // From scratch: the latest change, the game count, the last five games (a plain
    // correlated form, independent of the feed's window query).
    let fresh = load(
        conn,
        "SELECT p.player_id,
                (SELECT rating_after FROM rating_changes c WHERE c.pool_id = $1
                   AND c.player_id = p.player_id ORDER BY sequence DESC LIMIT 1) AS rating,
                (SELECT coalesce(sum(games), 0)::int8 FROM rating_changes c WHERE c.pool_id = $1
                   AND c.player_id = p.player_id) AS games,
                (SELECT max(rated_at)::text FROM rating_changes c WHERE c.pool_id = $1
                   AND c.player_id = p.player_id AND kind = 'game') AS last_played,
                (SELECT count(*) FROM (SELECT 1 FROM rating_changes c WHERE c.pool_id = $1
                   AND c.player_id = p.player_id AND kind = 'game'
                   ORDER BY sequence DESC LIMIT 5) t) AS trend_games,
                (SELECT coalesce(sum(delta), 0)::float8 FROM (SELECT delta FROM rating_changes c
                   WHERE c.pool_id = $1 AND c.player_id = p.player_id AND kind = 'game'
                   ORDER BY sequence DESC LIMIT 5) t) AS trend_delta,
                (SELECT delta FROM rating_changes c WHERE c.pool_id = $1
                   AND c.player_id = p.player_id AND kind = 'game'
                   ORDER BY sequence DESC LIMIT 1) AS last_delta
         FROM (SELECT DISTINCT player_id FROM rating_changes WHERE pool_id = $1) p
         ORDER BY p.player_id",
    );
    (stored, fresh)
}

/// The stored rating of every player of the pool, rounded as the leaderboard shows it.
pub(crate) fn stored_ratings(conn: &mut PgConnection, pool: i64) -> HashMap<i64, f64> {
    use tourney::db::schema::rating_standings::dsl as s;
    s::rating_standings
        .filter(s::pool_id.eq(pool))
        .select((s::player_id, s::rating))
        .load::<(i64, f64)>(conn)
        .expect("standings")
        .into_iter()
        .map(|(p, r)| (p, round1(r)))
        .collect()
}

/// A leaderboard page as (player, rating) pairs, and its total.
pub(crate) async fn board(app: &TestApp, path: &str) -> (Vec<Value>, i64) {
    let r = app.get(path, None).await;
    assert_eq!(r.status(), 200, "{path}");
    let body: Value = r.json().await.unwrap();
    (
        body["items"].as_array().unwrap().clone(),
        body["total"].as_i64().unwrap(),
    )
}

pub(crate) fn ids(items: &[Value]) -> Vec<i64> {
    items
        .iter()
        .map(|r| r["player_id"].as_i64().unwrap())
        .collect()
}

#[derive(QueryableByName)]
pub(crate) struct ReferenceRow {
    #[diesel(sql_type = Int8)]
    pub(crate) player_id: i64,
    #[diesel(sql_type = Text)]
    pub(crate) name: String,
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    pub(crate) club: Option<String>,
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    pub(crate) country: Option<String>,
    #[diesel(sql_type = diesel::sql_types::Double)]
    pub(crate) rating: f64,
    #[diesel(sql_type = BigInt)]
    pub(crate) games: i64,
    #[diesel(sql_type = BigInt)]
    pub(crate) rank: i64,
    #[diesel(sql_type = BigInt)]
    pub(crate) total: i64,
}

/// The leaderboard listing as the SQL before the in-memory board computed it: `rank()` over the
/// listed players, then the country and club filters (clubs matched in any case, in Rust),
/// in order. Returns the listed rows as JSON like the API's.
pub(crate) fn sql_listing(
    conn: &mut PgConnection,
    pool: i64,
    provisional: bool,
    min_games: i64,
    country: Option<&str>,
    club: Option<&str>,
) -> Vec<Value> {
    use diesel::sql_types::{Array, Bool, Nullable};
    let clubs: Option<Vec<String>> = club.map(|c| {
        let want = c.to_lowercase();
        diesel::sql_query(
            "SELECT DISTINCT p.club AS name FROM rating_standings s JOIN players p
             ON p.id = s.player_id WHERE s.pool_id = $1 AND p.club IS NOT NULL",
        )
        .bind::<Int8, _>(pool)
        .load::<Name>(conn)
        .unwrap()
        .into_iter()
        .map(|n| n.name)
        .filter(|n| n.to_lowercase() == want)
        .collect()
    });
    let rows: Vec<ReferenceRow> = diesel::sql_query(
        "WITH ranked AS (
            SELECT s.player_id, s.rating, s.games, rank() OVER (ORDER BY s.rating DESC) AS rank
            FROM rating_standings s
            WHERE s.pool_id = $1 AND s.games > 0 AND ($2 OR s.games >= $3)
        ), listed AS (
            SELECT r.player_id, p.name, p.club, p.country, r.rating, r.games, r.rank
            FROM ranked r JOIN players p ON p.id = r.player_id
            WHERE ($4::text IS NULL OR p.country = $4)
              AND ($5::text[] IS NULL OR p.club = ANY($5))
        )
        SELECT l.*, count(*) OVER () AS total FROM listed l
        ORDER BY l.rating DESC, l.games DESC, l.player_id",
    )
    .bind::<Int8, _>(pool)
    .bind::<Bool, _>(provisional)
    .bind::<BigInt, _>(min_games)
    .bind::<Nullable<Text>, _>(country)
    .bind::<Nullable<Array<Text>>, _>(clubs.as_deref())
    .load(conn)
    .unwrap();
    let total = rows.len() as i64;
    rows.into_iter()
        .map(|r| {
            assert_eq!(r.total, total);
            json!({
                "rank": r.rank, "player_id": r.player_id, "name": r.name, "club": r.club,
                "country": r.country, "rating": round1(r.rating), "games": r.games,
                "provisional": r.games < min_games,
            })
        })
        .collect()
}

#[derive(QueryableByName)]
pub(crate) struct Name {
    #[diesel(sql_type = Text)]
    pub(crate) name: String,
}

/// The pool's bonus changes: (tournament, player, delta), in log order.
pub(crate) fn bonuses(conn: &mut PgConnection, pool: i64) -> Vec<(i64, i64, f64)> {
    use tourney::db::schema::rating_changes::dsl as rc;
    rc::rating_changes
        .filter(rc::pool_id.eq(pool))
        .filter(rc::kind.eq("bonus"))
        .order((rc::sequence, rc::player_id))
        .select((rc::tournament_id, rc::player_id, rc::delta))
        .load(conn)
        .expect("bonuses")
}

/// A league tournament of the pool, announced at `announced` (RFC 3339).
pub(crate) async fn league_tournament(
    app: &TestApp,
    token: &str,
    pool: i64,
    starts_on: &str,
    announced: &str,
    national_rank: bool,
) -> i64 {
    let r = app
        .post(
            "/api/v1/tournaments",
            Some(token),
            json!({
                "name": format!("Liga {starts_on}"), "game": "Ashes", "ruleset": "ashes_league",
                "planned_rounds": 3, "starts_on": starts_on, "time_zone": "Europe/Warsaw",
                "rating_pool_id": pool, "national_rank": national_rank
            }),
        )
        .await;
    assert_eq!(r.status(), 201);
    let t = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let mut conn = db(app);
    diesel::sql_query("UPDATE tournaments SET announced_at = $2::timestamptz WHERE id = $1")
        .bind::<Int8, _>(t)
        .bind::<Text, _>(announced)
        .execute(&mut conn)
        .expect("announce");
    t
}

pub(crate) async fn rebuild_over_http(app: &TestApp, token: &str, pool: i64) {
    let r = app
        .req(
            reqwest::Method::POST,
            &format!("/api/v1/rating-pools/{pool}/rebuild"),
            Some(token),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

/// Every player on a pool's leaderboard (provisional ones included, up to 200):
/// `player -> (rating, games, provisional)`.
pub(crate) async fn listed(app: &TestApp, pool: i64) -> HashMap<i64, (f64, u64, bool)> {
    let page: Value = app
        .get(
            &format!("/api/v1/rating-pools/{pool}/leaderboard?include_provisional=true&limit=200"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["player_id"].as_i64().unwrap(),
                (
                    r["rating"].as_f64().unwrap(),
                    r["games"].as_u64().unwrap(),
                    r["provisional"].as_bool().unwrap(),
                ),
            )
        })
        .collect()
}

/// The ratings on a pool's leaderboard by player (see [`listed`]).
pub(crate) async fn ratings(app: &TestApp, pool: i64) -> HashMap<i64, f64> {
    listed(app, pool)
        .await
        .into_iter()
        .map(|(p, (rating, _, _))| (p, rating))
        .collect()
}

/// 240 players written straight into pool `pool_id`'s standings, and the pool's leaderboard
/// version bumped: few distinct ratings (many ties, 0 and -0 among them), 0-6 games, clubs
/// differing only in case, countries, and missing ones.
pub(crate) fn crowd(conn: &mut PgConnection, pool_id: i64) {
    diesel::sql_query(
        "WITH n AS (SELECT g FROM generate_series(1, 240) g),
         p AS (
             INSERT INTO players (name, club, country, created_by)
             SELECT 'Player ' || g,
                    (ARRAY['Kraków', 'KRAKÓW', 'kraków', 'Łódź', NULL])[1 + g % 5],
                    (ARRAY['PL', 'DE', NULL])[1 + g % 3],
                    (SELECT min(id) FROM users)
             FROM n ORDER BY g
             RETURNING id
         )
         INSERT INTO rating_standings
             (pool_id, player_id, rating, games, last_played, trend_delta, trend_games,
              last_delta)
         SELECT $1, id,
                CASE id % 11 WHEN 0 THEN 0.0 WHEN 1 THEN -0.0
                     ELSE 1000 + (id * 7 % 9) * 12.5 END,
                id % 7, CASE WHEN id % 7 > 0 THEN now() END, 0, least(id % 7, 5), NULL
         FROM p",
    )
    .bind::<Int8, _>(pool_id)
    .execute(conn)
    .unwrap();
    diesel::sql_query(
        "UPDATE rating_pools SET leaderboard_version = leaderboard_version + 1 WHERE id = $1",
    )
    .bind::<Int8, _>(pool_id)
    .execute(conn)
    .unwrap();
    notified();
}
