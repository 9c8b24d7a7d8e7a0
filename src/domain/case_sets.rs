//! The closed sets of a case as they are stored and sent: what it is about, who a party is,
//! a verdict, an outcome, why the panel is what it is and the steps of its history. Each has
//! its stored name (`as_str`) and reads it back (`parse`); `crate::db::enums` maps them to
//! their TEXT columns.
//!
//! Sources: seed 000 section "(4)" (complaints, the referee's ruling, the appeals committee
//! and its majority); `domain.md` section 1 (the parties of a case, the official whose
//! decision is appealed among them).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::cases::{CaseKind, PanelRule};

/// Every variant of a set, in order, with its stored name.
macro_rules! named {
    ($ty:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            /// The name it is stored and sent under.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }

            /// The variant a stored name names.
            pub fn parse(s: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.as_str() == s)
            }
        }
    };
}

/// What a case is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaseSubject {
    /// Something at a table of a round (names `round` and `table`).
    Table,
    /// A table's result (names `round` and `table`).
    Result,
    /// A penalty (names `penalty_id`).
    Penalty,
    /// A person's conduct.
    Conduct,
}

named!(CaseSubject {
    Table => "table",
    Result => "result",
    Penalty => "penalty",
    Conduct => "conduct",
});

/// A ruling or a vote: uphold the case (apply the remedies asked for), dismiss it, or order
/// other remedies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Uphold,
    Dismiss,
    Remedy,
}

named!(Verdict {
    Uphold => "uphold",
    Dismiss => "dismiss",
    Remedy => "remedy",
});

impl Verdict {
    /// The outcome of a case decided by this verdict.
    pub fn outcome(self) -> CaseOutcome {
        match self {
            Self::Uphold => CaseOutcome::Upheld,
            Self::Dismiss => CaseOutcome::Dismissed,
            Self::Remedy => CaseOutcome::Remedied,
        }
    }
}

/// How a case was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaseOutcome {
    Upheld,
    Dismissed,
    Remedied,
}

named!(CaseOutcome {
    Upheld => "upheld",
    Dismissed => "dismissed",
    Remedied => "remedied",
});

/// The role of a party in a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PartyRole {
    /// Filed the complaint or the appeal.
    Complainant,
    /// The complaint is against them.
    Respondent,
    /// Played at the table the case is about.
    PlayerAtTable,
    /// The official whose ruling is appealed.
    OfficialAppealed,
}

named!(PartyRole {
    Complainant => "complainant",
    Respondent => "respondent",
    PlayerAtTable => "player_at_table",
    OfficialAppealed => "official_appealed",
});

/// Why a case has the panel it has, as stored and shown: a [`PanelRule`] as it applies to the
/// case's kind (its sentence, [`PanelRule::explain`]). `Pending` (stored empty) only between
/// the case's insert and its panel's first computation, in the transaction that opens it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PanelReason {
    Pending,
    Referee,
    CommitteeOnComplaint,
    CommitteeOnAppeal,
    RefereeWithRemainingCommittee,
    Deputy,
    /// A change of officials left no panel that can decide the case
    /// (`crate::domain::case_panels`): it waits for an appointment.
    Vacant,
}

impl PanelReason {
    /// Every variant, in declaration order.
    pub const ALL: &'static [PanelReason] = &[
        Self::Pending,
        Self::Referee,
        Self::CommitteeOnComplaint,
        Self::CommitteeOnAppeal,
        Self::RefereeWithRemainingCommittee,
        Self::Deputy,
        Self::Vacant,
    ];

    /// The reason a panel made by `rule` has in a case of `kind`.
    pub fn of(rule: PanelRule, kind: CaseKind) -> Self {
        match (rule, kind) {
            (PanelRule::Referee, _) => Self::Referee,
            (PanelRule::Committee, CaseKind::Complaint) => Self::CommitteeOnComplaint,
            (PanelRule::Committee, CaseKind::Appeal) => Self::CommitteeOnAppeal,
            (PanelRule::RefereeWithRemainingCommittee, _) => Self::RefereeWithRemainingCommittee,
            (PanelRule::Deputy, _) => Self::Deputy,
        }
    }

    /// The sentence it is stored and shown as.
    pub fn as_str(self) -> &'static str {
        use CaseKind::{Appeal, Complaint};
        match self {
            Self::Pending => "",
            Self::Referee => PanelRule::Referee.explain(Complaint),
            Self::CommitteeOnComplaint => PanelRule::Committee.explain(Complaint),
            Self::CommitteeOnAppeal => PanelRule::Committee.explain(Appeal),
            Self::RefereeWithRemainingCommittee => {
                PanelRule::RefereeWithRemainingCommittee.explain(Complaint)
            }
            Self::Deputy => PanelRule::Deputy.explain(Complaint),
            Self::Vacant => {
                "no panel can decide the case since the officials changed: it waits until the organisers appoint officials who are not parties to it"
            }
        }
    }

    /// The reason a stored sentence gives.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.as_str() == s)
    }
}

/// What a step of a case's history records (its `what`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseStep {
    Opened,
    PartyAdded,
    PanelComputed,
    Voted,
    Decided,
    RemedyApplied,
    Appealed,
}

named!(CaseStep {
    Opened => "opened",
    PartyAdded => "party_added",
    PanelComputed => "panel_computed",
    Voted => "voted",
    Decided => "decided",
    RemedyApplied => "remedy_applied",
    Appealed => "appealed",
});

#[cfg(test)]
mod tests {
    use super::*;

    fn distinct_and_parsed<T: Copy + PartialEq + std::fmt::Debug>(
        all: &[T],
        as_str: fn(T) -> &'static str,
        parse: fn(&str) -> Option<T>,
    ) {
        for &v in all {
            assert_eq!(parse(as_str(v)), Some(v));
        }
        let mut names: Vec<&str> = all.iter().map(|&v| as_str(v)).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len());
        assert_eq!(parse("no_such_name"), None);
    }

    #[test]
    fn every_name_reads_back_and_the_names_are_distinct() {
        distinct_and_parsed(CaseSubject::ALL, CaseSubject::as_str, CaseSubject::parse);
        distinct_and_parsed(Verdict::ALL, Verdict::as_str, Verdict::parse);
        distinct_and_parsed(CaseOutcome::ALL, CaseOutcome::as_str, CaseOutcome::parse);
        distinct_and_parsed(PartyRole::ALL, PartyRole::as_str, PartyRole::parse);
        distinct_and_parsed(PanelReason::ALL, PanelReason::as_str, PanelReason::parse);
        distinct_and_parsed(CaseStep::ALL, CaseStep::as_str, CaseStep::parse);
    }

    /// The stored names are the JSON names (and the ones the migrations' CHECKs allow).
    #[test]
    fn stored_names_are_the_json_names() {
        for &v in CaseSubject::ALL {
            assert_eq!(serde_json::to_value(v).unwrap(), v.as_str());
        }
        for &v in Verdict::ALL {
            assert_eq!(serde_json::to_value(v).unwrap(), v.as_str());
        }
        for &v in CaseOutcome::ALL {
            assert_eq!(serde_json::to_value(v).unwrap(), v.as_str());
        }
        for &v in PartyRole::ALL {
            assert_eq!(serde_json::to_value(v).unwrap(), v.as_str());
        }
        assert_eq!(Verdict::Remedy.outcome(), CaseOutcome::Remedied);
    }

    /// Each rule and kind gives the sentence `PanelRule::explain` gives.
    #[test]
    fn a_panel_reason_is_its_rules_sentence() {
        use PanelRule as R;
        for rule in [
            R::Referee,
            R::Committee,
            R::RefereeWithRemainingCommittee,
            R::Deputy,
        ] {
            for kind in [CaseKind::Complaint, CaseKind::Appeal] {
                assert_eq!(PanelReason::of(rule, kind).as_str(), rule.explain(kind));
            }
        }
    }
}
