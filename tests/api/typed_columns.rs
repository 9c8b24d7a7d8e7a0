//! The closed sets kept in TEXT columns read and written as enums (`src/db/enums.rs`), through
//! a real PostgreSQL: every variant goes in as its stored name and comes back as itself, and a
//! name no variant has is an error that names it, never a default.

use diesel::dsl::sql;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sql_types::Text;
use std::fmt::Debug;
use tourney::db::ids::{PoolId, TournamentId};
use tourney::domain::cases::{CaseKind, PanelMode, Seat};
use tourney::domain::colours::Colour;
use tourney::domain::rating::acceptance::RatingStatus;
use tourney::domain::rating::replay::ChangeKind;
use tourney::domain::scoring::penalty::RecordedPenalty;
use tourney::domain::scoring::standings::WithdrawalKind;
use tourney::domain::scoring::{Preset, RoundKind};
use tourney::domain::seating::SeatingMethod;
use tourney::domain::status::{
    CaseStatus, RegistrationStatus, RoundStatus, ScheduleState, TournamentStatus,
};
use tourney::error::ApiError;

use crate::helpers::{fresh_database, spawn_app};

/// Each value bound as a parameter reads back as itself and as its name; the name read as
/// the enum is the value; an unknown name is an error naming the value.
fn through_postgres<T>(conn: &mut PgConnection, all: &[T], as_str: fn(T) -> &'static str)
where
    T: Copy
        + PartialEq
        + Debug
        + diesel::expression::AsExpression<
            Text,
            Expression = <&'static str as diesel::expression::AsExpression<Text>>::Expression,
        > + diesel::deserialize::FromSqlRow<Text, Pg>
        + 'static,
{
    for &v in all {
        let back: T = diesel::select(v.into_sql::<Text>())
            .get_result(conn)
            .unwrap();
        assert_eq!(back, v);
        let name: String = diesel::select(v.into_sql::<Text>())
            .get_result(conn)
            .unwrap();
        assert_eq!(name, as_str(v));
        let read: T = diesel::select(sql::<Text>(&format!("'{name}'")))
            .get_result(conn)
            .unwrap();
        assert_eq!(read, v);
    }
    let err = diesel::select(sql::<Text>("'no_such_name'"))
        .get_result::<T>(conn)
        .unwrap_err();
    match ApiError::from(err) {
        ApiError::Internal(m) => assert!(m.contains("stored: \"no_such_name\""), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn every_stored_name_goes_through_postgres_and_back() {
    let mut conn = PgConnection::establish(&fresh_database()).unwrap();
    let c = &mut conn;
    use TournamentStatus as T;
    through_postgres(
        c,
        &[T::Draft, T::RegistrationOpen, T::Running, T::Finished],
        T::as_str,
    );
    through_postgres(c, &Preset::ALL, Preset::as_str);
    use RatingStatus as R;
    through_postgres(
        c,
        &[R::Pending, R::Accepted, R::Refused, R::Withdrawn],
        R::as_str,
    );
    use RegistrationStatus as G;
    through_postgres(c, &[G::Confirmed, G::Waitlisted, G::Cancelled], G::as_str);
    through_postgres(c, &Colour::ALL, Colour::as_str);
    use RoundStatus as S;
    through_postgres(c, &[S::Draft, S::Published, S::Completed], S::as_str);
    use RoundKind as K;
    through_postgres(
        c,
        &[K::Preliminary, K::Final, K::Voluntary, K::Playoff],
        K::as_str,
    );
    use SeatingMethod as M;
    through_postgres(
        c,
        &[
            M::Random,
            M::RandomSeeded,
            M::FixedSeeded,
            M::PlacementEven,
            M::Swiss,
            M::Danish,
            M::Clarification,
            M::ClarificationBonus,
            M::FinalGroups,
            M::Bridge,
            M::TeamDuplicate,
            M::Swiss2p,
            M::RoundRobin,
            M::Knockout,
        ],
        M::as_str,
    );
    through_postgres(
        c,
        &[WithdrawalKind::Withdrawal, WithdrawalKind::OptOut],
        WithdrawalKind::as_str,
    );
    use RecordedPenalty as P;
    through_postgres(
        c,
        &[P::PointPenalty, P::Warning, P::GameLoss, P::Removal],
        P::as_str,
    );
    through_postgres(
        c,
        &[ChangeKind::Game, ChangeKind::Bonus, ChangeKind::Import],
        ChangeKind::as_str,
    );
    through_postgres(
        c,
        &[CaseStatus::Open, CaseStatus::Decided, CaseStatus::Appealed],
        CaseStatus::as_str,
    );
    through_postgres(
        c,
        &[CaseKind::Complaint, CaseKind::Appeal],
        CaseKind::as_str,
    );
    through_postgres(c, &[PanelMode::Referee, PanelMode::Vote], PanelMode::as_str);
    through_postgres(c, &[Seat::Referee, Seat::Committee], Seat::as_str);
    use ScheduleState as E;
    through_postgres(
        c,
        &[E::Open, E::Proposed, E::Agreed, E::Forfeited],
        E::as_str,
    );
}

/// A NULL reads as `None` and a name as `Some` where the column may be empty.
#[test]
fn a_nullable_column_reads_none_and_some() {
    let mut conn = PgConnection::establish(&fresh_database()).unwrap();
    let none: Option<RatingStatus> =
        diesel::select(sql::<diesel::sql_types::Nullable<Text>>("NULL"))
            .get_result(&mut conn)
            .unwrap();
    assert_eq!(none, None);
    let some: Option<RatingStatus> =
        diesel::select(RatingStatus::Refused.into_sql::<diesel::sql_types::Nullable<Text>>())
            .get_result(&mut conn)
            .unwrap();
    assert_eq!(some, Some(RatingStatus::Refused));
}

/// A tournament whose stored ruleset no preset names (the column has no CHECK) is a 500 when
/// read, not a tournament under some default ruleset.
#[actix_web::test]
async fn an_unknown_stored_ruleset_is_an_internal_error() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let tid = app.tournament(&admin, "agricola_norway").await;
    let path = format!("/api/v1/tournaments/{tid}");
    assert_eq!(app.get(&path, Some(&admin)).await.status(), 200);
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    diesel::sql_query(format!(
        "UPDATE tournaments SET ruleset = 'chess' WHERE id = {tid}"
    ))
    .execute(&mut conn)
    .unwrap();
    assert_eq!(app.get(&path, Some(&admin)).await.status(), 500);
}

/// A rating pool's stored parameters and seasons are decoded once, as the row is read
/// (`src/db/models.rs`): a value that does not parse is an error naming the table and the row,
/// never a pool under default parameters or without seasons.
#[actix_web::test]
async fn a_pool_whose_stored_json_does_not_parse_is_an_error_naming_its_row() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let body =
        serde_json::json!({"name": "Tantrix", "preset": "tantrix", "time_zone": "Europe/Berlin"});
    let r = app.post("/api/v1/rating-pools", Some(&admin), body).await;
    assert_eq!(r.status(), 201);
    let id = r.json::<serde_json::Value>().await.unwrap()["id"]
        .as_i64()
        .unwrap();
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    let pool = PoolId(id);
    let read = tourney::db::ratings::pools::by_id(&mut conn, pool)
        .unwrap()
        .unwrap();
    assert_eq!(read.id, pool);
    assert!(read.seasons.is_empty());
    let bad = [
        ("seasons", r#"seasons = '[{"name": 1}]'"#),
        ("params", r#"seasons = '[]', params = '{"k": "many"}'"#),
    ];
    for (column, set) in bad {
        diesel::sql_query(format!("UPDATE rating_pools SET {set} WHERE id = {id}"))
            .execute(&mut conn)
            .unwrap();
        let err = tourney::db::ratings::pools::by_id(&mut conn, pool).unwrap_err();
        let ApiError::Internal(message) = ApiError::from(err) else {
            panic!("a pool with bad {column} read as something else than an internal error");
        };
        let named = format!("rating_pools row {id}: bad {column}");
        assert!(message.contains(&named), "{message}");
    }
}

/// A round's stored draw and colours, a draw attempt's draw and a result's seats are decoded
/// once, as the row is read (`src/db/running.rs`): a value that does not parse is an error
/// naming the table and the row, never an empty draw or a table without seats.
#[actix_web::test]
async fn a_round_or_result_whose_stored_json_does_not_parse_is_an_error_naming_its_row() {
    use tourney::db::ids::{PlayerId, RoundId, TournamentId};
    let app = spawn_app().await;
    let (tid, org, referee, _) = crate::event_fixtures::event(&app, "agricola_norway", 8).await;
    let round =
        crate::event_fixtures::new_round(&app, tid, &org, serde_json::json!({"method": "random"}))
            .await;
    crate::event_fixtures::play_round(&app, tid, &referee, &round, |p| 10 + p % 9).await;
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    let c = &mut conn;
    let read = tourney::db::rounds::of_tournament(c, TournamentId(tid)).unwrap();
    assert_eq!(read.len(), 1);
    let id: RoundId = read[0].id;
    // As stored: the draw the answer showed, the seats as entered.
    assert_eq!(serde_json::to_value(&read[0].draw).unwrap(), round["draw"]);
    let seats = tourney::db::results::versions(c, id, 1).unwrap();
    assert_eq!(seats.len(), 1);
    assert!(seats[0].seats.len() >= 2, "{:?}", seats[0].seats);
    let first: PlayerId = seats[0].seats[0].player;
    assert_eq!(first.0, round["draw"]["tables"][0]["seats"][0]);

    let internal = |err: diesel::result::Error| match ApiError::from(err) {
        ApiError::Internal(m) => m,
        other => panic!("read as {other:?}, not as an internal error"),
    };
    let corrupt = |c: &mut PgConnection, sql: String| {
        assert_eq!(diesel::sql_query(sql).execute(c).unwrap(), 1);
    };
    let id = id.0;
    corrupt(
        c,
        format!("UPDATE results SET seats = '{{\"not\": \"seats\"}}' WHERE round_id = {id} AND table_number = 1"),
    );
    let m = internal(tourney::db::results::versions(c, RoundId(id), 1).unwrap_err());
    assert!(m.contains(&format!("results row {id}/1/1: seats")), "{m}");

    corrupt(
        c,
        format!("UPDATE round_draws SET draw = '[]' WHERE round_id = {id}"),
    );
    let err = tourney::db::rounds::draws_page(c, RoundId(id), 10, 0).unwrap_err();
    assert!(
        internal(err).contains(&format!("round_draws row {id}/1: draw")),
        "a draw attempt"
    );

    corrupt(
        c,
        format!("UPDATE rounds SET colours = '{{\"red\": 1}}' WHERE id = {id}"),
    );
    let m = internal(tourney::db::rounds::by_id(c, RoundId(id)).unwrap_err());
    assert!(m.contains(&format!("rounds row {id}: colours")), "{m}");
    corrupt(
        c,
        format!(
            "UPDATE rounds SET colours = NULL, draw = '{{\"tables\": \"none\"}}' WHERE id = {id}"
        ),
    );
    let m = internal(tourney::db::rounds::by_id(c, RoundId(id)).unwrap_err());
    assert!(m.contains(&format!("rounds row {id}: draw")), "{m}");
    let m = match tourney::db::rounds::draw_by_number(c, TournamentId(tid), 1).unwrap_err() {
        ApiError::Internal(m) => m,
        other => panic!("{other:?}"),
    };
    assert!(m.contains(&format!("rounds row {id}: draw")), "{m}");
    // Over HTTP: a 500, the round not shown under an empty draw.
    let path = format!("/api/v1/tournaments/{tid}/rounds/1");
    assert_eq!(app.get(&path, Some(&org)).await.status(), 500);
}

/// A tournament's stored ruleset overrides are decoded once, as its row is read
/// (`db::models::TournamentRules`): a cup reads back as one and is shown as stored; overrides
/// that do not parse, or do not fit the preset, are an error naming the table, the row and the
/// column, never the preset's defaults ("no cup", the preset's appeals).
#[actix_web::test]
async fn a_tournament_whose_stored_ruleset_overrides_do_not_parse_is_an_error_naming_its_row() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let body = serde_json::json!({
        "name": "Cup", "game": "Tantrix", "ruleset": "tantrix", "cup": true,
        "planned_rounds": 5, "starts_on": "2026-06-12", "time_zone": "Europe/Oslo"
    });
    let r = app.post("/api/v1/tournaments", Some(&admin), body).await;
    assert_eq!(r.status(), 201);
    let shown = r.json::<serde_json::Value>().await.unwrap();
    let id = shown["id"].as_i64().unwrap();
    assert_eq!(shown["cup"], true);
    assert_eq!(shown["ruleset_overrides"]["tantrix"]["cup"], true);
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    let t = TournamentId(id);
    let read = tourney::db::tournaments::by_id(&mut conn, t)
        .unwrap()
        .unwrap();
    assert!(read.rules.ruleset.tantrix.as_ref().is_some_and(|r| r.cup));
    let path = format!("/api/v1/tournaments/{id}");
    let bad = [
        r#"'{"tantrix": "cup"}'"#,
        r#"'{"no_such_override": 1}'"#,
        r#"'{"players_per_table": 0}'"#,
    ];
    for stored in bad {
        diesel::sql_query(format!(
            "UPDATE tournaments SET ruleset_overrides = {stored} WHERE id = {id}"
        ))
        .execute(&mut conn)
        .unwrap();
        let err = tourney::db::tournaments::by_id(&mut conn, t).unwrap_err();
        let ApiError::Internal(message) = ApiError::from(err) else {
            panic!("overrides {stored} read as something else than an internal error");
        };
        let named = format!("tournaments row {id}: bad ruleset_overrides");
        assert!(message.contains(&named), "{message}");
        let err = tourney::db::cases::appeals_in(&mut conn, t).unwrap_err();
        assert!(
            matches!(&err, ApiError::Internal(m) if m.contains(&named)),
            "{err:?}"
        );
        assert_eq!(app.get(&path, Some(&admin)).await.status(), 500);
    }
}

/// A case's stored JSON (evidence links, the remedies asked for, the remedies applied) is
/// written typed and decoded once, as the row is read (`db::cases::StoredCase`): a value that
/// does not parse is an error naming the table, the row and the column, never an empty list.
#[actix_web::test]
async fn a_case_whose_stored_remedy_does_not_parse_is_an_error_naming_its_row() {
    use tourney::db::cases::{in_tournament, insert, NewCase};
    use tourney::db::json::Json;
    use tourney::db::rounds::Lock;
    use tourney::domain::case_sets::{CaseSubject, PanelReason};
    use tourney::domain::entries::Remedy;

    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let tid = TournamentId(app.tournament(&admin, "agricola_norway").await);
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    let t = tourney::db::tournaments::by_id(&mut conn, tid)
        .unwrap()
        .unwrap();
    let asked = vec![Remedy::ReplayTable { round: 1, table: 2 }];
    let case = insert(
        &mut conn,
        &NewCase {
            tournament_id: tid,
            kind: CaseKind::Complaint,
            subject: CaseSubject::Conduct,
            round_number: None,
            table_number: None,
            penalty_id: None,
            statement: "Slow play".into(),
            evidence_text: None,
            evidence_links: Json(vec!["https://example.org/a.jpg".into()]),
            requested_remedies: Json(asked.clone()),
            panel_mode: PanelMode::Referee,
            panel_rule: PanelReason::Pending,
            opened_by: t.created_by,
            appeal_of: None,
        },
    )
    .unwrap();
    assert_eq!(case.evidence_links, ["https://example.org/a.jpg"]);
    assert_eq!(case.requested_remedies, asked);
    assert_eq!(case.remedy, None);
    let id = case.id;
    let bad = [
        (
            "remedy",
            r#"'[{"order": {"kind": "no_such_remedy"}, "effect": {}}]'"#,
        ),
        ("requested_remedies", r#"'{"kind": "replay_table"}'"#),
        ("evidence_links", r#"'[1, 2]'"#),
    ];
    for (column, stored) in bad {
        diesel::sql_query(format!(
            "UPDATE cases SET {column} = {stored} WHERE id = {id}"
        ))
        .execute(&mut conn)
        .unwrap();
        let err = in_tournament(&mut conn, tid, id, Lock::None).unwrap_err();
        let ApiError::Internal(message) = ApiError::from(err) else {
            panic!("a case with bad {column} read as something else than an internal error");
        };
        let named = format!("cases row {id}: bad {column}");
        assert!(message.contains(&named), "{message}");
        diesel::sql_query(format!(
            "UPDATE cases SET remedy = NULL, requested_remedies = '[]', \
             evidence_links = '[]' WHERE id = {id}"
        ))
        .execute(&mut conn)
        .unwrap();
        assert!(in_tournament(&mut conn, tid, id, Lock::None).is_ok());
    }
}

/// The rating feed decodes a round's draw only where it reads it (`db::ratings::games`): the
/// team matches of a team duplicate round. Another format's draw is not parsed (so one that
/// does not parse is not read at all); a team duplicate round's draw that does not parse is an
/// error naming its row.
#[actix_web::test]
async fn the_rating_feed_decodes_the_draw_of_team_duplicate_rounds_only() {
    use crate::rating_fixtures::{completed_round, db, pool, tournament};
    use tourney::db::ids::RoundId;
    use tourney::db::ratings::games::{rated_rounds, RoundsOf};

    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let body = serde_json::json!({"name": "Ashes", "preset": "ashes_poland",
                                  "time_zone": "Europe/Warsaw"});
    let pool_id = PoolId(pool(&app, &admin, body).await);
    let duels = tournament(&app, &admin, "ashes_league", pool_id.0, "2026-03-07").await;
    let teams = tournament(&app, &admin, "team_duplicate_2v2", pool_id.0, "2026-03-08").await;
    let mut conn = db(&app);
    let duel_round = completed_round(&mut conn, duels, 1, "2026-03-07T10:00:00Z");
    let team_round = completed_round(&mut conn, teams, 1, "2026-03-08T10:00:00Z");
    let read = |conn: &mut PgConnection| rated_rounds(conn, pool_id, RoundsOf::default());
    let rounds = read(&mut conn).unwrap();
    assert_eq!(rounds.len(), 2);
    let of = |id: i64| rounds.iter().find(|r| r.id == RoundId(id)).unwrap();
    assert!(of(duel_round).draw.is_none());
    assert_eq!(of(team_round).draw.as_ref().map(|d| d.round), Some(1));

    let corrupt = |conn: &mut PgConnection, round: i64| {
        diesel::sql_query(format!(
            "UPDATE rounds SET draw = '{{\"tables\": \"none\"}}' WHERE id = {round}"
        ))
        .execute(conn)
        .unwrap();
    };
    corrupt(&mut conn, duel_round);
    assert_eq!(read(&mut conn).unwrap().len(), 2);
    corrupt(&mut conn, team_round);
    let ApiError::Internal(message) = ApiError::from(read(&mut conn).unwrap_err()) else {
        panic!("a team round's bad draw read as something else than an internal error");
    };
    assert!(
        message.contains(&format!("rounds row {team_round}: draw")),
        "{message}"
    );
}
