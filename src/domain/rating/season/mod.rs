//! Ashes league seasons (seed 004, sections 1, 3 and 7; domain.md section 9): which tournaments
//! count, who is classified, season standings and winners, and the league winner.
//!
//! Time zones: dates are the pool's local calendar dates. The only instant needed is the
//! standings cutoff, 22:00 local time on a season's last day; the caller supplies the UTC offset
//! in force at that moment (e.g. from chrono-tz for `Europe/Warsaw`: +02:00 on 30 August, +01:00
//! on 31 December), so this module needs no time-zone database.

use super::leaderboard::{assign_ranks, ratings_at};
use super::pool::RatingPoolParams;
use super::replay::{PlayerIndex, RatingChange};
use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, NaiveTime, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

/// One season of a league year.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Season {
    /// Display name, e.g. "Sezon Iluzji".
    pub name: String,
    /// First day (local date), inclusive.
    pub first_day: NaiveDate,
    /// Last day (local date), inclusive.
    pub last_day: NaiveDate,
    /// The pool zone's UTC offset, in seconds, in force at 22:00 on `last_day`
    /// (Europe/Warsaw: 7200 in summer, 3600 in winter).
    pub cutoff_utc_offset_seconds: i32,
}

/// A calendar month.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct YearMonth {
    /// Year.
    pub year: i32,
    /// Month, 1-12.
    pub month: u32,
}

impl YearMonth {
    fn of(d: NaiveDate) -> Self {
        Self {
            year: d.year(),
            month: d.month(),
        }
    }
}

/// A problem with the season calendar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "error")]
pub enum SeasonError {
    /// `last_day` is before `first_day`.
    EndsBeforeStart {
        /// The season's name.
        season: String,
    },
    /// Two seasons share a day, or are not in date order.
    Overlap {
        /// The earlier season in the list.
        first: String,
        /// The later season in the list.
        second: String,
    },
    /// The UTC offset is not within ±24 hours (or the cutoff falls outside the supported
    /// date range).
    BadOffset {
        /// The season's name.
        season: String,
    },
}

impl fmt::Display for SeasonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SeasonError::EndsBeforeStart { season } => {
                write!(f, "season {season:?} ends before it starts")
            }
            SeasonError::Overlap { first, second } => write!(
                f,
                "season {second:?} must start after season {first:?} ends"
            ),
            SeasonError::BadOffset { season } => {
                write!(f, "season {season:?}: UTC offset must be within ±24 hours")
            }
        }
    }
}

impl std::error::Error for SeasonError {}

impl Season {
    /// Whether `day` is inside the season.
    pub fn contains(&self, day: NaiveDate) -> bool {
        self.first_day <= day && day <= self.last_day
    }

    /// The instant standings are taken: 22:00 local time on the last day ("do godziny 22
    /// ostatniego dnia trwania sezonu", seed 004 section 7).
    pub fn cutoff(&self) -> Result<DateTime<Utc>, SeasonError> {
        let offset = FixedOffset::east_opt(self.cutoff_utc_offset_seconds).ok_or_else(|| {
            SeasonError::BadOffset {
                season: self.name.clone(),
            }
        })?;
        let ten_pm = NaiveTime::from_hms_opt(22, 0, 0).expect("22:00 is a time");
        let local = self.last_day.and_time(ten_pm);
        offset
            .from_local_datetime(&local)
            .single()
            .map(|t| t.with_timezone(&Utc))
            .ok_or_else(|| SeasonError::BadOffset {
                season: self.name.clone(),
            })
    }

    /// The calendar months the season touches, in order (12.01-30.04 touches January to April).
    pub fn months(&self) -> Vec<YearMonth> {
        let mut out = Vec::new();
        let mut ym = YearMonth::of(self.first_day);
        let last = YearMonth::of(self.last_day);
        while ym <= last {
            out.push(ym);
            ym = if ym.month == 12 {
                YearMonth {
                    year: ym.year + 1,
                    month: 1,
                }
            } else {
                YearMonth {
                    year: ym.year,
                    month: ym.month + 1,
                }
            };
        }
        out
    }
}

/// Checks a league year's seasons: each ends on or after it starts, valid offsets, in date
/// order without overlap.
pub fn validate_seasons(seasons: &[Season]) -> Result<(), SeasonError> {
    for s in seasons {
        if s.last_day < s.first_day {
            return Err(SeasonError::EndsBeforeStart {
                season: s.name.clone(),
            });
        }
        s.cutoff()?;
    }
    for w in seasons.windows(2) {
        if w[1].first_day <= w[0].last_day {
            return Err(SeasonError::Overlap {
                first: w[0].name.clone(),
                second: w[1].name.clone(),
            });
        }
    }
    Ok(())
}

/// The 2017 Ashes league calendar (seed 004 section 1): Sezon Iluzji 12.01-30.04, Sezon Uroku
/// 05.05-30.08, Sezon Natury 01.09-31.12, with Europe/Warsaw offsets at each cutoff
/// (CEST +02:00, CEST +02:00, CET +01:00).
pub fn ashes_2017_seasons() -> Vec<Season> {
    let d = |m, day| NaiveDate::from_ymd_opt(2017, m, day).expect("valid date");
    vec![
        Season {
            name: "Sezon Iluzji".into(),
            first_day: d(1, 12),
            last_day: d(4, 30),
            cutoff_utc_offset_seconds: 7200,
        },
        Season {
            name: "Sezon Uroku".into(),
            first_day: d(5, 5),
            last_day: d(8, 30),
            cutoff_utc_offset_seconds: 7200,
        },
        Season {
            name: "Sezon Natury".into(),
            first_day: d(9, 1),
            last_day: d(12, 31),
            cutoff_utc_offset_seconds: 3600,
        },
    ]
}

// --- which tournaments count -----------------------------------------------------------------

/// The league's requirements for a tournament (seed 004 section 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeagueRules {
    /// Days between the announcement (local date) and the day of play, at least
    /// ("zgłoszony ... na 7 dni przed terminem"): 7.
    pub min_notice_days: u32,
    /// Participants, at least ("przynajmniej cztery osoby"): 4.
    pub min_players: u32,
    /// National-rank tournaments per organiser per season ("raz w trakcie każdego Sezonu"): 1.
    pub national_rank_per_organiser_per_season: u32,
}

impl LeagueRules {
    /// The 2017 Ashes league: 7 days, 4 players, one national-rank tournament.
    pub fn ashes_2017() -> Self {
        Self {
            min_notice_days: 7,
            min_players: 4,
            national_rank_per_organiser_per_season: 1,
        }
    }
}

/// A tournament submitted to the league. (The seed's third requirement, a league-approved
/// organiser or referee, is a permission the service checks, not an input here.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeagueTournament {
    /// The caller's tournament id.
    pub id: i64,
    /// Who organises it (user or organisation id).
    pub organiser: i64,
    /// When it was announced in the system, with the local UTC offset (RFC 3339); its local date
    /// is compared with `played_on`.
    pub announced_at: DateTime<FixedOffset>,
    /// Local date of play.
    pub played_on: NaiveDate,
    /// Number of participants.
    pub players: u32,
    /// The organiser declared it a national-rank tournament ("turniej rangi Ogólnopolskiej").
    pub national_rank: bool,
}

/// Why a tournament does not count for the league.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum LeagueRefusal {
    /// Played on a day outside every season.
    OutsideSeasons {
        /// The day of play.
        played_on: NaiveDate,
    },
    /// Announced later than `min_notice_days` before the day of play.
    AnnouncedTooLate {
        /// Local date of the announcement.
        announced_on: NaiveDate,
        /// The last day it could have been announced.
        deadline: NaiveDate,
    },
    /// Fewer participants than required.
    TooFewPlayers {
        /// Participants.
        players: u32,
        /// Required.
        needed: u32,
    },
}

/// Why a tournament declared national-rank gives no bonus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum BonusRefusal {
    /// The tournament does not count for the league at all.
    NotCounted,
    /// The organiser already used their national-rank tournament(s) this season (the earliest
    /// played, then lowest id, get the bonus).
    AlreadyUsed {
        /// Index of the season in the calendar.
        season: usize,
        /// The organiser.
        organiser: i64,
        /// The tournament(s) that hold the bonus.
        held_by: Vec<i64>,
    },
}

/// The league's decision on one tournament.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TournamentDecision {
    /// The tournament.
    pub tournament_id: i64,
    /// Index of the season it falls in, if any.
    pub season: Option<usize>,
    /// Whether it counts for the league (ratings are kept for every rated game regardless; this
    /// decides classification and bonuses).
    pub counts: bool,
    /// Every reason it does not count (empty when it counts).
    pub refusals: Vec<LeagueRefusal>,
    /// Rating bonus each participant gets (the pool's `event_bonus`, or 0). Feed it to
    /// [`super::replay::replay`] as a `GameResult::EventBonus` after the tournament's last game.
    pub bonus: f64,
    /// Why a tournament declared national-rank gets no bonus.
    pub bonus_refusal: Option<BonusRefusal>,
}

/// Decides which tournaments count for the league and which national-rank bonus applies
/// (seed 004 section 3). Output in input order.
pub fn league_tournaments(
    params: &RatingPoolParams,
    seasons: &[Season],
    rules: LeagueRules,
    tournaments: &[LeagueTournament],
) -> Vec<TournamentDecision> {
    let mut decisions: Vec<TournamentDecision> = tournaments
        .iter()
        .map(|t| {
            let season = seasons.iter().position(|s| s.contains(t.played_on));
            let mut refusals = Vec::new();
            if season.is_none() {
                refusals.push(LeagueRefusal::OutsideSeasons {
                    played_on: t.played_on,
                });
            }
            let announced_on = t.announced_at.date_naive();
            let deadline = t
                .played_on
                .checked_sub_days(chrono::Days::new(rules.min_notice_days.into()))
                .unwrap_or(NaiveDate::MIN);
            if announced_on > deadline {
                refusals.push(LeagueRefusal::AnnouncedTooLate {
                    announced_on,
                    deadline,
                });
            }
            if t.players < rules.min_players {
                refusals.push(LeagueRefusal::TooFewPlayers {
                    players: t.players,
                    needed: rules.min_players,
                });
            }
            let counts = refusals.is_empty();
            TournamentDecision {
                tournament_id: t.id,
                season,
                counts,
                refusals,
                bonus: 0.0,
                bonus_refusal: (t.national_rank && !counts).then_some(BonusRefusal::NotCounted),
            }
        })
        .collect();

    // National rank: per (season, organiser), the earliest counting ones get the bonus.
    let mut groups: BTreeMap<(usize, i64), Vec<usize>> = BTreeMap::new();
    for (i, t) in tournaments.iter().enumerate() {
        if let (true, true, Some(season)) =
            (t.national_rank, decisions[i].counts, decisions[i].season)
        {
            groups.entry((season, t.organiser)).or_default().push(i);
        }
    }
    let allowed = rules.national_rank_per_organiser_per_season as usize;
    for ((season, organiser), mut idx) in groups {
        idx.sort_by_key(|&i| (tournaments[i].played_on, tournaments[i].id));
        let held_by: Vec<i64> = idx
            .iter()
            .take(allowed)
            .map(|&i| tournaments[i].id)
            .collect();
        for (n, &i) in idx.iter().enumerate() {
            if n < allowed {
                decisions[i].bonus = params.event_bonus;
            } else {
                decisions[i].bonus_refusal = Some(BonusRefusal::AlreadyUsed {
                    season,
                    organiser,
                    held_by: held_by.clone(),
                });
            }
        }
    }
    decisions
}

// --- classification and standings ------------------------------------------------------------

/// A player took part in a counting league tournament.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attendance {
    /// The player.
    pub player: PlayerIndex,
    /// The tournament (only tournaments that count, see [`league_tournaments`]).
    pub tournament_id: i64,
    /// Local date of play.
    pub played_on: NaiveDate,
}

/// Which condition classified a player (seed 004 section 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClassifiedBy {
    /// At least one tournament in every calendar month the season touches.
    EveryMonth,
    /// At least five tournaments in the season.
    FiveTournaments,
    /// Both conditions.
    Both,
}

/// Tournaments in a season needed by the second classification condition.
pub const CLASSIFICATION_MIN_TOURNAMENTS: u32 = 5;

/// One player's classification for one season.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Classification {
    /// The player.
    pub player: PlayerIndex,
    /// Distinct counting tournaments played in the season.
    pub tournaments: u32,
    /// Months of the season without a tournament of theirs (empty = every month covered).
    pub months_missing: Vec<YearMonth>,
    /// How they are classified; `None` = not classified.
    pub classified_by: Option<ClassifiedBy>,
}

/// Classifies every player with at least one attendance inside `season` (attendances outside it
/// are ignored): at least one tournament in every month of the season, or at least five
/// tournaments in it ("w każdym miesiącu w trakcie trwania sezonu ... lub ... przynajmniej
/// pięciu turniejach", seed 004 section 7). Sorted by player.
pub fn classify(season: &Season, attendances: &[Attendance]) -> Vec<Classification> {
    let months = season.months();
    let mut per_player: BTreeMap<PlayerIndex, (BTreeSet<i64>, BTreeSet<YearMonth>)> =
        BTreeMap::new();
    for a in attendances.iter().filter(|a| season.contains(a.played_on)) {
        let e = per_player.entry(a.player).or_default();
        e.0.insert(a.tournament_id);
        e.1.insert(YearMonth::of(a.played_on));
    }
    per_player
        .into_iter()
        .map(|(player, (tournaments, played_months))| {
            let months_missing: Vec<YearMonth> = months
                .iter()
                .filter(|m| !played_months.contains(m))
                .copied()
                .collect();
            let n = tournaments.len() as u32;
            let every_month = months_missing.is_empty();
            let five = n >= CLASSIFICATION_MIN_TOURNAMENTS;
            let classified_by = match (every_month, five) {
                (true, true) => Some(ClassifiedBy::Both),
                (true, false) => Some(ClassifiedBy::EveryMonth),
                (false, true) => Some(ClassifiedBy::FiveTournaments),
                (false, false) => None,
            };
            Classification {
                player,
                tournaments: n,
                months_missing,
                classified_by,
            }
        })
        .collect()
}

/// One line of a season's standings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeasonRow {
    /// Rank among classified players (shared on equal ratings); `None` if not classified.
    pub rank: Option<u32>,
    /// The player.
    pub player: PlayerIndex,
    /// Rating at the cutoff.
    pub rating: f64,
    /// The player's classification.
    pub classification: Classification,
}

/// A season's standings: classified players first (by rating), then the others (by rating).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeasonStandings {
    /// The season's name.
    pub season: String,
    /// The instant ratings were taken (22:00 local on the last day).
    pub cutoff: DateTime<Utc>,
    /// One row per player who played a counting tournament in the season.
    pub rows: Vec<SeasonRow>,
    /// The season winner(s): the highest rating among classified players (several only on an
    /// exactly equal rating; the seed names no tie-break, the organiser decides). Empty if
    /// nobody is classified.
    pub winners: Vec<PlayerIndex>,
}

/// The standings of `season` from the pool's rating history (seed 004 section 7).
/// `history` is the stored change list in time order (see [`super::replay::replay`]);
/// `n_players` covers every index in `attendances`.
pub fn season_standings(
    params: &RatingPoolParams,
    season: &Season,
    n_players: usize,
    history: &[RatingChange],
    attendances: &[Attendance],
) -> Result<SeasonStandings, SeasonError> {
    let cutoff = season.cutoff()?;
    let state = ratings_at(params, n_players, history, cutoff);
    let mut rows: Vec<SeasonRow> = classify(season, attendances)
        .into_iter()
        .map(|c| SeasonRow {
            rank: None,
            player: c.player,
            rating: state.rating(c.player).unwrap_or(params.initial_rating),
            classification: c,
        })
        .collect();
    rows.sort_by(|a, b| {
        let ca = a.classification.classified_by.is_some();
        let cb = b.classification.classified_by.is_some();
        cb.cmp(&ca)
            .then(b.rating.total_cmp(&a.rating))
            .then(a.player.cmp(&b.player))
    });
    let n_classified = rows
        .iter()
        .take_while(|r| r.classification.classified_by.is_some())
        .count();
    assign_ranks(
        &mut rows[..n_classified],
        |r| r.rating,
        |r, k| r.rank = Some(k),
    );
    let winners = rows[..n_classified]
        .iter()
        .take_while(|r| r.rank == Some(1))
        .map(|r| r.player)
        .collect();
    Ok(SeasonStandings {
        season: season.name.clone(),
        cutoff,
        rows,
        winners,
    })
}

/// One line of the league table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeagueRow {
    /// Rank among players classified in every season; `None` otherwise.
    pub rank: Option<u32>,
    /// The player.
    pub player: PlayerIndex,
    /// Rating at each season's cutoff (`None` if the player did not play that season).
    pub season_ratings: Vec<Option<f64>>,
    /// Whether classified, per season.
    pub classified: Vec<bool>,
    /// Average of the season ratings, when classified in every season.
    pub average: Option<f64>,
}

/// The league table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeagueStandings {
    /// Players classified in every season first (by average), then the rest (by player).
    pub rows: Vec<LeagueRow>,
    /// The league winner(s): highest average season rating among players classified in every
    /// season (seed 004 section 7, "na podstawie średniej wartości punktowej ze wszystkich trzech
    /// sezonów"). Several only on an exactly equal average.
    pub winners: Vec<PlayerIndex>,
}

/// The league table from every season's standings (in calendar order).
pub fn league_standings(seasons: &[SeasonStandings]) -> LeagueStandings {
    let n = seasons.len();
    let mut by_player: BTreeMap<PlayerIndex, LeagueRow> = BTreeMap::new();
    for (s, standings) in seasons.iter().enumerate() {
        for r in &standings.rows {
            let row = by_player.entry(r.player).or_insert_with(|| LeagueRow {
                rank: None,
                player: r.player,
                season_ratings: vec![None; n],
                classified: vec![false; n],
                average: None,
            });
            row.season_ratings[s] = Some(r.rating);
            row.classified[s] = r.classification.classified_by.is_some();
        }
    }
    let mut rows: Vec<LeagueRow> = by_player
        .into_values()
        .map(|mut row| {
            if n > 0 && row.classified.iter().all(|&c| c) {
                let sum: f64 = row.season_ratings.iter().flatten().sum();
                row.average = Some(sum / n as f64);
            }
            row
        })
        .collect();
    rows.sort_by(|a, b| match (a.average, b.average) {
        (Some(x), Some(y)) => y.total_cmp(&x).then(a.player.cmp(&b.player)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.player.cmp(&b.player),
    });
    let n_classified = rows.iter().take_while(|r| r.average.is_some()).count();
    assign_ranks(
        &mut rows[..n_classified],
        |r| r.average.unwrap_or(f64::NAN),
        |r, k| r.rank = Some(k),
    );
    let winners = rows[..n_classified]
        .iter()
        .take_while(|r| r.rank == Some(1))
        .map(|r| r.player)
        .collect();
    LeagueStandings { rows, winners }
}

/// Convenience for the service: attendances from per-tournament participant lists, keeping only
/// tournaments the league counts.
pub fn attendances_of_counting(
    decisions: &[TournamentDecision],
    tournaments: &[LeagueTournament],
    participants: &HashMap<i64, Vec<PlayerIndex>>,
) -> Vec<Attendance> {
    let played_on: HashMap<i64, NaiveDate> =
        tournaments.iter().map(|t| (t.id, t.played_on)).collect();
    let mut out = Vec::new();
    for d in decisions.iter().filter(|d| d.counts) {
        let (Some(&day), Some(players)) = (
            played_on.get(&d.tournament_id),
            participants.get(&d.tournament_id),
        ) else {
            continue;
        };
        out.extend(players.iter().map(|&player| Attendance {
            player,
            tournament_id: d.tournament_id,
            played_on: day,
        }));
    }
    out
}

#[cfg(test)]
mod tests;
