//! The pure domain stays pure: nothing under `src/domain` reaches for HTTP, the database or IO.

fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn the_domain_imports_no_http_database_or_io() {
    let mut files = Vec::new();
    rust_files(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src/domain")),
        &mut files,
    );
    assert!(!files.is_empty());
    let forbidden = [
        "actix",
        "diesel",
        "std::fs",
        "std::net",
        "tokio",
        "reqwest",
        "crate::db",
        "crate::api",
    ];
    for f in files {
        let text: String = std::fs::read_to_string(&f)
            .unwrap()
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for word in forbidden {
            assert!(!text.contains(word), "{} mentions {word}", f.display());
        }
    }
}
