//! The rooms of `src` and what each may import (the README's layout map): arrows run one way,
//! down, so no room imports one above it and there are no import circles between modules.
//!
//! A room is a top-level folder of `src` (`api`, `runtime`, `infra`, `db`, `domain`, `auth`)
//! or a group of services (`services::running`, `services::ratings`, ...). The check reads each
//! file's `crate::...` paths (comments and `#[cfg(test)]` modules left out) and the `super::`
//! paths of nested modules; `module_imports_have_no_circles` follows them module by module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What every service group may import: the shared service modules and the rooms below.
const BELOW_SERVICES: &[&str] = &[
    "services::access",
    "services::validate",
    "services::players",
    "auth",
    "db",
    "domain",
    "error",
    "infra",
];

/// Each room and the rooms it may import besides itself (and [`BELOW_SERVICES`] where it says
/// so).
fn allowed(room: &str) -> Option<(bool, &'static [&'static str])> {
    Some(match room {
        "domain" | "error" => (false, &[]),
        "db" => (false, &["domain", "error"]),
        "auth" => (false, &["db", "domain", "error"]),
        "infra" => (false, &["auth", "db", "domain", "error"]),
        "services::validate" => (false, &["error"]),
        "services::health" => (false, &["db", "error"]),
        "services::access" => (false, &["auth", "db", "domain", "error"]),
        "services::players" | "services::accounts" | "services::ratings" => (true, &[]),
        "services::running" => (true, &["services::ratings"]),
        "services::cases" => (true, &["services::running", "services::ratings"]),
        "services::integrations" => (true, &["services::running", "services::ratings"]),
        "services::archives" => (
            true,
            &["services::running", "services::cases", "services::ratings"],
        ),
        "services::invitations" => (true, &["services::running", "services::accounts"]),
        "services::play" => (
            true,
            &["services::running", "services::ratings", "services::cases"],
        ),
        // Above the services: what requests run on, the HTTP layer, the application.
        "runtime" => (true, &["services::*"]),
        // The HTTP layer reads no table itself (`architecture::handlers_speak_only_http`).
        "api" => (
            false,
            &[
                "services::*",
                "services::access",
                "services::validate",
                "services::players",
                "runtime",
                "infra",
                "auth",
                "domain",
                "error",
            ],
        ),
        "app" => (true, &["services::*", "runtime", "api"]),
        _ => return None,
    })
}

fn may_import(room: &str, other: &str) -> bool {
    let Some((services_base, extra)) = allowed(room) else {
        return false;
    };
    (services_base && BELOW_SERVICES.contains(&other))
        || extra.contains(&other)
        || (extra.contains(&"services::*") && other.starts_with("services::"))
        || (extra.contains(&"services::*") && other == "services")
}

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

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The module path of a file: `src/services/running/rounds.rs` -> `services::running::rounds`.
fn module_of(file: &Path) -> String {
    let rel = file.strip_prefix(src()).unwrap().with_extension("");
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .filter(|c| c != "mod")
        .collect();
    parts.join("::")
}

/// The room of a module path.
fn room_of(module: &str) -> String {
    let parts: Vec<&str> = module.split("::").collect();
    match parts.as_slice() {
        ["services", group, ..] => format!("services::{group}"),
        [first, ..] => first.to_string(),
        [] => String::new(),
    }
}

/// The file's code without comment lines and without its `#[cfg(test)]` module.
fn code_of(text: &str) -> String {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        if !line.trim_start().starts_with("//") {
            out.push(line);
        }
    }
    out.join("\n")
}

/// The `crate::` paths a piece of code names, as written (`services::running::rounds::x`).
fn crate_paths(code: &str) -> Vec<String> {
    code.match_indices("crate::")
        .map(|(i, _)| {
            code[i + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                .collect::<String>()
                .trim_end_matches(':')
                .to_string()
        })
        .filter(|p| !p.is_empty())
        .collect()
}

/// Every module of `src` and the code of its file.
fn modules() -> BTreeMap<String, String> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files
        .iter()
        .filter(|f| !f.ends_with("lib.rs") && !f.ends_with("main.rs"))
        .map(|f| (module_of(f), code_of(&std::fs::read_to_string(f).unwrap())))
        .collect()
}

/// The longest module of `known` that `path` starts with.
fn resolve<'a>(path: &str, known: &'a BTreeMap<String, String>) -> Option<&'a str> {
    let parts: Vec<&str> = path.split("::").collect();
    (1..=parts.len())
        .rev()
        .map(|n| parts[..n].join("::"))
        .find_map(|m| known.get_key_value(&m).map(|(k, _)| k.as_str()))
}

/// Room-to-room imports that the table does not allow.
fn room_violations(mods: &BTreeMap<String, String>) -> Vec<String> {
    let mut problems = Vec::new();
    for (module, code) in mods {
        let room = room_of(module);
        if room == "services" {
            continue; // services/mod.rs only declares the groups
        }
        for path in crate_paths(code) {
            let other = room_of(&path);
            if other != room && !may_import(&room, &other) {
                problems.push(format!("{module} ({room}) imports crate::{path} ({other})"));
            }
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

/// The module-to-module imports (a module's own submodules and parents left out).
fn module_edges(mods: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, code) in mods {
        for path in crate_paths(code) {
            if let Some(target) = resolve(&path, mods) {
                let related = target == module || module.starts_with(&format!("{target}::"));
                if !related {
                    edges
                        .entry(module.clone())
                        .or_default()
                        .insert(target.to_string());
                }
            }
        }
    }
    edges
}

/// One import circle, if there is any: the modules along it.
fn a_circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            let mut circle = path[i..].to_vec();
            circle.push(m.to_string());
            return Some(circle);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for next in edges.get(m).into_iter().flatten() {
            if let Some(c) = visit(next, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|m| visit(m, edges, &mut Vec::new(), &mut done))
}

#[test]
fn every_room_imports_only_the_rooms_below_it() {
    let mods = modules();
    for module in mods.keys() {
        let room = room_of(module);
        assert!(
            room == "services" || allowed(&room).is_some(),
            "{module} is in room {room}, which the layout map does not know: add it to the \
             table here and to the README"
        );
    }
    let problems = room_violations(&mods);
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn module_imports_have_no_circles() {
    let edges = module_edges(&modules());
    assert_eq!(a_circle(&edges), None, "an import circle");
}

#[test]
fn the_room_checks_catch_violations() {
    let mut mods = BTreeMap::new();
    mods.insert(
        "infra::kept".to_string(),
        "use crate::services::running::rounds::load;".to_string(),
    );
    mods.insert(
        "services::running::rounds".to_string(),
        "use crate::services::running::cup::x;".to_string(),
    );
    mods.insert(
        "services::running::cup".to_string(),
        "use crate::services::running::rounds::y;".to_string(),
    );
    mods.insert(
        "services::ratings::feed".to_string(),
        "use crate::services::running::results::z;".to_string(),
    );
    let problems = room_violations(&mods);
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(problems[0].starts_with("infra::kept"));
    assert!(problems[1].starts_with("services::ratings::feed"));
    let circle = a_circle(&module_edges(&mods)).expect("rounds -> cup -> rounds");
    assert_eq!(circle.first(), circle.last());
    assert_eq!(circle.len(), 3);
}
