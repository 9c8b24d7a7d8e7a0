//! Draws anyone can check offline (issue 41, item 3): `tourney verify FILE` reads a tournament
//! archive (`GET /tournaments/{id}/archive`) or one round's draw records
//! (`GET /tournaments/{id}/rounds/{n}/draws`), checks every seed against its commitment and
//! recomputes every draw from its seed and input with the service's own seating engine (the
//! import's checks in [`super::checks`]), with no database and no network. The steps, for anyone
//! re-implementing them: `docs/verifying-draws.md`.

use serde_json::Value;

use super::checks::{
    archived_input, commitment_of, redraw, round_not_last_attempt, round_number_of,
    seed_against_commitment, Redrawn,
};
use super::signing::{ArchiveKeys, Trust};
use super::{digest_of, TournamentArchive, FORMAT, READS};
use crate::domain::seating::DrawInput;
use crate::domain::DrawRng;

/// What one check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The file holds what the check expects.
    Matches,
    /// It does not: the draw, seed or archive is not what was published.
    Mismatch,
    /// Nothing to check yet (a draft's seed is not revealed) or only informative.
    Unchecked,
}

/// One line of the verification: what was checked and what came out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub outcome: Outcome,
    /// What was checked (`round 2 attempt 1: seed against commitment`).
    pub subject: String,
    /// What was found.
    pub detail: String,
}

/// Everything [`verify`] found in a file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verification {
    /// What the file is (`archive of tournament 12 "Hyttetur"`, `draw records`).
    pub what: String,
    pub checks: Vec<Check>,
}

impl Verification {
    fn push(&mut self, outcome: Outcome, subject: impl Into<String>, detail: impl Into<String>) {
        self.checks.push(Check {
            outcome,
            subject: subject.into(),
            detail: detail.into(),
        });
    }

    fn count(&self, outcome: Outcome) -> usize {
        self.checks.iter().filter(|c| c.outcome == outcome).count()
    }

    /// Every check matched and at least one draw was recomputed.
    pub fn holds(&self) -> bool {
        self.count(Outcome::Mismatch) == 0 && self.count(Outcome::Matches) > 0
    }

    /// The report as `tourney verify` prints it: one line per check, then a summary.
    pub fn render(&self) -> String {
        let mut out = format!("{}\n", self.what);
        for c in &self.checks {
            let tag = match c.outcome {
                Outcome::Matches => "ok",
                Outcome::Mismatch => "MISMATCH",
                Outcome::Unchecked => "unchecked",
            };
            out.push_str(&format!("{tag:<10}{}: {}\n", c.subject, c.detail));
        }
        let (ok, bad) = (self.count(Outcome::Matches), self.count(Outcome::Mismatch));
        let verdict = if self.holds() {
            "every check matches"
        } else if bad > 0 {
            "MISMATCHES FOUND"
        } else {
            "nothing could be checked"
        };
        out.push_str(&format!(
            "{ok} matching, {bad} mismatching, {} unchecked: {verdict}\n",
            self.count(Outcome::Unchecked)
        ));
        out
    }
}

/// Verifies the JSON text of a tournament archive or of a round's draw records. `Err` when the
/// file is neither (a clear sentence saying what it is not); mismatches are in the `Ok` report.
pub fn verify(text: &str) -> Result<Verification, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        format!("not a tournament archive or draw record: the file is not JSON ({e})")
    })?;
    if value.get("format").is_some() {
        return verify_archive(value);
    }
    let records = match &value {
        Value::Object(o) if o.get("items").is_some_and(Value::is_array) => {
            o["items"].as_array().cloned().unwrap_or_default()
        }
        Value::Object(o) if o.contains_key("seed_commitment") => vec![value.clone()],
        Value::Array(items) => items.clone(),
        _ => Vec::new(),
    };
    if records.is_empty() || !records.iter().all(|r| r.get("seed_commitment").is_some()) {
        return Err(format!(
            "not a tournament archive (`format`: `{FORMAT}`) or a round's draw records (the \
             answer of GET /tournaments/{{id}}/rounds/{{n}}/draws, items with `seed_commitment`)"
        ));
    }
    let mut v = Verification {
        what: format!("draw records ({} attempt(s))", records.len()),
        checks: Vec::new(),
    };
    for (i, r) in records.iter().enumerate() {
        let at = match r.get("attempt").and_then(Value::as_i64) {
            Some(a) => format!("attempt {a}"),
            None => format!("record {}", i + 1),
        };
        verify_record(&mut v, &at, r);
    }
    Ok(v)
}

/// One published draw record: seed, commitment, full input, draw.
fn verify_record(v: &mut Verification, at: &str, r: &Value) {
    let Some(seed) = r.get("seed").and_then(Value::as_str) else {
        v.push(
            Outcome::Unchecked,
            at,
            "the seed is not revealed yet (the round is a draft)",
        );
        return;
    };
    let commitment = r.get("seed_commitment").and_then(Value::as_str);
    let Some(seed) = seed_line(v, at, seed, commitment) else {
        return;
    };
    match serde_json::from_value::<DrawInput>(r.get("input").cloned().unwrap_or_default()) {
        Ok(input) => draw_line(v, at, &input, seed, r.get("draw").unwrap_or(&Value::Null)),
        Err(e) => v.push(
            Outcome::Mismatch,
            format!("{at}: draw"),
            format!("the input is not a seating input: {e}"),
        ),
    }
}

/// Checks the seed against its commitment; the seed when it holds.
fn seed_line(
    v: &mut Verification,
    at: &str,
    seed: &str,
    commitment: Option<&str>,
) -> Option<crate::domain::rng::Seed> {
    let subject = format!("{at}: seed");
    match seed_against_commitment(Some(seed), commitment) {
        Ok(bytes) => {
            v.push(
                Outcome::Matches,
                subject,
                format!(
                    "SHA-256 of the seed is the commitment {}",
                    commitment_of(&bytes)
                ),
            );
            Some(bytes)
        }
        Err(e) => {
            let found = DrawRng::seed_from_hex(seed)
                .map(|b| format!(" (SHA-256 of the seed is {})", commitment_of(&b)))
                .unwrap_or_default();
            v.push(
                Outcome::Mismatch,
                subject,
                format!("{e}: commitment {}{found}", commitment.unwrap_or("missing")),
            );
            None
        }
    }
}

/// Recomputes one draw and records whether it matches.
fn draw_line(
    v: &mut Verification,
    at: &str,
    input: &DrawInput,
    seed: crate::domain::rng::Seed,
    draw: &Value,
) {
    let subject = format!("{at}: draw");
    match redraw(input, seed, draw) {
        Ok(None) => v.push(
            Outcome::Matches,
            subject,
            format!(
                "recomputed with method {} (algorithm {}): the same tables, seats and report",
                input.method, input.algorithm
            ),
        ),
        Ok(Some(Redrawn {
            seating,
            recomputed,
        })) => v.push(
            Outcome::Mismatch,
            subject,
            format!(
                "recomputing gives {seating} than the published draw (recomputed: {recomputed})"
            ),
        ),
        Err(e) => v.push(
            Outcome::Mismatch,
            subject,
            format!("the seating engine refuses the input: {e}"),
        ),
    }
}

fn verify_archive(value: Value) -> Result<Verification, String> {
    if value.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(format!(
            "not a tournament archive: `format` is {}, not `{FORMAT}`",
            value["format"]
        ));
    }
    let version = value.get("version").and_then(Value::as_u64);
    if !version.is_some_and(|n| READS.iter().any(|r| u64::from(*r) == n)) {
        return Err(format!(
            "archive version {} is not known here (this tool reads versions {READS:?})",
            value["version"]
        ));
    }
    let archive: TournamentArchive = serde_json::from_value(value)
        .map_err(|e| format!("not a readable tournament archive: {e}"))?;
    let t = &archive.content.tournament;
    let mut v = Verification {
        what: format!(
            "archive of tournament {} {} (format {FORMAT} version {}, made {})",
            t.get("id").unwrap_or(&Value::Null),
            t.get("name").unwrap_or(&Value::Null),
            archive.version,
            archive.exported_at.to_rfc3339()
        ),
        checks: Vec::new(),
    };
    envelope_lines(&mut v, &archive);
    let content = &archive.content;
    for (i, row) in content.round_draws.iter().enumerate() {
        let attempt = row.get("attempt").and_then(Value::as_i64).unwrap_or(0);
        let number = match round_number_of(content, row) {
            Ok(n) => n,
            Err(e) => {
                v.push(
                    Outcome::Mismatch,
                    format!("draw attempt {i}"),
                    e.to_string(),
                );
                continue;
            }
        };
        let at = format!("round {number} attempt {attempt}");
        let seed = row.get("seed").and_then(Value::as_str).unwrap_or_default();
        let commitment = row.get("seed_commitment").and_then(Value::as_str);
        let Some(seed) = seed_line(&mut v, &at, seed, commitment) else {
            continue;
        };
        match archived_input(content, number, row) {
            Ok(input) => draw_line(&mut v, &at, &input, seed, &row["draw"]),
            Err(e) => v.push(
                Outcome::Mismatch,
                format!("{at}: draw"),
                format!("the stored input cannot be read: {e}"),
            ),
        }
    }
    match round_not_last_attempt(content) {
        None => v.push(
            Outcome::Matches,
            "rounds",
            "each round's draw and seed are its last drawn attempt's",
        ),
        Some(i) => v.push(
            Outcome::Mismatch,
            "rounds",
            format!(
                "round {}'s draw or seed is not its last drawn attempt's",
                content.rounds[i].get("number").unwrap_or(&Value::Null)
            ),
        ),
    }
    Ok(v)
}

/// The digest and, when there is one, the signature (valid for the key it names; whether to
/// trust that key is the reader's call).
fn envelope_lines(v: &mut Verification, archive: &TournamentArchive) {
    match digest_of(&archive.content) {
        Ok(d) if d == archive.digest => v.push(
            Outcome::Matches,
            "digest",
            format!("the content's canonical JSON hashes to {d}"),
        ),
        Ok(d) => v.push(
            Outcome::Mismatch,
            "digest",
            format!(
                "the content hashes to {d}, not to {}: it was changed after it was made",
                archive.digest
            ),
        ),
        Err(e) => v.push(Outcome::Mismatch, "digest", e.to_string()),
    }
    let Some(s) = &archive.signature else {
        v.push(
            Outcome::Unchecked,
            "signature",
            "none (an archive of version 1 or a pool archive's part)",
        );
        return;
    };
    // Any key checks a signature made with the named one when told to trust it.
    let keys = ArchiveKeys::new([0; 32], Vec::new());
    let trust = Trust {
        key: Some(s.key.clone()),
        unsigned: false,
    };
    match archive.check_signature(&keys, &trust) {
        Ok(()) => v.push(
            Outcome::Matches,
            "signature",
            format!(
                "valid {} signature by key {} (compare it with the writing instance's \
                 GET /api/v1/archive-key)",
                s.algorithm, s.key
            ),
        ),
        Err(e) => v.push(Outcome::Mismatch, "signature", e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> (String, String) {
        let root = env!("CARGO_MANIFEST_DIR");
        let read = |f: &str| std::fs::read_to_string(format!("{root}/docs/{f}")).unwrap();
        (
            read("verifying-draws.example.json"),
            read("verifying-draws.md"),
        )
    }

    /// The doc's worked example: its file verifies, and the page states the seed, the
    /// commitment, every number of the stream with what it decides, and the tables.
    #[test]
    fn verifying_draws_example_holds() {
        let (file, doc) = example();
        let v = verify(&file).unwrap();
        assert!(v.holds(), "{}", v.render());
        assert_eq!(v.checks.len(), 2, "{}", v.render());
        let record: Value = serde_json::from_str(&file).unwrap();
        let r = &record["items"][0];
        let seed_hex = r["seed"].as_str().unwrap();
        let seed = DrawRng::seed_from_hex(seed_hex).unwrap();
        assert!(doc.contains(&format!("Seed `{seed_hex}`")));
        assert!(doc.contains(&format!("the commitment: `{}`", commitment_of(&seed))));
        assert_eq!(r["seed_commitment"], commitment_of(&seed).as_str());
        // The lot of the shared place, the seat shuffles and starting players, in stream order.
        let moduli = [2u64, 4, 3, 2, 4, 3, 2, 3];
        let mut rng = DrawRng::from_seed(seed);
        for (i, n) in moduli.iter().enumerate() {
            let x = rng.next_u64();
            let row = format!("| {} | {x} | {n} | {} |", i + 1, x % n);
            assert!(doc.contains(&row), "the page lacks {row}");
        }
        let tables = r["draw"]["tables"].as_array().unwrap();
        for t in tables {
            let seats: Vec<String> = t["seats"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.to_string())
                .collect();
            let line = format!(
                "table {} seats {} (starting player {})",
                t["number"],
                seats.join(", "),
                t["starting_player"]
            );
            let flat = doc.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(flat.contains(&line), "the page lacks {line}");
        }
        assert_eq!(r["draw"]["report"]["repeat_count"], 3);
        assert!(doc.contains("(`repeat_count` 3)"));
    }

    fn tampered(edit: impl FnOnce(&mut Value)) -> Verification {
        let (file, _) = example();
        let mut v: Value = serde_json::from_str(&file).unwrap();
        edit(&mut v["items"][0]);
        verify(&v.to_string()).unwrap()
    }

    fn mismatch_of(v: &Verification) -> Vec<&str> {
        v.checks
            .iter()
            .filter(|c| c.outcome == Outcome::Mismatch)
            .map(|c| c.subject.as_str())
            .collect()
    }

    #[test]
    fn a_swapped_seat_a_changed_seed_or_commitment_is_a_mismatch() {
        let seat = tampered(|r| {
            let seats = r["draw"]["tables"][0]["seats"].as_array_mut().unwrap();
            seats.swap(0, 1);
        });
        assert!(!seat.holds());
        assert_eq!(mismatch_of(&seat), ["attempt 1: draw"]);
        assert!(seat.render().contains("other tables"));
        let seed = tampered(|r| {
            r["seed"] = "1f".repeat(32).into();
        });
        assert_eq!(mismatch_of(&seed), ["attempt 1: seed"]);
        let commitment = tampered(|r| {
            r["seed_commitment"] = "00".repeat(32).into();
        });
        assert_eq!(mismatch_of(&commitment), ["attempt 1: seed"]);
        // A seed and commitment both replaced (a new draw passed off as the published one).
        let both = tampered(|r| {
            let seed = [9u8; 32];
            r["seed"] = DrawRng::seed_to_hex(&seed).into();
            r["seed_commitment"] = commitment_of(&seed).into();
        });
        assert_eq!(mismatch_of(&both), ["attempt 1: draw"]);
    }

    #[test]
    fn a_draft_is_unchecked_and_a_file_of_something_else_is_refused() {
        let draft = tampered(|r| r["seed"] = Value::Null);
        assert!(!draft.holds());
        assert_eq!(draft.checks[0].outcome, Outcome::Unchecked);
        for text in [
            "not json",
            "{\"name\": \"Hyttetur\"}",
            "{\"items\": []}",
            "[1, 2]",
        ] {
            let e = verify(text).unwrap_err();
            assert!(e.starts_with("not a tournament archive"), "{text}: {e}");
        }
        let e = verify("{\"format\": \"tourney.pool-archive\"}").unwrap_err();
        assert!(e.contains("not a tournament archive"), "{e}");
        let e = verify("{\"format\": \"tourney.tournament-archive\", \"version\": 9}").unwrap_err();
        assert!(e.contains("version 9"), "{e}");
    }
}
