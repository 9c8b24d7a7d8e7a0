//! Team standings of the 2v2 duplicate format (seed 002; domain.md section 7): the ranking of
//! teams by their matches, and the state of a best-of-3 series.
//!
//! - Two teams play a best of three: the first to two match wins takes the series; a game 3 is
//!   played only at 1-1 ("best of three games").
//! - More teams play single elimination: a team's place is the round it went out in (the
//!   champion first, the final's loser second, the semi-final losers share third, ...).
//!
//! A match whose six values are all equal is settled by lot (seed 002) before it gets here, so
//! every complete match has a winner.

use serde::Serialize;
use utoipa::ToSchema;

/// One team match as played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatchRecord {
    /// The round it was played in.
    pub round: u32,
    pub home: u32,
    pub away: u32,
    /// The winning team, once both tables have results.
    pub winner: Option<u32>,
}

/// How the event is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TeamEventFormat {
    #[serde(rename = "best_of_3")]
    BestOf3,
    Knockout,
}

/// One team's line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct TeamStanding {
    /// 1 = best; teams out in the same knockout round share a place.
    pub place: u32,
    pub team: u32,
    pub played: u32,
    pub won: u32,
    pub lost: u32,
    /// Knockout: the round the team went out in (none while still in or champion).
    pub out_in_round: Option<u32>,
}

/// The standings and whether the event is decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamTable {
    pub rows: Vec<TeamStanding>,
    /// Best of 3: a team has two wins. Knockout: one team is left.
    pub decided: bool,
}

/// Ranks `teams` (their numbers, in seed order) by their `matches`.
pub fn team_table(format: TeamEventFormat, teams: &[u32], matches: &[MatchRecord]) -> TeamTable {
    let mut rows: Vec<TeamStanding> = teams
        .iter()
        .map(|&team| {
            let mine = matches
                .iter()
                .filter(|m| m.winner.is_some() && (m.home == team || m.away == team));
            let played = mine.clone().count() as u32;
            let won = mine.clone().filter(|m| m.winner == Some(team)).count() as u32;
            let out_in_round = (format == TeamEventFormat::Knockout)
                .then(|| {
                    mine.filter(|m| m.winner != Some(team))
                        .map(|m| m.round)
                        .min()
                })
                .flatten();
            TeamStanding {
                place: 0,
                team,
                played,
                won,
                lost: played - won,
                out_in_round,
            }
        })
        .collect();
    // Still in first (u32::MAX), then later exits; best of 3 by wins. Equal keys share a place;
    // the seed order (team number) lists them.
    let key = |r: &TeamStanding| match format {
        TeamEventFormat::Knockout => (r.out_in_round.unwrap_or(u32::MAX), r.won),
        TeamEventFormat::BestOf3 => (r.won, 0),
    };
    rows.sort_by(|a, b| key(b).cmp(&key(a)).then(a.team.cmp(&b.team)));
    let mut place = 0;
    let mut last = None;
    for (i, r) in rows.iter_mut().enumerate() {
        if last != Some(key(r)) {
            place = i as u32 + 1;
            last = Some(key(r));
        }
        r.place = place;
    }
    let decided = match format {
        TeamEventFormat::BestOf3 => rows.iter().any(|r| r.won >= 2),
        TeamEventFormat::Knockout => {
            rows.iter().filter(|r| r.out_in_round.is_none()).count() == 1 && !matches.is_empty()
        }
    };
    TeamTable { rows, decided }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(round: u32, home: u32, away: u32, winner: u32) -> MatchRecord {
        MatchRecord {
            round,
            home,
            away,
            winner: Some(winner),
        }
    }

    /// Seed 002: "2 lag: best av tre" - two wins take the series, and there is no game 3 at 2-0.
    #[test]
    fn a_best_of_three_is_decided_at_two_wins() {
        let t = team_table(TeamEventFormat::BestOf3, &[1, 2], &[m(1, 1, 2, 2)]);
        assert!(!t.decided);
        assert_eq!((t.rows[0].team, t.rows[0].won), (2, 1));
        let t = team_table(
            TeamEventFormat::BestOf3,
            &[1, 2],
            &[m(1, 1, 2, 2), m(2, 1, 2, 1)],
        );
        assert!(!t.decided, "1-1: game 3 is played");
        assert_eq!((t.rows[0].place, t.rows[1].place), (1, 1));
        let t = team_table(
            TeamEventFormat::BestOf3,
            &[1, 2],
            &[m(1, 1, 2, 2), m(2, 1, 2, 2)],
        );
        assert!(t.decided, "2-0 ends the series");
        assert_eq!(
            (t.rows[0].team, t.rows[0].place, t.rows[1].place),
            (2, 1, 2)
        );
    }

    /// Seed 002: "4 lag: cup med utslag" - the champion, the finalist, the semi-final losers
    /// sharing third.
    #[test]
    fn a_knockout_ranks_by_the_round_a_team_went_out_in() {
        let matches = [m(1, 1, 4, 4), m(1, 2, 3, 2), m(2, 4, 2, 2)];
        let t = team_table(TeamEventFormat::Knockout, &[1, 2, 3, 4], &matches);
        assert!(t.decided);
        let places: Vec<(u32, u32)> = t.rows.iter().map(|r| (r.team, r.place)).collect();
        assert_eq!(places, vec![(2, 1), (4, 2), (1, 3), (3, 3)]);
        assert_eq!(t.rows[1].out_in_round, Some(2));
    }
}
