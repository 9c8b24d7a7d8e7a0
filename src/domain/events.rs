//! What a tournament's live feed announces (issue 16; typed in issue 30, item 3): every kind
//! and the payload each kind carries. The feed, its webhooks and the OpenAPI document are all
//! made from these types: `db::events::record` takes a [`TournamentEvent`], so the code cannot
//! emit a kind or a payload the document does not describe.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What an event announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LiveEventKind {
    RoundPublished,
    ResultEntered,
    ResultCorrected,
    RoundCompleted,
    StandingsChanged,
    Withdrawal,
    Penalty,
    PenaltyAnnulled,
    CaseDecided,
    CaseAppealed,
    ReplayOrdered,
    /// The tournament's request to be rated was made or decided (pending, accepted, refused,
    /// withdrawn).
    RatingStatusChanged,
    /// A self-scheduled round's deadline is 48 hours away or less and games have no agreed
    /// time: the leader decides (seed 003 rule 8.5).
    UnscheduledGames,
    /// A seated player reported a table's result; the opponent confirms or disputes it.
    ResultReported,
    /// A self-scheduled game's proposal went unanswered: the silent player forfeits at
    /// `forfeit_at` unless they answer (seed 003 rule 8.2).
    ScheduleOverdue,
    /// The silent player forfeited (rule 8.2): the result is stored in the leader's name.
    GameForfeited,
    /// The leader reversed an automatic forfeit: the game is open again.
    ForfeitReversed,
    /// An organiser withdrew a round that had no result yet (issue 37, item 5): its draw no
    /// longer holds and the round can be drawn again.
    RoundWithdrawn,
}

impl LiveEventKind {
    /// Every kind, in the order above.
    pub const ALL: [LiveEventKind; 18] = [
        Self::RoundPublished,
        Self::ResultEntered,
        Self::ResultCorrected,
        Self::RoundCompleted,
        Self::StandingsChanged,
        Self::Withdrawal,
        Self::Penalty,
        Self::PenaltyAnnulled,
        Self::CaseDecided,
        Self::CaseAppealed,
        Self::ReplayOrdered,
        Self::RatingStatusChanged,
        Self::UnscheduledGames,
        Self::ResultReported,
        Self::ScheduleOverdue,
        Self::GameForfeited,
        Self::ForfeitReversed,
        Self::RoundWithdrawn,
    ];

    /// The name on the wire (the SSE frame's `event`, the webhook's `type`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::RoundPublished => "round_published",
            Self::ResultEntered => "result_entered",
            Self::ResultCorrected => "result_corrected",
            Self::RoundCompleted => "round_completed",
            Self::StandingsChanged => "standings_changed",
            Self::Withdrawal => "withdrawal",
            Self::Penalty => "penalty",
            Self::PenaltyAnnulled => "penalty_annulled",
            Self::CaseDecided => "case_decided",
            Self::CaseAppealed => "case_appealed",
            Self::ReplayOrdered => "replay_ordered",
            Self::RatingStatusChanged => "rating_status_changed",
            Self::UnscheduledGames => "unscheduled_games",
            Self::ResultReported => "result_reported",
            Self::ScheduleOverdue => "schedule_overdue",
            Self::GameForfeited => "game_forfeited",
            Self::ForfeitReversed => "forfeit_reversed",
            Self::RoundWithdrawn => "round_withdrawn",
        }
    }

    /// Every kind's wire name.
    pub const NAMES: [&'static str; 18] = {
        let mut names = [""; 18];
        let mut i = 0;
        while i < names.len() {
            names[i] = Self::ALL[i].as_str();
            i += 1;
        }
        names
    };

    /// The kind a wire name names.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// `round_published`: a round's draw is public (its seed is revealed).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RoundPublishedPayload {
    pub round: i32,
    /// The SHA-256 of the draw's seed, published when the round was drawn.
    pub seed_commitment: String,
}

/// `round_withdrawn`: the round's draw was withdrawn before any result; the round can be
/// drawn again. The reason stays in the round's history (`/rounds/{n}/withdrawals`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RoundWithdrawnPayload {
    pub round: i32,
    /// The commitment of the withdrawn draw's seed.
    pub seed_commitment: String,
    /// Why the organiser withdrew it.
    pub reason: String,
}

/// `result_entered` (version 1) and `result_corrected` (a later version) of a table's result.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ResultPayload {
    pub round: i32,
    pub table: i32,
    /// The result's version (its `ETag`).
    pub version: i32,
    /// The case whose decision stored this version, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case_id: Option<i64>,
}

/// `round_completed`: every table of the round has a result.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RoundPayload {
    pub round: i32,
}

/// `standings_changed`: the public standings after `after_round` changed.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct StandingsChangedPayload {
    pub after_round: i32,
}

/// `withdrawal`: a player withdrew or opted out from `from_round` on.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WithdrawalPayload {
    pub player_id: i64,
    pub from_round: i32,
    /// `withdrawal` or `opt_out`.
    pub kind: String,
}

/// `penalty`: a penalty was given (at a table of a round, or to the event as a whole).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PenaltyPayload {
    pub player_id: i64,
    /// The penalty's kind (see `PenaltyKind`).
    pub kind: String,
    pub round: Option<i32>,
    pub table: Option<i32>,
}

/// `penalty_annulled`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PenaltyAnnulledPayload {
    /// The annulled penalty's id.
    pub penalty: i64,
}

/// `case_decided`: a case's outcome and the remedies applied with it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CaseDecidedPayload {
    pub case_id: i64,
    /// The case's kind (complaint, appeal, ...).
    pub kind: String,
    /// `upheld`, `dismissed` or `remedy`.
    pub outcome: String,
    /// The remedies applied, as the case's log shows them.
    #[schema(value_type = Vec<Object>)]
    pub remedies: Vec<serde_json::Value>,
}

/// `case_appealed`: a decision was appealed (`appeal_id` is the new case).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CaseAppealedPayload {
    pub case_id: i64,
    pub appeal_id: i64,
}

/// `replay_ordered`: a table plays again, by a case's remedy or after a double crash.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ReplayOrderedPayload {
    pub round: i32,
    pub table: i32,
    /// The case that ordered it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case_id: Option<i64>,
    /// Both players crashed and the game vanished (Tantrix rule 3.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub double_crash: Option<bool>,
}

/// `rating_status_changed`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RatingStatusChangedPayload {
    pub tournament_id: i64,
    pub pool_id: i64,
    /// `pending`, `accepted`, `refused` or `withdrawn`.
    pub rating_status: String,
    pub reason: Option<String>,
    /// The account that asked or decided.
    pub decided_by: i64,
}

/// One game without an agreed time in an `unscheduled_games` event.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct UnscheduledGame {
    pub table: i32,
    /// The players in seat order.
    pub players: Vec<i64>,
    /// The game's scheduling state.
    pub state: String,
    /// The player whose answer is awaited, if any.
    pub waiting_on: Option<i64>,
}

/// `unscheduled_games`: the round's deadline is near and these games have no agreed time.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct UnscheduledGamesPayload {
    pub round: i32,
    pub deadline: DateTime<Utc>,
    pub tables: Vec<UnscheduledGame>,
}

/// `result_reported` and `game_forfeited`: a table and the player concerned (the reporter,
/// or the player who forfeited).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TablePlayerPayload {
    pub round: i32,
    pub table: i32,
    pub player_id: i64,
}

/// `schedule_overdue`: the silent player forfeits at `forfeit_at` unless they answer.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ScheduleOverduePayload {
    pub round: i32,
    pub table: i32,
    pub player_id: i64,
    pub forfeit_at: DateTime<Utc>,
}

/// `forfeit_reversed`: the leader reversed `player_id`'s forfeit, for `reason`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ForfeitReversedPayload {
    pub round: i32,
    pub table: i32,
    pub player_id: i64,
    pub reason: String,
}

/// One event of a tournament with its payload: what `db::events::record` stores.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", content = "payload", rename_all = "snake_case")]
pub enum TournamentEvent {
    RoundPublished(RoundPublishedPayload),
    ResultEntered(ResultPayload),
    ResultCorrected(ResultPayload),
    RoundCompleted(RoundPayload),
    StandingsChanged(StandingsChangedPayload),
    Withdrawal(WithdrawalPayload),
    Penalty(PenaltyPayload),
    PenaltyAnnulled(PenaltyAnnulledPayload),
    CaseDecided(CaseDecidedPayload),
    CaseAppealed(CaseAppealedPayload),
    ReplayOrdered(ReplayOrderedPayload),
    RatingStatusChanged(RatingStatusChangedPayload),
    UnscheduledGames(UnscheduledGamesPayload),
    ResultReported(TablePlayerPayload),
    ScheduleOverdue(ScheduleOverduePayload),
    GameForfeited(TablePlayerPayload),
    ForfeitReversed(ForfeitReversedPayload),
    RoundWithdrawn(RoundWithdrawnPayload),
}

impl TournamentEvent {
    /// The event's kind.
    pub fn kind(&self) -> LiveEventKind {
        use LiveEventKind as K;
        match self {
            Self::RoundPublished(_) => K::RoundPublished,
            Self::ResultEntered(_) => K::ResultEntered,
            Self::ResultCorrected(_) => K::ResultCorrected,
            Self::RoundCompleted(_) => K::RoundCompleted,
            Self::StandingsChanged(_) => K::StandingsChanged,
            Self::Withdrawal(_) => K::Withdrawal,
            Self::Penalty(_) => K::Penalty,
            Self::PenaltyAnnulled(_) => K::PenaltyAnnulled,
            Self::CaseDecided(_) => K::CaseDecided,
            Self::CaseAppealed(_) => K::CaseAppealed,
            Self::ReplayOrdered(_) => K::ReplayOrdered,
            Self::RatingStatusChanged(_) => K::RatingStatusChanged,
            Self::UnscheduledGames(_) => K::UnscheduledGames,
            Self::ResultReported(_) => K::ResultReported,
            Self::ScheduleOverdue(_) => K::ScheduleOverdue,
            Self::GameForfeited(_) => K::GameForfeited,
            Self::ForfeitReversed(_) => K::ForfeitReversed,
            Self::RoundWithdrawn(_) => K::RoundWithdrawn,
        }
    }

    /// The kind's wire name and the payload as stored.
    pub fn into_parts(self) -> Result<(&'static str, serde_json::Value), serde_json::Error> {
        let kind = self.kind().as_str();
        let mut value = serde_json::to_value(self)?;
        Ok((kind, value["payload"].take()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One event of every kind (the match makes a new kind a compile error here).
    pub fn one_of_each() -> Vec<TournamentEvent> {
        let at = DateTime::<Utc>::from_timestamp(1_800_000_000, 0).unwrap();
        let table = TablePlayerPayload {
            round: 1,
            table: 2,
            player_id: 3,
        };
        let result = ResultPayload {
            round: 1,
            table: 2,
            version: 1,
            case_id: None,
        };
        LiveEventKind::ALL
            .into_iter()
            .map(|k| match k {
                LiveEventKind::RoundPublished => {
                    TournamentEvent::RoundPublished(RoundPublishedPayload {
                        round: 1,
                        seed_commitment: "ab".into(),
                    })
                }
                LiveEventKind::ResultEntered => TournamentEvent::ResultEntered(result.clone()),
                LiveEventKind::ResultCorrected => TournamentEvent::ResultCorrected(result.clone()),
                LiveEventKind::RoundCompleted => {
                    TournamentEvent::RoundCompleted(RoundPayload { round: 1 })
                }
                LiveEventKind::StandingsChanged => {
                    TournamentEvent::StandingsChanged(StandingsChangedPayload { after_round: 1 })
                }
                LiveEventKind::Withdrawal => TournamentEvent::Withdrawal(WithdrawalPayload {
                    player_id: 3,
                    from_round: 2,
                    kind: "opt_out".into(),
                }),
                LiveEventKind::Penalty => TournamentEvent::Penalty(PenaltyPayload {
                    player_id: 3,
                    kind: "warning".into(),
                    round: None,
                    table: None,
                }),
                LiveEventKind::PenaltyAnnulled => {
                    TournamentEvent::PenaltyAnnulled(PenaltyAnnulledPayload { penalty: 4 })
                }
                LiveEventKind::CaseDecided => TournamentEvent::CaseDecided(CaseDecidedPayload {
                    case_id: 5,
                    kind: "complaint".into(),
                    outcome: "upheld".into(),
                    remedies: vec![],
                }),
                LiveEventKind::CaseAppealed => TournamentEvent::CaseAppealed(CaseAppealedPayload {
                    case_id: 5,
                    appeal_id: 6,
                }),
                LiveEventKind::ReplayOrdered => {
                    TournamentEvent::ReplayOrdered(ReplayOrderedPayload {
                        round: 1,
                        table: 2,
                        case_id: None,
                        double_crash: Some(true),
                    })
                }
                LiveEventKind::RatingStatusChanged => {
                    TournamentEvent::RatingStatusChanged(RatingStatusChangedPayload {
                        tournament_id: 7,
                        pool_id: 8,
                        rating_status: "pending".into(),
                        reason: None,
                        decided_by: 1,
                    })
                }
                LiveEventKind::UnscheduledGames => {
                    TournamentEvent::UnscheduledGames(UnscheduledGamesPayload {
                        round: 1,
                        deadline: at,
                        tables: vec![],
                    })
                }
                LiveEventKind::ResultReported => TournamentEvent::ResultReported(table.clone()),
                LiveEventKind::ScheduleOverdue => {
                    TournamentEvent::ScheduleOverdue(ScheduleOverduePayload {
                        round: 1,
                        table: 2,
                        player_id: 3,
                        forfeit_at: at,
                    })
                }
                LiveEventKind::GameForfeited => TournamentEvent::GameForfeited(table.clone()),
                LiveEventKind::ForfeitReversed => {
                    TournamentEvent::ForfeitReversed(ForfeitReversedPayload {
                        round: 1,
                        table: 2,
                        player_id: 3,
                        reason: "the proposal never arrived".into(),
                    })
                }
                LiveEventKind::RoundWithdrawn => {
                    TournamentEvent::RoundWithdrawn(RoundWithdrawnPayload {
                        round: 1,
                        seed_commitment: "ab".into(),
                        reason: "drawn with the wrong method".into(),
                    })
                }
            })
            .collect()
    }

    #[test]
    fn every_kind_has_one_name_and_round_trips() {
        let events = one_of_each();
        assert_eq!(events.len(), LiveEventKind::ALL.len());
        let mut names = std::collections::HashSet::new();
        for (event, kind) in events.into_iter().zip(LiveEventKind::ALL) {
            assert_eq!(event.kind(), kind);
            // The serde tag, the kind's own serde name and `as_str` agree.
            let tagged = serde_json::to_value(&event).unwrap();
            assert_eq!(tagged["kind"], kind.as_str());
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
            assert_eq!(LiveEventKind::parse(kind.as_str()), Some(kind));
            let back: TournamentEvent = serde_json::from_value(tagged.clone()).unwrap();
            assert_eq!(serde_json::to_value(&back).unwrap(), tagged);
            let (name, payload) = event.into_parts().unwrap();
            assert_eq!(name, kind.as_str());
            assert!(payload.is_object(), "{name}: {payload}");
            assert!(names.insert(name));
        }
        assert_eq!(LiveEventKind::parse("no_such_kind"), None);
    }
}
