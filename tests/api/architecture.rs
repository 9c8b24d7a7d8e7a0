//! The layers stay apart. Each layer has one job and the checks below keep it to it:
//!
//! - `src/domain`: pure rules; no HTTP, database, file system, network or async runtime.
//! - `src/services`: use cases over a connection; no actix (no HTTP types) and no `crate::api`.
//! - `src/db`: schema, rows and shared queries; no actix, no `crate::api`, no `crate::services`.
//! - `src/api`: HTTP only; no diesel, no SQL text, no `crate::db`, and a resource module
//!   (`api/cases`, `api/ratings.rs`, ...) imports no other resource module: shared HTTP pieces
//!   live in `api/support.rs`, `api/extract.rs` and `api/problem.rs`.
//! - Everywhere under `src`: no file over 800 lines and no function (whatever its visibility)
//!   over 120 lines, unless a comment containing `layout: long` right above the function or
//!   table says why; the marker exempts that item only, the rest of the file still counts.
//!
//! The checks are plain text scans; `rules_catch_violations` feeds each one a violation to
//! show it fails when it should.

use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 800;
const MAX_FN_LINES: usize = 120;
/// Modules of `src/api` that every resource may use.
const SHARED_API_MODULES: [&str; 3] = ["support", "extract", "problem"];
/// The marker that lets a long file or function stay long (with the reason beside it).
const LONG_MARKER: &str = "layout: long";

pub(super) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

pub(super) fn src(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(sub)
}

/// The file's code without comment lines, and without its `#[cfg(test)]` module (tests may
/// use whatever they test with).
pub(super) fn code_of(text: &str) -> String {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        if line.trim_start().starts_with("//") {
            continue;
        }
        out.push(line);
    }
    out.join("\n")
}

/// The words of `forbidden` that `code` mentions.
fn mentions<'a>(code: &str, forbidden: &[&'a str]) -> Vec<&'a str> {
    forbidden
        .iter()
        .copied()
        .filter(|w| code.contains(w))
        .collect()
}

/// SQL written as text (diesel's query builder is caught by the `diesel` word).
pub(super) fn sql_text(code: &str) -> Vec<&'static str> {
    [
        "sql_query",
        "\"SELECT ",
        "\"INSERT ",
        "\"UPDATE ",
        "\"DELETE ",
    ]
    .into_iter()
    .filter(|w| code.contains(w))
    .collect()
}

/// The resource an `src/api` file belongs to: `api/cases/votes.rs` -> `cases`,
/// `api/ratings.rs` -> `ratings`.
fn api_resource(relative: &Path) -> String {
    let first = relative.components().next().unwrap().as_os_str();
    first.to_string_lossy().trim_end_matches(".rs").to_string()
}

/// The other api resource modules that `code` (of resource `own`) imports.
fn foreign_api_modules(code: &str, own: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (i, _) in code.match_indices("crate::api::") {
        let rest = &code[i + "crate::api::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let shared = SHARED_API_MODULES.contains(&name.as_str());
        if !name.is_empty() && name != own && !shared && !found.contains(&name) {
            found.push(name);
        }
    }
    // `super::<resource>` from a top-level api file reaches a sibling resource too.
    if code.contains("super::super::") {
        found.push("super::super".into());
    }
    found
}

/// Whether a line opens a function, whatever its visibility (`pub`, `pub(crate)`,
/// `pub(super)`, `pub(in ..)`) and qualifiers (`const`, `async`, `unsafe`, `extern "C"`).
fn opens_fn(trimmed: &str) -> bool {
    let mut rest = trimmed;
    if let Some(r) = rest.strip_prefix("pub") {
        rest = match r.strip_prefix('(') {
            Some(inner) => match inner.find(')') {
                Some(close) => inner[close + 1..].trim_start(),
                None => return false,
            },
            None if r.starts_with(' ') => r.trim_start(),
            None => return false,
        };
    }
    loop {
        let before = rest;
        for q in ["const ", "async ", "unsafe ", "extern \"C\" "] {
            if let Some(r) = rest.strip_prefix(q) {
                rest = r.trim_start();
            }
        }
        if rest == before {
            break;
        }
    }
    rest.starts_with("fn ")
}

/// Where the item opened at line `i` ends: the closing brace (or `];` of a table) at the same
/// indentation.
fn item_end(lines: &[&str], i: usize) -> Option<usize> {
    let line = lines[i];
    let indent = line.len() - line.trim_start().len();
    let pad = " ".repeat(indent);
    let (brace, table) = (format!("{pad}}}"), format!("{pad}];"));
    lines[i + 1..]
        .iter()
        .position(|l| *l == brace || *l == table)
        .map(|p| i + 1 + p)
}

/// The item a `layout: long` marker at line `i` exempts: the next line that opens a block
/// (a function or a table), to its end. `(first, last)` line numbers.
fn marked_item(lines: &[&str], i: usize) -> Option<(usize, usize)> {
    let start = (i + 1..lines.len().min(i + 6)).find(|&j| {
        let t = lines[j].trim_end();
        !t.trim_start().starts_with("//") && (t.ends_with('{') || t.ends_with('['))
    })?;
    Some((start, item_end(lines, start)?))
}

/// Lines of a file that count against the file limit: all but the items a `layout: long`
/// marker exempts.
fn counted_lines(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let exempt: usize = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains(LONG_MARKER) && l.trim_start().starts_with("//"))
        .filter_map(|(i, _)| marked_item(&lines, i))
        .map(|(a, b)| b - a + 1)
        .sum();
    lines.len() - exempt
}

/// Functions longer than the limit: `(name, lines)`. A function is counted from its `fn` line
/// to the closing brace at the same indentation; a `layout: long` comment in the three lines
/// above it exempts that function only.
fn long_functions(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        if !opens_fn(trimmed) || trimmed.ends_with(';') {
            continue;
        }
        let Some(end) = item_end(&lines, i) else {
            continue;
        };
        let length = end - i + 1;
        let marked = lines[i.saturating_sub(3)..=i]
            .iter()
            .any(|l| l.contains(LONG_MARKER));
        if length > MAX_FN_LINES && !marked {
            let name = trimmed
                .split("fn ")
                .nth(1)
                .unwrap_or("")
                .split(['(', '<'])
                .next()
                .unwrap_or("")
                .to_string();
            long.push((name, length));
        }
    }
    long
}

fn check_layer(dir: &str, forbidden: &[&str]) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(&src(dir), &mut files);
    assert!(!files.is_empty(), "src/{dir} has no files");
    let mut problems = Vec::new();
    for f in files {
        let code = code_of(&std::fs::read_to_string(&f).unwrap());
        for word in mentions(&code, forbidden) {
            problems.push(format!("{} mentions {word}", f.display()));
        }
    }
    problems
}

#[test]
fn the_domain_imports_no_http_database_or_io() {
    let problems = check_layer(
        "domain",
        &[
            "actix",
            "diesel",
            "std::fs",
            "std::net",
            "tokio",
            "reqwest",
            "crate::db",
            "crate::api",
            "crate::services",
            "crate::runtime::state",
        ],
    );
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn services_and_db_know_no_http() {
    let mut problems = check_layer(
        "services",
        &["actix", "HttpRequest", "HttpResponse", "crate::api"],
    );
    problems.extend(check_layer(
        "db",
        &[
            "actix",
            "HttpRequest",
            "crate::api",
            "crate::services",
            "crate::runtime::state",
        ],
    ));
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn handlers_speak_only_http() {
    let root = src("api");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut problems = Vec::new();
    for f in files {
        let code = code_of(&std::fs::read_to_string(&f).unwrap());
        for word in mentions(&code, &["diesel", "crate::db", "PgConnection"]) {
            problems.push(format!("{} mentions {word}", f.display()));
        }
        for sql in sql_text(&code) {
            problems.push(format!("{} holds SQL text ({sql})", f.display()));
        }
        let relative = f.strip_prefix(&root).unwrap();
        let own = api_resource(relative);
        if !SHARED_API_MODULES.contains(&own.as_str()) && own != "mod" {
            for other in foreign_api_modules(&code, &own) {
                problems.push(format!("{} imports api::{other}", f.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn files_and_functions_stay_short() {
    let mut files = Vec::new();
    rust_files(&src(""), &mut files);
    // The tests are source too: no file of theirs over the limit either.
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"),
        &mut files,
    );
    let mut problems = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let lines = counted_lines(&text);
        if lines > MAX_FILE_LINES {
            problems.push(format!("{} has {lines} lines", f.display()));
        }
        if f.starts_with(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")) {
            continue;
        }
        for (name, length) in long_functions(&text) {
            problems.push(format!("{}: fn {name} has {length} lines", f.display()));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// Each rule fails on a violation, so a green run means something.
#[test]
fn rules_catch_violations() {
    // A handler running diesel.
    let handler = "use diesel::prelude::*;\nfn h() { rounds::table.load(conn) }";
    assert_eq!(mentions(&code_of(handler), &["diesel"]), ["diesel"]);
    // SQL text.
    assert!(!sql_text("diesel::sql_query(\"SELECT 1\")").is_empty());
    // One resource importing another, while shared modules are fine.
    let cases = "use crate::api::results::store_result;\nuse crate::api::support::Check;";
    assert_eq!(foreign_api_modules(cases, "cases"), ["results"]);
    assert!(foreign_api_modules("use crate::api::cases::x;", "cases").is_empty());
    assert_eq!(api_resource(Path::new("cases/votes.rs")), "cases");
    assert_eq!(api_resource(Path::new("ratings.rs")), "ratings");
    // actix in a service; comments do not count.
    let service = "// actix is not used here\nuse actix_web::HttpRequest;";
    assert_eq!(mentions(&code_of(service), &["actix"]), ["actix"]);
    assert!(mentions(&code_of("// actix"), &["actix"]).is_empty());
    // Test modules may use anything.
    assert!(mentions(&code_of("#[cfg(test)]\nuse diesel;"), &["diesel"]).is_empty());
    // A long function, and the marker that lets one stay.
    let body = "    x();\n".repeat(MAX_FN_LINES);
    let long = format!("pub fn big() {{\n{body}}}\n");
    assert_eq!(
        long_functions(&long),
        [("big".to_string(), MAX_FN_LINES + 2)]
    );
    let kept = format!("// layout: long: a table of data\n{long}");
    assert!(long_functions(&kept).is_empty());
    let short = "fn small() {\n    x();\n}\n";
    assert!(long_functions(short).is_empty());
    // Every visibility and qualifier counts.
    for head in [
        "pub(super) fn big() {",
        "pub(crate) async fn big() {",
        "pub(in crate::services) fn big() {",
        "const fn big() {",
        "    pub unsafe fn big() {",
    ] {
        let indent = " ".repeat(head.len() - head.trim_start().len());
        let f = format!("{head}\n{body}{indent}}}\n");
        assert_eq!(long_functions(&f).len(), 1, "{head}");
    }
    assert!(!opens_fn("pub struct Fn {"));
    assert!(!opens_fn("// fn x() {"));
    // The marker exempts the item below it from the file limit, not the whole file.
    let table = format!("const T: &[u8] = &[\n{}];\n", "    1,\n".repeat(50));
    let file = format!("fn a() {{}}\n// layout: long: a table of data\n{table}fn b() {{}}\n");
    assert_eq!(counted_lines(&file), 2 + 1);
    let unmarked = format!("fn a() {{}}\n{table}");
    assert_eq!(counted_lines(&unmarked), unmarked.lines().count());
}

/// utoipa takes only a string literal for a schema `pattern`, so the text pattern is written
/// out in the schema attributes; every copy must equal `TEXT_PATTERN`, the one the checks use.
#[test]
fn every_text_pattern_in_the_schemas_is_the_checked_one() {
    let mut files = Vec::new();
    rust_files(&src(""), &mut files);
    let want = format!("r\"{}\"", tourney::services::validate::TEXT_PATTERN);
    let mut copies = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, _) in text.match_indices("pattern = r\"^[^\\u0000") {
            let literal = text[i + "pattern = ".len()..]
                .split_whitespace()
                .next()
                .unwrap();
            let literal = literal.trim_end_matches([',', ')', ']']);
            if literal.contains("[^\\s") {
                assert_eq!(literal, want, "{} drifts from TEXT_PATTERN", f.display());
                copies += 1;
            }
        }
    }
    assert!(copies > 0, "no schema carries the text pattern");
}
