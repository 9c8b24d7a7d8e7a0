//! Checks of case input: evidence, rounds and tables, remedies.

use super::*;

pub(super) fn check_evidence(check: &mut Check, field: &str, e: &Evidence) -> Evidence {
    let text = check.optional_text(&format!("{field}.text"), e.text.as_deref(), STATEMENT_MAX);
    let links = e.links.as_ref().map(|links| {
        check.ensure(
            links.len() <= 10,
            &format!("{field}.links"),
            "at most 10 links",
        );
        for (i, l) in links.iter().enumerate() {
            let rest = l
                .strip_prefix("https://")
                .or_else(|| l.strip_prefix("http://"));
            let ok = rest
                .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| (b'!'..=b'~').contains(&b)));
            if !ok {
                check.fail(
                    &format!("{field}.links[{i}]"),
                    "must be an http(s) URL without spaces",
                );
            } else if l.chars().count() > LINK_MAX {
                check.fail(
                    &format!("{field}.links[{i}]"),
                    format!("must be at most {LINK_MAX} characters"),
                );
            }
        }
        links.clone()
    });
    Evidence { text, links }
}

pub(super) fn check_round_table(
    check: &mut Check,
    field: &str,
    round: Option<i32>,
    table: Option<i32>,
) {
    if let Some(r) = round {
        check.range(&format!("{field}round"), r.into(), 1, 1000);
    }
    if let Some(t) = table {
        check.range(&format!("{field}table"), t.into(), 1, 10_000);
    }
}

pub(super) fn check_remedies(check: &mut Check, field: &str, remedies: &[Remedy]) {
    check.ensure(remedies.len() <= 5, field, "at most 5 remedies");
    for (i, r) in remedies.iter().enumerate() {
        let f = format!("{field}[{i}].");
        match r {
            Remedy::CorrectResult {
                round,
                table,
                seats,
                ..
            } => {
                check_round_table(check, &f, Some(*round), Some(*table));
                check.ensure(
                    (1..=8).contains(&seats.len()),
                    &format!("{f}seats"),
                    "1 to 8 seats",
                );
                for (j, s) in seats.iter().enumerate() {
                    let g = |name: &str| format!("{f}seats[{j}].{name}");
                    check.range(&g("score"), s.score, -1000, 10_000);
                    if let Some(b) = s.bonus {
                        check.range(&g("bonus"), b, 0, 1000);
                    }
                    if let Some(p) = s.penalty {
                        check.range(&g("penalty"), p, 0, 1000);
                    }
                    if let Some(t) = s.time_used_secs {
                        check.range(&g("time_used_secs"), t, 0, 86_400);
                    }
                }
            }
            Remedy::AnnulPenalty { .. } => {}
            Remedy::AddPenalty {
                round,
                table,
                points,
                ..
            } => {
                check_round_table(check, &f, *round, *table);
                if let Some(p) = points {
                    check.range(&format!("{f}points"), (*p).into(), 1, 1000);
                }
            }
            Remedy::ReplayTable { round, table } => {
                check_round_table(check, &f, Some(*round), Some(*table));
            }
        }
    }
}

pub(super) fn to_json<T: Serialize>(v: &T) -> Result<serde_json::Value, ApiError> {
    serde_json::to_value(v).map_err(|e| ApiError::Internal(e.to_string()))
}

// ---------------------------------------------------------------------------------------
// Loading
