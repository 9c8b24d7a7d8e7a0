//! A tournament's standings after a round, recomputed from the stored results (so a correction
//! shows at once), as rows for JSON and CSV.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::auth::MaybeCaller;
use crate::db;
use crate::db::PgConnection;
use crate::domain::scoring::standings::{TieBreakValue, TieStatus};
use crate::domain::scoring::Purpose;
use crate::domain::status::TournamentStatus;
use crate::domain::PlayerId;
use crate::error::ApiError;
use crate::infra::standings_cache::{self, StandingsCache};
use crate::services::access::load_visible;
use crate::services::ratings::ListFormat;
use crate::services::running::snapshot::Snapshot;

/// What the ranking is for; each has its own tie-break order (seed 000, tie-breaks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StandingsPurpose {
    /// To seat the next round: (c) the previous game's points, then lot.
    Seeding,
    /// To qualify for the final: (b) most high placements.
    Qualification,
    /// The final ranking: (b) the placement in the final round(s).
    Final,
}

impl From<StandingsPurpose> for Purpose {
    fn from(p: StandingsPurpose) -> Purpose {
        match p {
            StandingsPurpose::Seeding => Purpose::Seeding,
            StandingsPurpose::Qualification => Purpose::Qualification,
            StandingsPurpose::Final => Purpose::Final,
        }
    }
}

/// One tie-break value: a number, or a sequence compared element by element (placements;
/// `null` for a final round the player did not play, which ranks after every place).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(untagged)]
pub enum TieBreakValueOut {
    Number(f64),
    Sequence(Vec<Option<f64>>),
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct StandingsQuery {
    /// Standings after this round (default: the last completed round).
    #[param(minimum = 0, maximum = 1000)]
    pub after_round: Option<u32>,
    /// `final` (default), `qualification` or `seeding`.
    pub purpose: Option<StandingsPurpose>,
    /// Kept for curl users of the past: `csv` (or `Accept: text/csv`) answers the CSV here too.
    /// Not in the document: the CSV has its own operation (`/standings.csv`), so that generated
    /// clients keep the two representations apart.
    #[param(ignore)]
    pub format: Option<ListFormat>,
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
    /// Every tie-break value of the purpose's order, by key (`tp`, `high_placements`, ...).
    pub tie_breaks: BTreeMap<String, TieBreakValueOut>,
    pub placement_group: Option<u32>,
    pub withdrawn: bool,
    pub stopped_before_round: Option<u32>,
    /// All results voided (Tantrix: more than two forfeits).
    pub voided: bool,
    /// Set where a tie was left or broken by lot, or needs a play-off.
    pub tie: Option<TieStatus>,
}

/// The standings after a round.
#[derive(Debug, Serialize, ToSchema)]
pub struct StandingsOut {
    pub after_round: u32,
    pub purpose: StandingsPurpose,
    /// The rounds counted, in order.
    pub rounds: Vec<u32>,
    pub rows: Vec<StandingOut>,
}

fn purpose_out(p: Purpose) -> StandingsPurpose {
    match p {
        Purpose::Seeding => StandingsPurpose::Seeding,
        Purpose::Qualification => StandingsPurpose::Qualification,
        Purpose::Final => StandingsPurpose::Final,
    }
}

/// A tie-break value as shown. Places in final rounds past the table size are the rank given to
/// a final the player did not play (withdrawn before it): shown as `null`, not as a place.
fn tie_break_out(key: &str, v: &TieBreakValue, per_table: usize) -> TieBreakValueOut {
    match v {
        TieBreakValue::Number(p) => TieBreakValueOut::Number(p.rounded()),
        TieBreakValue::Sequence(s) => TieBreakValueOut::Sequence(
            s.iter()
                .map(|p| p.rounded())
                .map(|p| {
                    let not_played = key == "final_round_places" && p > per_table as f64;
                    (!not_played).then_some(p)
                })
                .collect(),
        ),
    }
}

/// A tie-break value in a CSV cell: a number, or a sequence separated by spaces.
fn csv_value(v: &TieBreakValueOut) -> String {
    match v {
        TieBreakValueOut::Sequence(items) => items
            .iter()
            .map(|i| i.map(|x| x.to_string()).unwrap_or_else(|| "-".into()))
            .collect::<Vec<_>>()
            .join(" "),
        TieBreakValueOut::Number(n) => n.to_string(),
    }
}

fn to_csv(s: &StandingsOut, keys: &[String]) -> String {
    let mut out = String::from("place,player_id,player_name,tp");
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
            crate::infra::csv::field(&row.player_name),
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
            row.tie
                .and_then(|t| serde_json::to_value(t).ok())
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
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

/// The standings after `after_round` (default: the last completed round) for `purpose`, of a
/// tournament already loaded and checked visible to the caller.
pub fn standings_of(
    conn: &mut PgConnection,
    t: crate::db::models::Tournament,
    after_round: Option<u32>,
    purpose: Purpose,
) -> Result<StandingsTable, ApiError> {
    let tid = t.id;
    let public = t.status != TournamentStatus::Draft;
    let snap = Snapshot::load(conn, t)?;
    if snap.ruleset.format == crate::domain::scoring::Format::TeamDuplicate {
        return Err(ApiError::Conflict(format!(
            "a team duplicate event ranks teams by their matches: see \
             /api/v1/tournaments/{tid}/team-standings"
        )));
    }
    let s = snap.standings(after_round, purpose)?;
    let per_table = snap.ruleset.players_per_table as usize;
    let ids: Vec<i64> = s.rows.iter().map(|r| r.player.0).collect();
    let names: std::collections::HashMap<i64, String> =
        db::players::names_of(conn, &ids.iter().copied().map(PlayerId).collect::<Vec<_>>())?
            .into_iter()
            .map(|(p, name)| (p.0, name))
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
        purpose: purpose_out(s.purpose),
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
                tie_breaks: r
                    .tie_breaks
                    .iter()
                    .map(|(k, v)| (k.clone(), tie_break_out(k, v, per_table)))
                    .collect(),
                placement_group: r.placement_group,
                withdrawn: r.withdrawn,
                stopped_before_round: r.stopped_before_round,
                voided: r.voided,
                tie: r.tie,
            })
            .collect(),
    };
    Ok(StandingsTable { public, out, keys })
}

/// One team's line of a team event.
#[derive(Debug, Serialize, ToSchema)]
pub struct TeamStandingOut {
    /// 1 = best; teams out in the same knockout round share a place.
    pub place: u32,
    pub team_number: u32,
    pub team_name: String,
    /// Matches with a result (both tables entered).
    pub played: u32,
    pub won: u32,
    pub lost: u32,
    /// Knockout: the round the team went out in; none while still in, and for the champion.
    pub out_in_round: Option<u32>,
}

/// The standings of a 2v2 team duplicate event (seed 002): a best of three, or a knockout.
#[derive(Debug, Serialize, ToSchema)]
pub struct TeamStandingsOut {
    pub format: crate::domain::scoring::team_standings::TeamEventFormat,
    /// Best of 3: a team has two wins (no game 3 at 2-0). Knockout: one team is left.
    pub decided: bool,
    pub rows: Vec<TeamStandingOut>,
}

/// The team standings of a team event, and whether anyone may see them (not a draft); 409 for
/// an event of another format. Read as of one instant (a result committed meanwhile is in
/// every row or in none).
pub fn team_standings(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
) -> Result<(bool, TeamStandingsOut), ApiError> {
    crate::db::snapshot(conn, |conn| team_standings_at_once(conn, caller, tid))
}

fn team_standings_at_once(
    conn: &mut PgConnection,
    caller: &MaybeCaller,
    tid: i64,
) -> Result<(bool, TeamStandingsOut), ApiError> {
    let t = load_visible(conn, caller, tid)?;
    let public = t.status != TournamentStatus::Draft;
    let snap = Snapshot::load(conn, t)?;
    if snap.ruleset.format != crate::domain::scoring::Format::TeamDuplicate {
        return Err(ApiError::Conflict(
            "team standings are for team duplicate events; this tournament ranks players: see \
             /standings"
                .into(),
        ));
    }
    let (format, table) = snap.team_table()?;
    let rows = table
        .rows
        .into_iter()
        .map(|r| TeamStandingOut {
            place: r.place,
            team_number: r.team,
            team_name: snap
                .teams
                .iter()
                .find(|t| t.number as u32 == r.team)
                .map(|t| t.name.clone())
                .unwrap_or_default(),
            played: r.played,
            won: r.won,
            lost: r.lost,
            out_in_round: r.out_in_round,
        })
        .collect();
    Ok((
        public,
        TeamStandingsOut {
            format,
            decided: table.decided,
            rows,
        },
    ))
}

// --- kept standings -----------------------------------------------------------------------------

/// What a standings read answers.
pub struct StandingsRead {
    /// Derived from the stamp and the query: the same while nothing changed.
    pub etag: String,
    /// Anyone may see the tournament (not a draft).
    pub public: bool,
    /// The body, or `None` when the caller's `If-None-Match` named `etag` (a 304).
    pub body: Option<Arc<[u8]>>,
}

/// The standings as the caller may read them: 404 for a draft the caller may not see; the
/// ETag from the stamp (`etag_of(stamp-and-query)`); no body when `not_modified(etag)`; else
/// the kept body if the stamp still matches, or a freshly computed one (then kept).
#[allow(clippy::too_many_arguments)]
pub fn read_kept(
    conn: &mut PgConnection,
    cache: &StandingsCache,
    caller: &MaybeCaller,
    tid: i64,
    after_round: Option<u32>,
    purpose: Purpose,
    csv: bool,
    etag_of: impl Fn(&str) -> String,
    not_modified: impl Fn(&str) -> bool,
) -> Result<StandingsRead, ApiError> {
    let t = load_visible(conn, caller, tid)?;
    let public = t.status != TournamentStatus::Draft;
    let stamp = standings_cache::stamp(conn, tid)?;
    let key = format!("standings/1 t={tid} after={after_round:?} purpose={purpose:?} csv={csv}");
    let etag = etag_of(&format!("{key} stamp={stamp}"));
    if not_modified(&etag) {
        return Ok(StandingsRead {
            etag,
            public,
            body: None,
        });
    }
    let body = match cache.get(&key, &stamp) {
        Some(body) => body,
        None => {
            // Computed from one snapshot: the six reads of its inputs are of one instant.
            let table =
                crate::db::snapshot(conn, |conn| standings_of(conn, t, after_round, purpose))?;
            let body: Arc<[u8]> = if csv {
                table.to_csv().into_bytes().into()
            } else {
                serde_json::to_vec(&table.out)
                    .map_err(|e| ApiError::Internal(e.to_string()))?
                    .into()
            };
            cache.put(key, stamp, body.clone());
            body
        }
    };
    Ok(StandingsRead {
        etag,
        public,
        body: Some(body),
    })
}
