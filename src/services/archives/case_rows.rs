//! An archive's cases and votes held to the checks the case routes make of what they store
//! (the very functions of `services::cases`, so each rule lives once): a complaint as
//! `POST .../cases` takes it, an appeal as `POST .../cases/{id}/appeal` does, a decided case's
//! reason and remedies as a ruling's, a vote as `POST .../cases/{id}/votes` takes it. Problems
//! are named by the archive's columns (`archive.content.cases[0].evidence_links[3]`,
//! `archive.content.votes[1].reason`).
//!
//! Not held: the opening request's "at most 10 respondents". The referees and organisers add
//! respondents to an open case one at a time afterwards (`POST .../cases/{id}/parties`, no cap),
//! so a stored case may hold more, and an archive cannot tell which were named at the opening.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{ArchiveContent, Row};
use crate::domain::cases::CaseKind;
use crate::domain::entries::AppliedRemedy;
use crate::error::{ApiError, FieldError};
use crate::services::cases::{
    check_appeal, check_decision, check_open_case, check_vote, Appeal, CaseSubject, CastVote,
    Decide, Evidence, OpenCase, Remedy, Verdict,
};

const AT: &str = "archive.content";

/// An archived row's column as `T` (`None`: null, absent or not a `T`; the types of the JSON
/// columns were read by `checks::check_types` first).
fn column<T: DeserializeOwned>(row: &Row, c: &str) -> Option<T> {
    serde_json::from_value(row.get(c).cloned().unwrap_or(Value::Null)).ok()
}

/// A route's field named by `rename` under `at`, into `errors` (any other error returned).
fn named(
    found: Result<(), ApiError>,
    at: &str,
    rename: &dyn Fn(&str) -> String,
    errors: &mut Vec<FieldError>,
) -> Result<(), ApiError> {
    match found {
        Ok(()) => Ok(()),
        Err(ApiError::Validation(found)) => {
            errors.extend(found.into_iter().map(|mut e| {
                e.field = format!("{at}.{}", rename(&e.field));
                e
            }));
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// `field` with its leading `from` (a whole name, maybe indexed or with subfields) as `to`.
fn renamed(field: &str, pairs: &[(&str, &str)]) -> String {
    for (from, to) in pairs {
        if let Some(rest) = field.strip_prefix(from) {
            if rest.is_empty() || rest.starts_with('[') || rest.starts_with('.') {
                return format!("{to}{rest}");
            }
        }
    }
    field.to_string()
}

/// The opening body's fields as a case's columns.
fn case_column(field: &str) -> String {
    let pairs = [
        ("evidence.text", "evidence_text"),
        ("evidence.links", "evidence_links"),
        ("remedies", "requested_remedies"),
        ("round", "round_number"),
        ("table", "table_number"),
    ];
    renamed(field, &pairs)
}

/// A ruling's fields as a decided case's columns (its remedies are the orders it applied).
fn decision_column(field: &str) -> String {
    let indexed = field
        .strip_prefix("remedies[")
        .and_then(|rest| rest.split_once(']'))
        .map(|(i, rest)| format!("remedy[{i}].order{rest}"));
    indexed.unwrap_or_else(|| {
        renamed(
            field,
            &[("reason", "decision_reason"), ("remedies", "remedy")],
        )
    })
}

/// The `i`th archived case as the routes that made it check it: opened (or appealed), then, if
/// decided, ruled.
fn case_check(i: usize, row: &Row, errors: &mut Vec<FieldError>) -> Result<(), ApiError> {
    let at = format!("{AT}.cases[{i}]");
    let text = |c: &str| row.get(c).and_then(Value::as_str);
    let Some(kind) = text("kind").and_then(CaseKind::parse) else {
        errors.push(FieldError::new(
            format!("{at}.kind"),
            "a complaint or an appeal",
        ));
        return Ok(());
    };
    let Some(subject) = text("subject").and_then(CaseSubject::parse) else {
        let why = "a table, a result, a penalty or conduct";
        errors.push(FieldError::new(format!("{at}.subject"), why));
        return Ok(());
    };
    let statement: String = column(row, "statement").unwrap_or_default();
    let evidence = Evidence {
        text: column(row, "evidence_text"),
        links: column(row, "evidence_links"),
    };
    let remedies: Option<Vec<Remedy>> = column(row, "requested_remedies");
    let opened = match kind {
        CaseKind::Appeal => check_appeal(&Appeal {
            statement,
            evidence: Some(evidence),
            remedies,
        })
        .map(drop),
        CaseKind::Complaint => check_open_case(&OpenCase {
            subject,
            round: column(row, "round_number"),
            table: column(row, "table_number"),
            penalty_id: column(row, "penalty_id"),
            statement,
            evidence: Some(evidence),
            respondents: None,
            remedies,
            complainant_player_id: None,
        })
        .map(drop),
    };
    named(opened, &at, &case_column, errors)?;
    let Some(outcome) = text("outcome") else {
        return Ok(());
    };
    let verdict = Verdict::ALL
        .iter()
        .find(|v| v.outcome().as_str() == outcome);
    let Some(&verdict) = verdict else {
        let why = "upheld, dismissed or remedied";
        errors.push(FieldError::new(format!("{at}.outcome"), why));
        return Ok(());
    };
    // An upheld case applies the remedies asked for (checked above); a ruling orders its own.
    let applied: Vec<AppliedRemedy> = column(row, "remedy").unwrap_or_default();
    let ruling = Decide {
        verdict,
        remedies: (verdict == Verdict::Remedy)
            .then(|| applied.into_iter().map(|a| a.order).collect()),
        reason: column(row, "decision_reason").unwrap_or_default(),
    };
    named(
        check_decision(&ruling).map(drop),
        &at,
        &decision_column,
        errors,
    )
}

/// The `j`th archived vote as the votes route checks it.
fn vote_check(j: usize, row: &Row, errors: &mut Vec<FieldError>) -> Result<(), ApiError> {
    let at = format!("{AT}.votes[{j}]");
    let Some(vote) = row
        .get("vote")
        .and_then(Value::as_str)
        .and_then(Verdict::parse)
    else {
        errors.push(FieldError::new(format!("{at}.vote"), "not a verdict"));
        return Ok(());
    };
    let input = CastVote {
        vote,
        remedies: column(row, "remedy"),
        reason: column(row, "reason").unwrap_or_default(),
    };
    let rename = |f: &str| renamed(f, &[("remedies", "remedy")]);
    named(check_vote(&input).map(drop), &at, &rename, errors)
}

/// Every case and vote of the archive is one the case routes would have stored (422 naming
/// each row and column at fault, at most 20): a statement of 1-4000 characters, evidence of at
/// most 4000 characters and 10 http(s) links of at most 500, a round (1-1000) and table
/// (1-10000) where its subject needs them, a penalty where it is about one, at most 5 remedies
/// asked for or ordered, each within the remedies' bounds, a decision's and a vote's reason of
/// 1-500 characters, remedies only with a `remedy` verdict and at least one then.
pub fn check_cases(content: &ArchiveContent) -> Result<(), ApiError> {
    let mut errors = Vec::new();
    for (i, row) in content.cases.iter().enumerate() {
        case_check(i, row, &mut errors)?;
    }
    for (j, row) in content.votes.iter().enumerate() {
        vote_check(j, row, &mut errors)?;
    }
    if errors.is_empty() {
        Ok(())
    } else {
        errors.truncate(20);
        Err(ApiError::Validation(errors))
    }
}
