//! The checks an archive passes before anything of it is written: its format and version, its
//! digest, every reference inside it, and every draw recomputed from its seed and input.

use std::collections::{HashMap, HashSet};

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::spec::{JsonIds, Kind, TableSpec, PENALTY_KEYS, PLAYER_KEYS, TABLES, TOURNAMENT};
use super::{canonical, digest_of, ArchiveContent, Row, TournamentArchive, FORMAT, READS};
use crate::db::models::TournamentRules;
use crate::domain::colours::TableColours;
use crate::domain::entries::{AppliedRemedy, Remedy, ReportedResult};
use crate::domain::rng::Seed;
use crate::domain::scoring::{Preset, Ruleset, RulesetOverride, SeatResult};
use crate::domain::seating::{draw_round, Draw, DrawInput, RoundOptions};
use crate::domain::status::RoundStatus;
use crate::domain::DrawRng;
use crate::error::{ApiError, FieldError};
use crate::services::running::round_input::FROM_EARLIER_ROUNDS;
use crate::services::running::snapshot::history_of;

/// The field names of problems, under the import's `archive`.
const AT: &str = "archive";

/// The ids each kind has in the archive.
pub type Known = HashMap<Kind, HashSet<i64>>;

fn id_of(row: &Row) -> Option<i64> {
    row.get("id").and_then(Value::as_i64)
}

fn rows<'a>(content: &'a ArchiveContent, section: &str) -> &'a [Row] {
    content
        .sections()
        .into_iter()
        .find(|(s, _)| *s == section)
        .map(|(_, r)| r.as_slice())
        .unwrap_or_default()
}

/// The players an archive creates here pass what `POST /players` checks (422 naming the
/// archive's field): a name (1-100 characters, no control characters), a club of at most 100,
/// a country that is an ISO 3166-1 alpha-2 code. `at` names the rows (`archive.content.players`).
pub fn check_players(players: &[Row], at: &str) -> Result<(), ApiError> {
    use crate::services::validate::{check_country, Check};
    let mut check = Check::new();
    for (i, row) in players.iter().enumerate() {
        let field = |c: &str| format!("{at}[{i}].{c}");
        for (column, required) in [("name", true), ("club", false), ("country", false)] {
            let value = row.get(column).unwrap_or(&Value::Null);
            match (value.as_str(), value.is_null()) {
                (Some(v), _) if column == "country" => {
                    check_country(&mut check, &field(column), Some(v));
                }
                (Some(v), _) => {
                    check.text(&field(column), v, 100);
                }
                (None, true) if !required => {}
                _ => check.fail(&field(column), "must be a string"),
            }
        }
    }
    check.finish()
}

/// The archive's format, version and digest (422 naming the field at fault).
pub fn check_envelope(archive: &TournamentArchive) -> Result<(), ApiError> {
    if archive.format != FORMAT {
        return Err(ApiError::field(
            format!("{AT}.format"),
            format!("not a tournament archive (expected `{FORMAT}`)"),
        ));
    }
    if !READS.contains(&archive.version) {
        return Err(ApiError::field(
            format!("{AT}.version"),
            format!(
                "archive version {} is not known here (this service reads versions {READS:?})",
                archive.version
            ),
        ));
    }
    let digest = digest_of(&archive.content).map_err(|e| ApiError::Internal(e.to_string()))?;
    if digest != archive.digest {
        return Err(ApiError::field(
            format!("{AT}.digest"),
            "the content does not match its digest: the archive was changed or damaged after \
             it was made",
        ));
    }
    Ok(())
}

/// Every id the archive gives a row of its own, by kind.
pub fn known_ids(content: &ArchiveContent) -> Known {
    let mut known: Known = HashMap::new();
    known
        .entry(Kind::Tournament)
        .or_default()
        .extend(id_of(&content.tournament));
    known
        .entry(Kind::User)
        .or_default()
        .extend(content.users.iter().filter_map(id_of));
    known
        .entry(Kind::Player)
        .or_default()
        .extend(content.players.iter().filter_map(id_of));
    for spec in TABLES {
        if let Some(kind) = spec.own {
            known
                .entry(kind)
                .or_default()
                .extend(rows(content, spec.section).iter().filter_map(id_of));
        }
    }
    known
}

/// The players (and penalties) a JSON value names under the keys of [`PLAYER_KEYS`].
pub fn keyed_ids(v: &Value, keys: &[&str], out: &mut Vec<i64>) {
    fn all(v: &Value, out: &mut Vec<i64>) {
        match v {
            Value::Number(n) => out.extend(n.as_i64()),
            Value::Array(items) => items.iter().for_each(|i| all(i, out)),
            _ => {}
        }
    }
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                if keys.contains(&k.as_str()) {
                    all(v, out);
                }
                keyed_ids(v, keys, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| keyed_ids(i, keys, out)),
        _ => {}
    }
}

fn check_row(spec: &TableSpec, at: &str, row: &Row, known: &Known, errors: &mut Vec<FieldError>) {
    let tid = known[&Kind::Tournament].iter().next().copied();
    for (column, kind) in spec.refs {
        match row.get(*column) {
            None => errors.push(FieldError::new(format!("{at}.{column}"), "missing")),
            Some(Value::Null) => {}
            Some(v) => match v.as_i64() {
                Some(id) if known.get(kind).is_some_and(|ids| ids.contains(&id)) => {
                    if *kind == Kind::Tournament && Some(id) != tid {
                        errors.push(FieldError::new(
                            format!("{at}.{column}"),
                            "another tournament",
                        ));
                    }
                }
                _ => errors.push(FieldError::new(
                    format!("{at}.{column}"),
                    format!("names a {kind:?} the archive does not hold ({v})").to_lowercase(),
                )),
            },
        }
    }
    for (column, how) in spec.json {
        let mut players = Vec::new();
        let mut penalties = Vec::new();
        let value = row.get(*column).unwrap_or(&Value::Null);
        match how {
            JsonIds::Keyed => {
                keyed_ids(value, PLAYER_KEYS, &mut players);
                keyed_ids(value, PENALTY_KEYS, &mut penalties);
            }
            JsonIds::DrawInput => {
                let mut v = value.clone();
                v.as_object_mut().map(|o| o.remove(FROM_EARLIER_ROUNDS));
                match serde_json::from_value::<DrawInput>(v) {
                    Ok(input) => players.extend(input.players.iter().map(|p| p.id.0)),
                    Err(e) => errors.push(FieldError::new(format!("{at}.{column}"), e.to_string())),
                }
            }
            JsonIds::Draw => match serde_json::from_value::<Draw>(value.clone()) {
                Ok(d) => players.extend(d.tables.iter().flat_map(|t| t.seats.iter().map(|p| p.0))),
                Err(e) => errors.push(FieldError::new(format!("{at}.{column}"), e.to_string())),
            },
        }
        for (ids, kind) in [(players, Kind::Player), (penalties, Kind::Penalty)] {
            if let Some(id) = ids.iter().find(|id| !known[&kind].contains(id)) {
                errors.push(FieldError::new(
                    format!("{at}.{column}"),
                    format!("names a {kind:?} the archive does not hold ({id})").to_lowercase(),
                ));
            }
        }
    }
}

/// Every reference of the archive resolves inside it (422 naming each row and column at fault,
/// at most 20).
pub fn check_references(content: &ArchiveContent, known: &Known) -> Result<(), ApiError> {
    let mut errors = Vec::new();
    if id_of(&content.tournament).is_none() {
        errors.push(FieldError::new(
            format!("{AT}.content.tournament.id"),
            "missing",
        ));
        return Err(ApiError::Validation(errors));
    }
    let at = format!("{AT}.content.tournament");
    check_row(&TOURNAMENT, &at, &content.tournament, known, &mut errors);
    for spec in TABLES {
        for (i, row) in rows(content, spec.section).iter().enumerate() {
            let at = format!("{AT}.content.{}[{i}]", spec.section);
            check_row(spec, &at, row, known, &mut errors);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        errors.truncate(20);
        Err(ApiError::Validation(errors))
    }
}

/// Reads a stored JSON value as `T`, as the service reads its column (`Err`: why not).
fn reads_as<T: serde::de::DeserializeOwned>(v: &Value) -> Result<(), String> {
    serde_json::from_value::<T>(v.clone())
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Reads a nullable stored JSON value as `T` (null is none).
fn reads_as_or_null<T: serde::de::DeserializeOwned>(v: &Value) -> Result<(), String> {
    reads_as::<Option<T>>(v)
}

/// Whether a stored JSON value reads as a column's type (`Err`: why not).
type Reads = fn(&Value) -> Result<(), String>;

/// The JSON columns the service reads as its types (`src/db`'s rows), by section, beside the
/// draws and draw inputs [`check_references`] reads: a value that does not read would be stored
/// and break every later read of the tournament (a 500).
const TYPED: &[(&str, &str, Reads)] = &[
    ("rounds", "options", reads_as::<RoundOptions>),
    ("rounds", "colours", reads_as_or_null::<Vec<TableColours>>),
    ("results", "seats", reads_as::<Vec<SeatResult>>),
    ("cases", "evidence_links", reads_as::<Vec<String>>),
    ("cases", "requested_remedies", reads_as::<Vec<Remedy>>),
    ("cases", "remedy", reads_as_or_null::<Vec<AppliedRemedy>>),
    ("votes", "remedy", reads_as_or_null::<Vec<Remedy>>),
    ("result_reports", "body", reads_as::<ReportedResult>),
];

/// Every JSON column the service reads as a type reads as it (422 naming each row and column at
/// fault, at most 20): the tournament's ruleset with its overrides, a round's options and
/// colours, a result's seats, a case's evidence and remedies, a vote's remedy, a report's body.
pub fn check_types(content: &ArchiveContent) -> Result<(), ApiError> {
    let mut errors = Vec::new();
    let t = &content.tournament;
    let at = format!("{AT}.content.tournament");
    let column = |c: &str| t.get(c).cloned().unwrap_or(Value::Null);
    match serde_json::from_value::<Preset>(column("ruleset")) {
        Err(e) => errors.push(FieldError::new(format!("{at}.ruleset"), e.to_string())),
        Ok(preset) => {
            let overrides =
                serde_json::from_value::<Option<RulesetOverride>>(column("ruleset_overrides"))
                    .map_err(|e| e.to_string())
                    .and_then(|o| TournamentRules::new(preset, o.unwrap_or_default()));
            if let Err(e) = overrides {
                errors.push(FieldError::new(format!("{at}.ruleset_overrides"), e));
            }
        }
    }
    for (section, column, reads) in TYPED {
        for (i, row) in rows(content, section).iter().enumerate() {
            if let Err(e) = reads(row.get(*column).unwrap_or(&Value::Null)) {
                let at = format!("{AT}.content.{section}[{i}].{column}");
                errors.push(FieldError::new(at, e));
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        errors.truncate(20);
        Err(ApiError::Validation(errors))
    }
}

/// A draw's seed (64 hex digits) checked against its published commitment (the hex SHA-256 of
/// the seed's 32 bytes).
pub fn seed_against_commitment(
    seed: Option<&str>,
    commitment: Option<&str>,
) -> Result<Seed, String> {
    let seed_bytes =
        DrawRng::seed_from_hex(seed.unwrap_or_default()).ok_or("the seed is not 64 hex digits")?;
    if commitment != Some(commitment_of(&seed_bytes).as_str()) {
        return Err("the seed does not match its published commitment".into());
    }
    Ok(seed_bytes)
}

/// The commitment of a seed: the hex SHA-256 of its 32 bytes.
pub fn commitment_of(seed: &Seed) -> String {
    hex::encode(Sha256::digest(seed))
}

/// The full input of an archived draw attempt of round `number`: when it was stored short, its
/// history and plan rebuilt from the archive's earlier rounds (as the service rebuilds them).
pub fn archived_input(
    content: &ArchiveContent,
    number: i64,
    row: &Row,
) -> Result<DrawInput, String> {
    let mut stored = row.get("draw_input").cloned().unwrap_or(Value::Null);
    let short = stored
        .as_object_mut()
        .and_then(|o| o.remove(FROM_EARLIER_ROUNDS))
        .is_some();
    let mut input: DrawInput = serde_json::from_value(stored).map_err(|e| e.to_string())?;
    if short {
        let t = &content.tournament;
        let preset: Preset = serde_json::from_value(t.get("ruleset").cloned().unwrap_or_default())
            .map_err(|e| format!("the tournament's ruleset: {e}"))?;
        let overrides = t.get("ruleset_overrides").cloned().unwrap_or_default();
        let ruleset = Ruleset::for_tournament(preset, &overrides)?;
        let mut earlier: Vec<(i64, Draw)> = Vec::new();
        for r in &content.rounds {
            let n = r.get("number").and_then(Value::as_i64).unwrap_or(i64::MAX);
            if n < number {
                let d = serde_json::from_value(r.get("draw").cloned().unwrap_or_default())
                    .map_err(|e| format!("round {n}'s draw: {e}"))?;
                earlier.push((n, d));
            }
        }
        earlier.sort_by_key(|(n, _)| *n);
        input.history = history_of(&ruleset, earlier.iter().map(|(_, d)| d));
        input.plan = earlier.last().and_then(|(_, d)| d.plan.clone());
    }
    Ok(input)
}

/// How a recomputed draw differs from the published one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redrawn {
    /// `the same tables but another report` or `other tables`.
    pub seating: &'static str,
    /// The recomputed draw in canonical JSON.
    pub recomputed: String,
}

/// The seating engine run again on `input` with a [`DrawRng`] keyed by `seed`, compared in
/// canonical JSON with the published `draw`: `Ok` when they are the same, else how they differ
/// (`Err` with a text when the engine refuses the input).
pub fn redraw(input: &DrawInput, seed: Seed, draw: &Value) -> Result<Option<Redrawn>, String> {
    let mut rng = DrawRng::from_seed(seed);
    let recomputed = draw_round(input, &mut rng).map_err(|e| e.to_string())?;
    let (mut a, mut b) = (String::new(), String::new());
    canonical(
        &serde_json::to_value(&recomputed).map_err(|e| e.to_string())?,
        &mut a,
    );
    canonical(draw, &mut b);
    if a == b {
        return Ok(None);
    }
    let published = serde_json::from_value::<Draw>(draw.clone()).map(|d| d.tables);
    let seating = if published.is_ok_and(|t| t == recomputed.tables) {
        "the same tables but another report"
    } else {
        "other tables"
    };
    Ok(Some(Redrawn {
        seating,
        recomputed: a,
    }))
}

/// The number of the archived round a draw attempt belongs to.
pub fn round_number_of(content: &ArchiveContent, row: &Row) -> Result<i64, String> {
    let round_id = row.get("round_id").and_then(Value::as_i64);
    let round = content
        .rounds
        .iter()
        .find(|r| id_of(r) == round_id)
        .ok_or("no such round")?;
    Ok(round
        .get("number")
        .and_then(Value::as_i64)
        .ok_or("round without number")?)
}

fn draw_check(content: &ArchiveContent, i: usize, row: &Row) -> Result<(), String> {
    let number = round_number_of(content, row)?;
    let seed_bytes = seed_against_commitment(
        row.get("seed").and_then(Value::as_str),
        row.get("seed_commitment").and_then(Value::as_str),
    )?;
    let input = archived_input(content, number, row)?;
    if let Some(Redrawn {
        seating,
        recomputed: a,
    }) = redraw(&input, seed_bytes, row.get("draw").unwrap_or(&Value::Null))?
    {
        // The digest (and, on import, the signature) held before this check: the file is as
        // its writer made it, so a difference lies between the writing service's seating and
        // this one's, not in the file (issue 37 item 4).
        return Err(format!(
            "recomputing draw attempt {i} from its seed and stored input with this service's \
             seating engine gives {seating} than the archived draw. The archive is whole (its \
             digest holds), so the service that wrote it and this one seat differently: please \
             report it with the archive (recomputed: {a})"
        ));
    }
    Ok(())
}

/// Each round's current draw and seed are its last drawn attempt's (`None`), else the index of
/// the first round that is not.
pub fn round_not_last_attempt(content: &ArchiveContent) -> Option<usize> {
    content.rounds.iter().position(|round| {
        let last = content
            .round_draws
            .iter()
            .filter(|d| d.get("round_id") == round.get("id"))
            .max_by_key(|d| d.get("attempt").and_then(Value::as_i64));
        !last.is_some_and(|d| {
            d.get("draw") == round.get("draw") && d.get("seed") == round.get("seed")
        })
    })
}

/// Every draw attempt follows from its seed and input (the seating engine run again), and each
/// round's current draw is its last attempt.
pub fn check_draws(content: &ArchiveContent) -> Result<(), ApiError> {
    for (i, row) in content.round_draws.iter().enumerate() {
        draw_check(content, i, row).map_err(|message| {
            ApiError::field(format!("{AT}.content.round_draws[{i}].draw"), message)
        })?;
    }
    if let Some(i) = round_not_last_attempt(content) {
        return Err(ApiError::field(
            format!("{AT}.content.rounds[{i}].draw"),
            "the round's draw is not its last drawn attempt",
        ));
    }
    Ok(())
}

/// Reads an archived row's column as `T` (`None`: absent or not a `T`).
fn column<T: serde::de::DeserializeOwned>(row: &Row, c: &str) -> Option<T> {
    serde_json::from_value(row.get(c).cloned().unwrap_or(Value::Null)).ok()
}

/// One archived result (the `i`th) as the results route would have taken it: against its
/// round's draw and the tournament's ruleset, with the route's own check
/// ([`check_table_result`]); its problems named under `archive.content.results[i]`.
fn result_check(ruleset: &Ruleset, content: &ArchiveContent, i: usize) -> Result<(), ApiError> {
    use crate::services::running::results::{
        check_table_result, require_published, seats_out, version_reason, EnterResult,
    };
    let at = format!("{AT}.content.results[{i}]");
    let row = &content.results[i];
    let round_id = row.get("round_id").and_then(Value::as_i64);
    let round = content.rounds.iter().find(|r| id_of(r) == round_id);
    let round = round.ok_or_else(|| ApiError::field(format!("{at}.round_id"), "no such round"))?;
    let number: i32 = column(round, "number").unwrap_or_default();
    // A draft round takes no result (the route's 409, named here on the round the row names).
    let status = round.get("status").and_then(Value::as_str);
    let status = status
        .and_then(RoundStatus::parse)
        .ok_or_else(|| ApiError::field(format!("{at}.round_id"), "a round without its status"))?;
    require_published(number, status).map_err(|e| match e {
        ApiError::Conflict(why) => ApiError::field(format!("{at}.round_id"), why),
        e => e,
    })?;
    let (method, draw) = match (column(round, "method"), column::<Draw>(round, "draw")) {
        (Some(m), Some(d)) => (m, d),
        _ => {
            return Err(ApiError::field(
                format!("{at}.round_id"),
                "a round without its draw",
            ))
        }
    };
    let table: i32 = column(row, "table_number")
        .ok_or_else(|| ApiError::field(format!("{at}.table_number"), "must be a table number"))?;
    let seats: Vec<SeatResult> = column(row, "seats").unwrap_or_default();
    let input = EnterResult {
        seats: seats_out(&seats),
        double_crash: column(row, "double_crash"),
        reason: column(row, "reason"),
        playoff_winner: column(row, "playoff_winner"),
    };
    let mut errors = match check_table_result(ruleset, (number, method), &draw, table, &input) {
        Ok(_) => Vec::new(),
        Err(ApiError::Validation(errors)) => errors,
        Err(ApiError::NotFound(why)) => vec![FieldError::new("table_number", why)],
        Err(e) => return Err(e),
    };
    // A version after the first is a correction, stored while the one before was in force.
    let version: i32 = column(row, "version").unwrap_or(1);
    if let Err(e) = version_reason(version - 1, input.reason.as_deref()) {
        match e {
            ApiError::Validation(found) => errors.extend(found),
            e => return Err(e),
        }
    }
    if errors.is_empty() {
        return Ok(());
    }
    // The archive's seats name their player `player` (the stored `SeatResult`).
    let archived = |f: &str| f.replace(".player_id", ".player");
    errors
        .iter_mut()
        .for_each(|e| e.field = format!("{at}.{}", archived(&e.field)));
    Err(ApiError::Validation(errors))
}

/// Every version of every table's result is one the results route would have taken (422
/// naming the archive's row and field at fault, at most 20): in a round that is not a draft
/// (`round_id`), every seated player of the table once and nobody else, 1 to 8 seats, scores,
/// bonuses, penalties and times within the route's bounds, outcomes and seat counts the ruleset
/// scores, a play-off winner only in a cup match, a reason for a correction (a version after
/// the first: `reason`).
/// The tournament's ruleset was read by [`check_types`] first.
pub fn check_results(content: &ArchiveContent) -> Result<(), ApiError> {
    let t = &content.tournament;
    let (Some(preset), Some(overrides)) = (
        column::<Preset>(t, "ruleset"),
        column::<Option<RulesetOverride>>(t, "ruleset_overrides"),
    ) else {
        return Ok(());
    };
    let rules = TournamentRules::new(preset, overrides.unwrap_or_default())
        .map_err(|e| ApiError::field(format!("{AT}.content.tournament.ruleset_overrides"), e))?;
    let mut errors = Vec::new();
    for i in 0..content.results.len() {
        match result_check(&rules.ruleset, content, i) {
            Ok(()) => {}
            Err(ApiError::Validation(found)) => errors.extend(found),
            Err(e) => return Err(e),
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        errors.truncate(20);
        Err(ApiError::Validation(errors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(v: Value) -> Row {
        v.as_object().cloned().unwrap()
    }

    fn fields(content: &ArchiveContent) -> Vec<String> {
        match check_types(content) {
            Ok(()) => Vec::new(),
            Err(ApiError::Validation(errors)) => errors.into_iter().map(|e| e.field).collect(),
            Err(e) => panic!("{e:?}"),
        }
    }

    #[test]
    fn every_typed_column_reads_as_its_type_or_is_named() {
        let mut content = ArchiveContent {
            tournament: row(json!({"ruleset": "agricola_norway", "ruleset_overrides": {}})),
            votes: vec![row(json!({"remedy": null}))],
            ..Default::default()
        };
        assert_eq!(fields(&content), Vec::<String>::new());
        content.tournament = row(json!({"ruleset": "chess", "ruleset_overrides": {}}));
        assert_eq!(fields(&content), ["archive.content.tournament.ruleset"]);
        content.tournament = row(json!({"ruleset": "agricola_norway", "ruleset_overrides": 7}));
        assert_eq!(
            fields(&content),
            ["archive.content.tournament.ruleset_overrides"]
        );
        content.tournament = row(json!({"ruleset": "agricola_norway", "ruleset_overrides": null}));
        for (section, column, _) in TYPED {
            let mut bad = content.clone();
            let mut r = Row::new();
            r.insert((*column).into(), json!(5));
            bad.section_mut(section).unwrap().push(r);
            let at = format!(
                "archive.content.{section}[{}].{column}",
                rows(&bad, section).len() - 1
            );
            assert!(fields(&bad).contains(&at), "{at}: {:?}", fields(&bad));
        }
    }
}
