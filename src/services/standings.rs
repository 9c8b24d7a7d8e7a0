//! A tournament's standings after a round, recomputed from the stored results (so a correction
//! shows at once), as rows for JSON and CSV.

use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::auth::MaybeCaller;
use crate::db::schema::players;
use crate::domain::scoring::standings::{TieBreakValue, TieStatus};
use crate::domain::scoring::Purpose;
use crate::domain::status::TournamentStatus;
use crate::error::ApiError;
use crate::services::access::load_visible;
use crate::services::snapshot::Snapshot;

/// What the ranking is for (each has its own tie-break order).
#[derive(Debug, Clone, Copy, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PurposeParam {
    Seeding,
    Qualification,
    Final,
}

/// JSON (default) or CSV.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FormatParam {
    Json,
    Csv,
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct StandingsQuery {
    /// Standings after this round (default: the last completed round).
    #[param(minimum = 0, maximum = 1000)]
    pub after_round: Option<u32>,
    /// `final` (default), `qualification` or `seeding`.
    pub purpose: Option<PurposeParam>,
    /// `json` (default) or `csv`; `Accept: text/csv` also gives CSV.
    pub format: Option<FormatParam>,
}

/// One line of the standings.
#[derive(Debug, Serialize, ToSchema)]
pub struct StandingOut {
    pub place: u32,
    pub player_id: i64,
    pub player_name: String,
    /// Total tournament points, weights applied (rounded to 2 decimals).
    pub tp: f64,
    /// The exact total (fractions kept: 19/3).
    #[schema(example = "19/3")]
    pub tp_exact: String,
    /// TP per counted round; null where the player did not play.
    pub tp_by_round: Vec<Option<f64>>,
    /// Every tie-break value of the purpose's order, by key.
    #[schema(value_type = Object)]
    pub tie_breaks: serde_json::Value,
    pub placement_group: Option<u32>,
    pub withdrawn: bool,
    pub stopped_before_round: Option<u32>,
    /// All results voided (Tantrix: more than two forfeits).
    pub voided: bool,
    /// `lot` (tied, only a lot separates), `decided_by_lot` or `playoff_needed`.
    pub tie: Option<String>,
}

/// The standings after a round.
#[derive(Debug, Serialize, ToSchema)]
pub struct StandingsOut {
    pub after_round: u32,
    #[schema(example = "final")]
    pub purpose: String,
    /// The rounds counted, in order.
    pub rounds: Vec<u32>,
    pub rows: Vec<StandingOut>,
}

fn purpose_name(p: Purpose) -> &'static str {
    match p {
        Purpose::Seeding => "seeding",
        Purpose::Qualification => "qualification",
        Purpose::Final => "final",
    }
}

fn tie_name(t: TieStatus) -> &'static str {
    match t {
        TieStatus::Lot => "lot",
        TieStatus::DecidedByLot => "decided_by_lot",
        TieStatus::PlayoffNeeded => "playoff_needed",
    }
}

fn tie_break_json(v: &TieBreakValue) -> serde_json::Value {
    match v {
        TieBreakValue::Number(p) => serde_json::json!(p.rounded()),
        TieBreakValue::Sequence(s) => s.iter().map(|p| p.rounded()).collect(),
    }
}

/// A tie-break value in a CSV cell: a number, or a sequence separated by spaces.
fn csv_value(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Array(items) => items
            .iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    }
}

fn to_csv(s: &StandingsOut, keys: &[String]) -> String {
    let mut out = String::from("place,player_id,player,tp");
    for r in &s.rounds {
        out.push_str(&format!(",round_{r}"));
    }
    for k in keys {
        out.push(',');
        out.push_str(k);
    }
    out.push_str(",withdrawn,stopped_before_round,voided,tie\n");
    for row in &s.rows {
        out.push_str(&format!(
            "{},{},{},{:.2}",
            row.place,
            row.player_id,
            crate::services::csv::field(&row.player_name),
            row.tp
        ));
        for tp in &row.tp_by_round {
            out.push(',');
            if let Some(tp) = tp {
                out.push_str(&format!("{tp:.2}"));
            }
        }
        for k in keys {
            out.push(',');
            if let Some(v) = row.tie_breaks.get(k) {
                // Numbers, or numbers separated by spaces: nothing to quote or neutralise.
                out.push_str(&csv_value(v));
            }
        }
        out.push_str(&format!(
            ",{},{},{},{}\n",
            row.withdrawn,
            row.stopped_before_round
                .map(|r| r.to_string())
                .unwrap_or_default(),
            row.voided,
            row.tie.as_deref().unwrap_or("")
        ));
    }
    out
}

/// The standings of a tournament, with whether anyone may see them (not a draft) and the
/// tie-break keys in the purpose's order (the CSV columns).
pub struct StandingsTable {
    pub public: bool,
    pub out: StandingsOut,
    pub keys: Vec<String>,
}

impl StandingsTable {
    /// The standings as CSV: one line per player, a column per round and per tie-break key.
    pub fn to_csv(&self) -> String {
        to_csv(&self.out, &self.keys)
    }
}

/// The standings after `after_round` (default: the last completed round) for `purpose`.
pub fn standings(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
    after_round: Option<u32>,
    purpose: Purpose,
) -> Result<StandingsTable, ApiError> {
    let t = load_visible(conn, caller, tid)?;
    let public = t.status != TournamentStatus::Draft.as_str();
    let snap = Snapshot::load(conn, t)?;
    let s = snap.standings(after_round, purpose)?;
    let ids: Vec<i64> = s.rows.iter().map(|r| r.player.0).collect();
    let names: std::collections::HashMap<i64, String> = players::table
        .filter(players::id.eq_any(&ids))
        .select((players::id, players::name))
        .load::<(i64, String)>(conn)?
        .into_iter()
        .collect();
    // TP has its own column.
    let keys: Vec<String> = s
        .rows
        .first()
        .map(|r| {
            r.tie_breaks
                .keys()
                .filter(|k| *k != "tp")
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let out = StandingsOut {
        after_round: s.after_round,
        purpose: purpose_name(s.purpose).into(),
        rounds: s.rounds.clone(),
        rows: s
            .rows
            .iter()
            .map(|r| StandingOut {
                place: r.place,
                player_id: r.player.0,
                player_name: names.get(&r.player.0).cloned().unwrap_or_default(),
                tp: r.tp.rounded(),
                tp_exact: r.tp.exact(),
                tp_by_round: r
                    .tp_by_round
                    .iter()
                    .map(|p| p.map(|p| p.rounded()))
                    .collect(),
                tie_breaks: serde_json::Value::Object(
                    r.tie_breaks
                        .iter()
                        .map(|(k, v)| (k.clone(), tie_break_json(v)))
                        .collect(),
                ),
                placement_group: r.placement_group,
                withdrawn: r.withdrawn,
                stopped_before_round: r.stopped_before_round,
                voided: r.voided,
                tie: r.tie.map(|t| tie_name(t).to_string()),
            })
            .collect(),
    };
    Ok(StandingsTable { public, out, keys })
}
