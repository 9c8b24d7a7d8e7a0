//! The index in a database whose collation is not bytewise (a managed PostgreSQL made
//! `en_US.UTF-8`, or ICU's): the lists order names by their bytes there too (`COLLATE "C"`),
//! so the index answers as PostgreSQL does, where before 1.4.3 it was never used (a libc
//! collation) or mixed two orders (an ICU one, whose `lc_collate` still read `C`).

use diesel::prelude::*;

use super::{agree, from_database, import, searches, PLAYER_QUERIES, TOURNAMENT_QUERIES};
use crate::helpers::{item_names, spawn_app_on_database_with};

/// The names the database's own collation puts first, by `ORDER BY name`.
fn by_collation(url: &str) -> Vec<String> {
    let mut conn = PgConnection::establish(url).unwrap();
    diesel::sql_query("SELECT name FROM players ORDER BY name, id LIMIT 400")
        .load::<Name>(&mut conn)
        .unwrap()
        .into_iter()
        .map(|n| n.name)
        .collect()
}

#[derive(QueryableByName)]
struct Name {
    #[diesel(sql_type = diesel::sql_types::Text)]
    name: String,
}

#[actix_web::test]
async fn the_index_answers_in_a_database_of_another_collation_by_the_names_bytes() {
    let app = spawn_app_on_database_with(
        "LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'",
    )
    .await;
    import(&app);
    // The database's collation is not the bytes' order: Łukasz before Øystein in it.
    let collated = by_collation(&app.database_url);
    let mut bytewise = collated.clone();
    bytewise.sort();
    assert_ne!(collated, bytewise);

    // The index answers, and as PostgreSQL does: every query of the main test, and the page
    // after each by its cursor.
    let (before, _) = searches(&app).await;
    for q in PLAYER_QUERIES {
        agree(&app, "players", q).await;
    }
    for q in TOURNAMENT_QUERIES {
        agree(&app, "tournaments", q).await;
    }
    assert!(searches(&app).await.0 > before + 20.0);

    // The list by name, whole, is in the bytes' order from both (Øystein before Łukasz).
    let all = agree(&app, "players", "limit=200&sort=name").await;
    let next = all["next_cursor"].as_str().expect("240 players");
    let mut names = item_names(&all);
    names.extend(item_names(&from_database(
        &app,
        "players",
        &format!("limit=200&sort=name&cursor={next}"),
    )));
    assert_eq!(names, bytewise);
    // Equal ranks (every Berg holds the word whole) are ordered by the bytes as well.
    let ranked = item_names(&agree(&app, "players", "q=berg&limit=100").await);
    let mut sorted = ranked.clone();
    sorted.sort();
    assert_eq!(ranked.len(), 40);
    assert_eq!(ranked, sorted);
    assert!(ranked.last().unwrap().starts_with("Øystein"), "{ranked:?}");
}
