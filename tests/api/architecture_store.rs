//! The persistence boundary (issue 39): `src/db` is the one place that knows tables.
//!
//! - `diesel`: services never name diesel, not even for the connection or its transaction
//!   (`db::PgConnection`, `db::transaction`, `db::unit_of_work`, `db::snapshot`); machinery and
//!   auth (`src/infra`, `src/auth`) use no diesel but the connection and its transaction
//!   (`PgConnection`, `Connection`): no query DSL, no `diesel::update`/`insert_into`/`sql_query`.
//! - `schema`: no `db::schema::` (the tables) outside `src/db`.
//! - `sql`: no SQL text outside `src/db`.
//! - `rows`: no row structs (diesel's row derives) outside `src/db`.
//! - `clock`: no `Utc::now()` below the runtime (services, machinery, auth, store): the time
//!   comes from the caller.
//! - `raw_id`: no row in `src/db` holds an id as a raw `i64` (`id`, `*_id`, `*_by`, `*_of`
//!   fields).
//! - `json`: no row in `src/db` holds a `serde_json::Value`, unless a comment right above the
//!   field says `free-form` (a document the rules never read, kept as given).
//!
//! What is left of each rule is written down per file in `store_budget.txt`, and the test
//! holds every file to it both ways: a count above its budget fails (the boundary may not
//! leak again), and a count below it fails too, asking to lower the budget, so the list only
//! shrinks. `STORE_BUDGET_WRITE=1 cargo test --test api architecture_store` rewrites the list
//! when nothing grew.

use std::collections::BTreeMap;
use std::path::Path;

use super::architecture::{code_of, rust_files, sql_text, src};

const BUDGET: &str = "tests/api/store_budget.txt";
/// diesel items a service may name: the connection and its transaction.
const ALLOWED_DIESEL: [&str; 3] = ["Connection", "PgConnection", "pg::PgConnection"];
const ROW_DERIVES: [&str; 6] = [
    "Queryable",
    "Selectable",
    "Insertable",
    "AsChangeset",
    "QueryableByName",
    "Identifiable",
];

/// The diesel items `code` names outside the allowed ones (`use diesel::{a, b}` counts each).
fn diesel_uses(code: &str) -> usize {
    let mut found = 0;
    for (i, _) in code.match_indices("diesel::") {
        let rest = &code[i + "diesel::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            found += inner
                .split(',')
                .map(str::trim)
                .filter(|item| !item.is_empty() && !ALLOWED_DIESEL.contains(item))
                .count();
            continue;
        }
        let item: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        if !ALLOWED_DIESEL.contains(&item.trim_end_matches(':')) {
            found += 1;
        }
    }
    found
}

/// How often `text` (a service's whole file, comments and tests too) names diesel.
fn diesel_mentions(text: &str) -> usize {
    text.matches("diesel").count()
}

fn sql_count(code: &str) -> usize {
    sql_text(code)
        .into_iter()
        .map(|w| code.matches(w).count())
        .sum()
}

fn derives_row(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("#[derive(") && ROW_DERIVES.iter().any(|d| t.contains(d))
}

fn row_derives(code: &str) -> usize {
    code.lines().filter(|l| derives_row(l)).count()
}

/// The rows `text` reads by hand: the type of each `impl Queryable<..> for X` (the impl may
/// span lines; a macro's `$row` is none), of each `read_through!(X, ..)` and of each
/// `stored_row! { .. pub struct X { .. } .. }` (`db::json`).
fn hand_written_rows(text: &str) -> Vec<String> {
    let all: Vec<&str> = text.lines().map(str::trim).collect();
    let ident = |rest: &str| -> String {
        rest.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
            .collect()
    };
    let mut out = Vec::new();
    for (i, line) in all.iter().enumerate() {
        if let Some(rest) = line.strip_prefix("read_through!(") {
            out.push(ident(rest));
        }
        if line.starts_with("stored_row!") {
            if let Some(rest) = all[i..].iter().find_map(|l| l.strip_prefix("pub struct ")) {
                out.push(ident(rest));
            }
        }
        let queryable = line.starts_with("impl")
            && (line.contains("Queryable<")
                || all.get(i + 1).is_some_and(|l| l.starts_with("Queryable<")));
        if !queryable {
            continue;
        }
        // The type follows the impl's `for`, on its first line or one of the next.
        for l in &all[i..] {
            if let Some((_, rest)) = l.split_once("for ") {
                out.push(ident(rest));
                break;
            }
        }
    }
    out.retain(|name| !name.is_empty() && !name.starts_with('$'));
    out
}

/// The fields of the row structs in `text` (the lines between the `struct` line of a row, one
/// that derives a row or is read by hand, and its closing brace), each with the line above it.
fn row_fields(text: &str) -> Vec<(&str, &str)> {
    let by_hand = hand_written_rows(text);
    let read_by_hand = |t: &str| {
        by_hand.iter().any(|name| {
            t.split_once("struct ").is_some_and(|(_, rest)| {
                rest.strip_prefix(name.as_str())
                    .is_some_and(|after| after.starts_with([' ', '<', '{']))
            })
        })
    };
    let all: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut in_row = false;
    let mut seen_derive = false;
    for (i, line) in all.iter().enumerate() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            break;
        }
        let struct_line = t.contains("struct ") && t.ends_with('{');
        if derives_row(line) {
            seen_derive = true;
        } else if struct_line && (seen_derive || read_by_hand(t)) {
            in_row = true;
            seen_derive = false;
        } else if in_row && t.starts_with('}') {
            in_row = false;
        } else if in_row && t.starts_with("pub ") && i > 0 {
            out.push((all[i - 1], t));
        }
    }
    out
}

fn is_raw_id(field: &str) -> bool {
    let Some((name, ty)) = field.trim_start_matches("pub ").split_once(':') else {
        return false;
    };
    let name = name.trim();
    let ty = ty.trim().trim_end_matches(',');
    // `appeal_of`: a reference to another row under its relation's name. Counts, sequences and
    // cursors (`games`, `sequence`) are no ids.
    let id_like =
        name == "id" || name.ends_with("_id") || name.ends_with("_by") || name.ends_with("_of");
    id_like && (ty == "i64" || ty == "Option<i64>")
}

fn raw_ids(text: &str) -> usize {
    row_fields(text)
        .into_iter()
        .filter(|(_, f)| is_raw_id(f))
        .count()
}

fn untyped_json(text: &str) -> usize {
    row_fields(text)
        .into_iter()
        .filter(|(above, f)| f.contains("serde_json::Value") && !above.contains("free-form"))
        .count()
}

/// Every (rule, file) with a count above zero.
fn counts() -> BTreeMap<(String, String), usize> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = BTreeMap::new();
    let mut add = |rule: &str, file: &Path, n: usize| {
        if n > 0 {
            let rel = file.strip_prefix(root).unwrap().display().to_string();
            out.insert((rule.to_string(), rel), n);
        }
    };
    for dir in ["services", "infra", "auth"] {
        let mut files = Vec::new();
        rust_files(&src(dir), &mut files);
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let code = code_of(&text);
            if dir == "services" {
                add("diesel", &f, diesel_mentions(&text));
            } else {
                add("diesel", &f, diesel_uses(&code));
            }
            add("schema", &f, code.matches("db::schema::").count());
            add("sql", &f, sql_count(&code));
            add("rows", &f, row_derives(&code));
            add("clock", &f, code.matches("Utc::now()").count());
        }
    }
    let mut files = Vec::new();
    rust_files(&src("db"), &mut files);
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        add("clock", &f, code_of(&text).matches("Utc::now()").count());
        add("raw_id", &f, raw_ids(&text));
        add("json", &f, untyped_json(&text));
    }
    out
}

fn budget() -> BTreeMap<(String, String), usize> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(BUDGET);
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut parts = l.split_whitespace();
            let rule = parts.next().unwrap().to_string();
            let file = parts.next().unwrap().to_string();
            let n = parts.next().unwrap().parse().unwrap();
            ((rule, file), n)
        })
        .collect()
}

#[test]
fn the_store_boundary_only_shrinks() {
    let now = counts();
    let allowed = budget();
    let mut grew = Vec::new();
    let mut shrank = Vec::new();
    for (key, &n) in &now {
        let b = allowed.get(key).copied().unwrap_or(0);
        if n > b {
            grew.push(format!("{} {}: {n} (budget {b})", key.0, key.1));
        } else if n < b {
            shrank.push(format!("{} {}: {n} (budget {b})", key.0, key.1));
        }
    }
    for (key, &b) in &allowed {
        if !now.contains_key(key) {
            shrank.push(format!("{} {}: 0 (budget {b})", key.0, key.1));
        }
    }
    // The first budget is written from what is; after that, nothing may grow.
    assert!(
        grew.is_empty() || allowed.is_empty() && std::env::var_os("STORE_BUDGET_WRITE").is_some(),
        "storage leaked out of src/db (see the rules in architecture_store.rs): {grew:#?}"
    );
    if std::env::var_os("STORE_BUDGET_WRITE").is_some() {
        let mut text = String::from(
            "# What is left of the persistence boundary's rules, per file (architecture_store.rs).\n\
             # Only ever lowered: rule file count\n",
        );
        for ((rule, file), n) in &now {
            text.push_str(&format!("{rule} {file} {n}\n"));
        }
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(BUDGET);
        std::fs::write(path, text).unwrap();
        return;
    }
    assert!(
        shrank.is_empty(),
        "the boundary got better: lower the budget (STORE_BUDGET_WRITE=1): {shrank:#?}"
    );
}

/// Every id in a row is typed (issue 39): the raw-id rule has no budget left, and none may be
/// written back into `store_budget.txt`.
#[test]
fn no_row_holds_a_raw_id() {
    let raw: Vec<_> = counts()
        .into_iter()
        .filter(|((rule, _), _)| rule == "raw_id")
        .collect();
    assert!(
        raw.is_empty(),
        "rows in src/db hold raw i64 ids (use the newtypes of src/db/ids.rs): {raw:#?}"
    );
    assert!(
        !budget().keys().any(|(rule, _)| rule == "raw_id"),
        "store_budget.txt may not allow raw ids again"
    );
}

/// No service names diesel (issue 39): the store owns the connection's type and its
/// transactions; the rule has no budget in `src/services`, and none may be written back.
#[test]
fn no_service_names_diesel() {
    let named: Vec<_> = counts()
        .into_iter()
        .filter(|((rule, file), _)| rule == "diesel" && file.starts_with("src/services/"))
        .collect();
    assert!(
        named.is_empty(),
        "services name diesel (use db::PgConnection, db::transaction, db::unit_of_work, \
         db::snapshot and the store's functions): {named:#?}"
    );
    assert!(
        !budget()
            .keys()
            .any(|(rule, file)| rule == "diesel" && file.starts_with("src/services/")),
        "store_budget.txt may not allow diesel in src/services again"
    );
}

/// Each scanner finds what it looks for, and lets pass what is allowed.
#[test]
fn the_store_rules_catch_violations() {
    assert_eq!(diesel_uses("use diesel::prelude::*;"), 1);
    assert_eq!(diesel_uses("use diesel::{Connection, PgConnection};"), 0);
    assert_eq!(diesel_uses("use diesel::{dsl::count, Connection};"), 1);
    assert_eq!(diesel_uses("fn f(c: &mut diesel::PgConnection) {}"), 0);
    assert_eq!(diesel_uses("diesel::update(t).set(x).execute(c)"), 1);
    // In a service, every mention counts: the connection, its transaction, a comment.
    assert_eq!(diesel_mentions("use crate::db::PgConnection;"), 0);
    assert_eq!(
        diesel_mentions("use diesel::{Connection, PgConnection};"),
        1
    );
    assert_eq!(
        diesel_mentions("// diesel's savepoint\nfn f(c: &mut diesel::PgConnection) {}"),
        2
    );
    assert_eq!(
        sql_count("sql_query(\"SELECT 1\"); sql_query(\"SELECT 2\")"),
        4
    );
    assert_eq!(
        row_derives("#[derive(Debug, Queryable, Selectable)]\nstruct R {}"),
        1
    );
    assert_eq!(row_derives("#[derive(Debug, Clone)]\nstruct R {}"), 0);
    let rows = "#[derive(Queryable, Selectable)]\npub struct R {\n    pub id: i64,\n    \
                pub round_id: RoundId,\n    pub decided_by: Option<i64>,\n    pub score: i64,\n    \
                pub appeal_of: Option<i64>,\n    pub sequence: i64,\n    \
                pub draw: serde_json::Value,\n    /// free-form: the organiser's notes\n    \
                pub notes: serde_json::Value,\n}\n#[derive(Debug)]\npub struct Plain {\n    \
                pub id: i64,\n}\n";
    assert_eq!(raw_ids(rows), 3);
    assert_eq!(untyped_json(rows), 1);
    // A row read by hand (its own `Queryable`, or `read_through!`) is held to the same rules.
    let by_hand = "#[derive(Debug, Clone)]\npub struct Rated {\n    pub id: i64,\n    \
                   pub draw: serde_json::Value,\n}\n#[derive(Debug)]\npub struct Read {\n    \
                   pub tournament_id: i64,\n}\n#[derive(Debug)]\npub struct Plain {\n    \
                   pub id: i64,\n}\nimpl\n    Queryable<\n        (BigInt, Json),\n        Pg,\n    \
                   > for Rated\n{\n}\nread_through!(Read, StoredRead);\n\
                   impl<ST> Queryable<ST, Pg> for $row {}\n\
                   stored_row! {\n    /// A row.\n    #[derive(Debug)]\n    pub struct Twin {\n        \
                   pub case_id: i64,\n        pub links: Vec<String> as json,\n    }\n    \
                   read through StoredTwin from twins, named \"twins\" row |s| s.id;\n}\n";
    assert_eq!(hand_written_rows(by_hand), ["Rated", "Read", "Twin"]);
    assert_eq!(raw_ids(by_hand), 3);
    assert_eq!(untyped_json(by_hand), 1);
    // And it reads the real ones: the rating feed's round, a round, a pool.
    let games = std::fs::read_to_string(src("db").join("ratings/games.rs")).unwrap();
    assert!(row_fields(&games)
        .iter()
        .any(|(_, f)| f.starts_with("pub draw:")));
    let models = std::fs::read_to_string(src("db").join("models.rs")).unwrap();
    assert!(hand_written_rows(&models).contains(&"RatingPoolRow".to_string()));
    let cases = std::fs::read_to_string(src("db").join("cases.rs")).unwrap();
    assert_eq!(hand_written_rows(&cases), ["CaseRow", "VoteRow"]);
    assert_eq!(
        code_of("// Utc::now() in a comment")
            .matches("Utc::now()")
            .count(),
        0
    );
}
