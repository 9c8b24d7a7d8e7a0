//! One way to do each thing (issue 28, item 3; `docs/API-DESIGN.md`, "Conventions"):
//!
//! - Transactions: a service that writes opens its own (`conn.transaction`), so it is atomic
//!   whoever calls it (a handler, a job, another service, where it nests as a savepoint); a
//!   helper that writes only as part of another use case says it runs "inside the caller's
//!   transaction", and a write of one statement says "one statement". Handlers never open one.
//! - Idempotency: a handler that takes an `Idempotency-Key` runs its write through
//!   `infra::idempotency::once` (or `once_answering`, when the status depends on the output),
//!   which stores the answer the handler chose in the write's transaction; services know
//!   nothing of it.
//! - Status codes and headers: only `src/api` chooses them; services return typed outputs.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn files(sub: &str) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(sub),
        &mut out,
    );
    out.into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
            (f, code)
        })
        .collect()
}

/// What writes to the database.
const WRITES: [&str; 7] = [
    "diesel::insert_into",
    "diesel::update(",
    "diesel::delete(",
    "copy_from(",
    "\"INSERT ",
    "\"UPDATE ",
    "\"DELETE ",
];

/// How code opens a transaction: diesel's method (in the store and the machinery) or the
/// store's functions (`db::transaction`, `db::unit_of_work`, `db::snapshot`) a service calls.
const OPENS_TRANSACTION: [&str; 4] = [
    ".transaction(",
    "db::transaction(",
    "unit_of_work(",
    "db::snapshot(",
];

fn opens_transaction(code: &str) -> bool {
    OPENS_TRANSACTION.iter().any(|w| code.contains(w))
}

/// Top-level `pub fn`s of `code` that write without opening a transaction or saying whose
/// transaction they run in: `(name, first line)`.
fn unguarded_writes(code: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("pub fn ") else {
            continue;
        };
        let Some(end) = lines[i + 1..].iter().position(|l| *l == "}") else {
            continue;
        };
        let body = lines[i..=i + 1 + end].join("\n");
        let doc_start = (0..i)
            .rev()
            .take_while(|&j| lines[j].starts_with("///") || lines[j].starts_with("#["))
            .last()
            .unwrap_or(i);
        let doc = lines[doc_start..i].join(" ");
        let writes = WRITES.iter().any(|w| body.contains(w));
        let guarded = opens_transaction(&body)
            || doc.contains("caller's transaction")
            || doc.contains("one statement");
        if writes && !guarded {
            let name = rest.split(['(', '<']).next().unwrap_or("").to_string();
            found.push((name, i + 1));
        }
    }
    found
}

#[test]
fn handlers_open_no_transaction_and_state_offers_none() {
    let mut problems = Vec::new();
    for (f, code) in files("api") {
        if opens_transaction(&code) {
            problems.push(format!("{} opens a transaction", f.display()));
        }
    }
    for (f, code) in files("runtime") {
        if code.contains("pub async fn transaction") {
            problems.push(format!("{} offers handlers a transaction", f.display()));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn every_service_that_writes_is_atomic_by_itself() {
    let mut problems = Vec::new();
    for (f, code) in files("services") {
        for (name, line) in unguarded_writes(&code) {
            problems.push(format!(
                "{}:{line}: pub fn {name} writes outside a transaction of its own",
                f.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn idempotency_and_status_codes_belong_to_the_http_layer() {
    let mut problems = Vec::new();
    for (f, code) in files("services") {
        // (A webhook delivery's log keeps the receiver's status: that is data, not an answer.)
        for word in [
            "idempotency",
            "StatusCode",
            "(u16, serde_json::Value)",
            "http::",
        ] {
            if code.contains(word) {
                problems.push(format!("{} mentions {word}", f.display()));
            }
        }
    }
    for (f, code) in files("api") {
        let reads_key = code.contains("idempotency_key(") && !code.contains("fn idempotency_key(");
        let through_once =
            code.contains("idempotency::once(") || code.contains("idempotency::once_answering(");
        if reads_key && !through_once {
            problems.push(format!(
                "{} reads an Idempotency-Key without idempotency::once",
                f.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn the_convention_checks_catch_violations() {
    let writes = "pub fn open(conn: &mut PgConnection) -> R {\n    diesel::insert_into(t).execute(conn)\n}\n";
    assert_eq!(unguarded_writes(writes), [("open".to_string(), 1)]);
    let own = "pub fn open(conn: &mut PgConnection) -> R {\n    conn.transaction(|conn| {\n        diesel::insert_into(t).execute(conn)\n    })\n}\n";
    assert!(unguarded_writes(own).is_empty());
    let through_store = own.replace(
        "conn.transaction(|conn|",
        "crate::db::transaction(conn, |conn|",
    );
    assert!(unguarded_writes(&through_store).is_empty());
    assert!(opens_transaction(&through_store));
    assert!(opens_transaction("db::unit_of_work(conn, |conn| Ok(()))"));
    assert!(!opens_transaction(
        "let t = db::tournaments::by_id(conn, id)?;"
    ));
    let helper = format!("/// Stores it inside the caller's transaction.\n{writes}");
    assert!(unguarded_writes(&helper).is_empty());
    let read = "pub fn read(conn: &mut PgConnection) -> R {\n    t.load(conn)\n}\n";
    assert!(unguarded_writes(read).is_empty());
}

/// The OpenAPI names of the `ToSchema` types in `code`: the type's name, or its `as =` alias.
fn schema_names(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut derives_schema = false;
    let mut alias: Option<String> = None;
    let mut in_derive = false;
    for line in code.lines().map(str::trim) {
        if in_derive || line.starts_with("#[derive(") {
            // A derive list rustfmt broke over lines runs to its `)]`.
            derives_schema |= line.contains("ToSchema");
            in_derive = !line.ends_with(")]");
        } else if let Some(rest) = line.strip_prefix("#[schema(as = ") {
            alias = Some(rest.trim_end_matches(")]").to_string());
        } else if line.starts_with("#[") || line.starts_with("///") {
        } else {
            let item = line
                .strip_prefix("pub struct ")
                .or_else(|| line.strip_prefix("pub enum "));
            if let (true, Some(item)) = (derives_schema, item) {
                let name: String = item
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                names.push(alias.take().unwrap_or(name));
            }
            derives_schema = false;
            alias = None;
        }
    }
    names
}

/// utoipa names a component after its type and keeps the last one registered, so two types of
/// one name in different modules silently share a schema and one of them answers against the
/// other's (schemathesis found the tournament import and the rating import doing so).
#[test]
fn every_openapi_schema_name_is_one_type() {
    let mut seen: std::collections::BTreeMap<String, PathBuf> = Default::default();
    let mut clashes = Vec::new();
    for (path, code) in files("") {
        for name in schema_names(&code) {
            if let Some(first) = seen.insert(name.clone(), path.clone()) {
                clashes.push(format!(
                    "{name}: {} and {}",
                    first.display(),
                    path.display()
                ));
            }
        }
    }
    assert!(
        seen.len() > 100,
        "the scan found only {} schemas",
        seen.len()
    );
    assert!(clashes.is_empty(), "{clashes:#?}");
}

#[test]
fn the_schema_name_scan_reads_aliases_and_skips_other_derives() {
    let code = "#[derive(Serialize, ToSchema)]\n/// Doc.\npub struct A {\n}\n#[derive(ToSchema)]\n#[schema(as = Preset)]\npub enum B {}\n#[derive(Debug)]\npub struct C;\n#[derive(\n    Debug,\n    ToSchema,\n)]\npub enum D {}\n";
    assert_eq!(schema_names(code), ["A", "Preset", "D"]);
}
