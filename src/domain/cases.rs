//! Complaints and appeals: who decides a case, how a panel's votes decide it, and whether a
//! decision may still be appealed.
//!
//! Sources: seed 000 section "(4)" (the referee rules on questions of the rules; complaints
//! about the referee's decisions may be appealed to an appeals committee of three members
//! appointed beforehand; complaints that involve the referee or a committee member are heard
//! by the committee, respectively by the referee and the remaining committee members); seed
//! 003 rules 11 and 15 (disputes go to the tournament leader after the game, with screenshots
//! as evidence; the leader's decision is final, but a dispute involving the leader as a player
//! goes to someone else); `domain.md` section 1 (nobody decides a case in which they are a
//! party).
//!
//! Everything here works on plain user ids; the service loads the officials and the parties
//! (a player party counts through the account linked to the player) and stores the outcome.

use chrono::{DateTime, Duration, Utc};

/// A user account's id.
pub type UserId = i64;

/// A complaint (first instance) or an appeal against a decided complaint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseKind {
    Complaint,
    Appeal,
}

/// The seat a member holds on a panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Seat {
    Referee,
    Committee,
}

/// How a panel reaches its decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PanelMode {
    /// A referee's ruling: any one referee on the panel decides.
    Referee,
    /// The members vote; the majority decides.
    Vote,
}

/// Which rule of seed 000 section (4) made the panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PanelRule {
    /// The default: the referee decides a complaint.
    Referee,
    /// The complaint involves the referee (or no referee is free to decide it), or it is an
    /// appeal: the appeals committee decides.
    Committee,
    /// The case involves a committee member: the referee together with the remaining members.
    RefereeWithRemainingCommittee,
    /// Where the leader's decision is final (seed 003 rule 15), a complaint involving a referee
    /// (the leader playing) goes to another referee, a deputy.
    Deputy,
}

/// Who hears what after a referee's ruling: a property of the ruleset.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Appeals {
    /// Seed 000 section (4): the referee rules; the ruling may be appealed to a committee of
    /// three, which also hears complaints involving the referee.
    #[default]
    Committee,
    /// Seed 003 rule 15: "Die Entscheidung des Turnierleiters ist in allen Angelegenheiten
    /// maßgebend": no appeal; a dispute involving the leader goes to a deputy referee.
    LeaderFinal,
}

impl CaseKind {
    /// The name a kind is stored and sent under.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Complaint => "complaint",
            Self::Appeal => "appeal",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Complaint, Self::Appeal]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

impl Seat {
    /// The name a seat is stored and sent under.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Referee => "referee",
            Self::Committee => "committee",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Referee, Self::Committee]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

impl PanelMode {
    /// The name a mode is stored and sent under.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Referee => "referee",
            Self::Vote => "vote",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Referee, Self::Vote]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

impl PanelRule {
    /// A sentence for the people reading the case.
    pub fn explain(self, kind: CaseKind) -> &'static str {
        match (self, kind) {
            (Self::Referee, _) => "the referee decides the complaint",
            (Self::Committee, CaseKind::Complaint) => {
                "the complaint involves the referee: the appeals committee decides it (members who are parties stand aside)"
            }
            (Self::Committee, CaseKind::Appeal) => {
                "an appeal: the appeals committee decides it by majority"
            }
            (Self::Deputy, _) => {
                "the complaint involves the leader: another referee (a deputy) decides it, finally"
            }
            (Self::RefereeWithRemainingCommittee, _) => {
                "the case involves an appeals committee member: the referee and the remaining committee members decide it by majority"
            }
        }
    }
}

/// The deciding panel of a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Panel {
    /// Members in seat order (referees first), each once.
    pub members: Vec<(UserId, Seat)>,
    pub mode: PanelMode,
    pub rule: PanelRule,
}

impl Panel {
    /// Whether `user` sits on the panel.
    pub fn has(&self, user: UserId) -> bool {
        self.members.iter().any(|(u, _)| *u == user)
    }
}

/// Why no panel can be formed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PanelError {
    /// Every official who could decide the case is a party to it (or none is appointed).
    NobodyEligible(PanelRule),
    /// The ruleset has no appeals (seed 003 rule 15).
    NoAppeal,
    /// A panel that votes has fewer than [`PANEL_SEATS`] members who are not parties: it is
    /// not formed (a member or two must not decide alone what the committee of three decides).
    TooFew { rule: PanelRule, free: usize },
}

/// The seats of a panel that votes: the appeals committee has three members (seed 000
/// section (4)), and a panel standing in for it has as many.
pub const PANEL_SEATS: usize = 3;

impl std::fmt::Display for PanelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NobodyEligible(PanelRule::Referee) => {
                write!(f, "no referee who is not a party can decide this case")
            }
            Self::NobodyEligible(PanelRule::Committee) => write!(
                f,
                "no appeals committee member who is not a party can decide this case; appoint the committee"
            ),
            Self::NobodyEligible(PanelRule::Deputy) => write!(
                f,
                "the complaint involves the leader and no other referee is appointed; appoint a deputy referee"
            ),
            Self::NoAppeal => write!(
                f,
                "the leader's decision is final in this ruleset (seed 003 rule 15): there is no appeal"
            ),
            Self::NobodyEligible(PanelRule::RefereeWithRemainingCommittee) => write!(
                f,
                "no referee or committee member who is not a party can decide this case"
            ),
            Self::TooFew { rule, free } => {
                let missing = PANEL_SEATS.saturating_sub(*free);
                let who = if *rule == PanelRule::Committee {
                    "appeals committee members"
                } else {
                    "referees"
                };
                write!(
                    f,
                    "a panel that votes needs {PANEL_SEATS} members who are not parties to the case; only {free} are: appoint {missing} more {who} who are not parties"
                )
            }
        }
    }
}

fn free(officials: &[UserId], parties: &[UserId], seat: Seat) -> Vec<(UserId, Seat)> {
    let mut out: Vec<(UserId, Seat)> = Vec::new();
    for u in officials {
        if !parties.contains(u) && !out.iter().any(|(m, _)| m == u) {
            out.push((*u, seat));
        }
    }
    out
}

/// The panel that decides a case, from the tournament's referees and appeals committee and
/// the user ids of the case's parties (seed 000 section (4); `domain.md` section 1):
///
/// - a complaint goes to the referee (any referee who is not a party rules alone);
/// - a complaint that involves a referee (a referee is a party), or that no referee is free
///   to decide, goes to the appeals committee;
/// - a case (complaint or appeal) that involves a committee member goes to the referees who
///   are not parties together with the remaining committee members;
/// - an appeal goes to the appeals committee;
/// - nobody sits on the panel of a case they are a party to; committees vote and the
///   majority decides;
/// - a panel that votes has at least three members ([`PANEL_SEATS`]): with fewer free
///   officials there is no panel ([`PanelError::TooFew`]) until more are appointed.
pub fn deciding_panel(
    kind: CaseKind,
    referees: &[UserId],
    committee: &[UserId],
    parties: &[UserId],
) -> Result<Panel, PanelError> {
    deciding_panel_under(Appeals::Committee, kind, referees, committee, parties)
}

/// [`deciding_panel`] under the ruleset's appeals: with [`Appeals::LeaderFinal`] (seed 003 rule
/// 15) there is no appeal and no committee; a complaint goes to a referee who is not a party (a
/// deputy when the leader is involved).
pub fn deciding_panel_under(
    appeals: Appeals,
    kind: CaseKind,
    referees: &[UserId],
    committee: &[UserId],
    parties: &[UserId],
) -> Result<Panel, PanelError> {
    if appeals == Appeals::LeaderFinal {
        if kind == CaseKind::Appeal {
            return Err(PanelError::NoAppeal);
        }
        let members = free(referees, parties, Seat::Referee);
        let involved = referees.iter().any(|r| parties.contains(r));
        let rule = if involved {
            PanelRule::Deputy
        } else {
            PanelRule::Referee
        };
        if members.is_empty() {
            return Err(PanelError::NobodyEligible(rule));
        }
        return Ok(Panel {
            members,
            mode: PanelMode::Referee,
            rule,
        });
    }
    let free_referees = free(referees, parties, Seat::Referee);
    let free_committee: Vec<(UserId, Seat)> = free(committee, parties, Seat::Committee)
        .into_iter()
        .filter(|(u, _)| !free_referees.iter().any(|(r, _)| r == u))
        .collect();
    let committee_involved = committee.iter().any(|m| parties.contains(m));
    let referee_involved = referees.iter().any(|r| parties.contains(r));
    let (rule, members) = if committee_involved {
        let mut m = free_referees;
        m.extend(free_committee);
        (PanelRule::RefereeWithRemainingCommittee, m)
    } else if kind == CaseKind::Appeal || referee_involved || free_referees.is_empty() {
        (PanelRule::Committee, free_committee)
    } else {
        (PanelRule::Referee, free_referees)
    };
    if members.is_empty() {
        return Err(PanelError::NobodyEligible(rule));
    }
    let mode = if rule == PanelRule::Referee {
        PanelMode::Referee
    } else {
        PanelMode::Vote
    };
    if mode == PanelMode::Vote && members.len() < PANEL_SEATS {
        return Err(PanelError::TooFew {
            rule,
            free: members.len(),
        });
    }
    Ok(Panel {
        members,
        mode,
        rule,
    })
}

/// Where a panel's votes stand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tally<K> {
    /// More than half of the panel chose `K`.
    Majority(K),
    /// No majority yet, and the members still to vote could make one.
    Pending,
    /// Everyone voted and no choice has a majority: nothing changes, the case is dismissed.
    Deadlock,
}

/// Counts the votes cast so far on a panel of `panel_size`: a choice wins with more than half
/// of the panel's seats (2 of 3). Choices are compared whole, so two `remedy` votes count
/// together only when they order the same remedy.
pub fn tally<K: PartialEq + Clone>(panel_size: usize, votes: &[K]) -> Tally<K> {
    for v in votes {
        let n = votes.iter().filter(|w| *w == v).count();
        if 2 * n > panel_size {
            return Tally::Majority(v.clone());
        }
    }
    let missing = panel_size.saturating_sub(votes.len());
    let best = votes
        .iter()
        .map(|v| votes.iter().filter(|w| *w == v).count())
        .max()
        .unwrap_or(0);
    if 2 * (best + missing) > panel_size {
        Tally::Pending
    } else {
        Tally::Deadlock
    }
}

/// What the appeal check needs to know about a decided case.
#[derive(Debug, Clone)]
pub struct Decided {
    pub kind: CaseKind,
    pub mode: PanelMode,
    /// `None` while the case is still open.
    pub decided_at: Option<DateTime<Utc>>,
    /// Whether an appeal was already lodged.
    pub appealed: bool,
}

/// Why an appeal is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppealRefusal {
    NotDecided,
    /// The case is itself an appeal: its decision is final.
    AppealIsFinal,
    /// The committee (or the referee with the committee) decided: there is no higher instance.
    DecidedByCommittee,
    AlreadyAppealed,
    /// The ruleset has no appeals: the leader's decision is final (seed 003 rule 15).
    LeaderFinal,
    /// The tournament's appeal window closed at this time.
    WindowClosed {
        closed_at: DateTime<Utc>,
        window_minutes: i64,
    },
}

impl std::fmt::Display for AppealRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotDecided => write!(f, "the case is not decided yet; only a decision can be appealed"),
            Self::AppealIsFinal => write!(f, "this case is an appeal: its decision is final and cannot be appealed"),
            Self::DecidedByCommittee => write!(
                f,
                "this case was decided by a committee panel, not by a referee alone: the decision is final"
            ),
            Self::AlreadyAppealed => write!(f, "this decision has already been appealed"),
            Self::LeaderFinal => write!(
                f,
                "the leader's decision is final in this ruleset (seed 003 rule 15): there is no appeal"
            ),
            Self::WindowClosed {
                closed_at,
                window_minutes,
            } => write!(
                f,
                "the appeal window of {window_minutes} minutes after the decision closed at {}; the decision is final",
                closed_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            ),
        }
    }
}

/// Whether a party may still appeal a decision at `now`: only a referee's ruling on a
/// complaint can be appealed (seed 000 section (4): appeals against the referee's decisions go
/// to the committee), once, and only before the tournament's appeal window (minutes after the
/// decision) closes; a window of 0 means decisions are final at once. A decided appeal is
/// final.
pub fn may_appeal(
    case: &Decided,
    now: DateTime<Utc>,
    window_minutes: i64,
) -> Result<(), AppealRefusal> {
    may_appeal_under(Appeals::Committee, case, now, window_minutes)
}

/// [`may_appeal`] under the ruleset's appeals: never where the leader's decision is final.
pub fn may_appeal_under(
    appeals: Appeals,
    case: &Decided,
    now: DateTime<Utc>,
    window_minutes: i64,
) -> Result<(), AppealRefusal> {
    if appeals == Appeals::LeaderFinal {
        return Err(AppealRefusal::LeaderFinal);
    }
    if case.kind == CaseKind::Appeal {
        return Err(AppealRefusal::AppealIsFinal);
    }
    let Some(decided_at) = case.decided_at else {
        return Err(AppealRefusal::NotDecided);
    };
    if case.appealed {
        return Err(AppealRefusal::AlreadyAppealed);
    }
    if case.mode != PanelMode::Referee {
        return Err(AppealRefusal::DecidedByCommittee);
    }
    let closed_at = decided_at + Duration::minutes(window_minutes);
    if now >= closed_at {
        return Err(AppealRefusal::WindowClosed {
            closed_at,
            window_minutes,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 003 rule 15: "Die Entscheidung des Turnierleiters ist in allen Angelegenheiten
    /// maßgebend": no appeal, and a dispute involving the leader goes to a deputy.
    #[test]
    fn where_the_leader_decides_there_is_no_appeal_and_a_deputy_hears_the_leader() {
        let (leader, deputy, member) = (1, 2, 9);
        let referees = [leader, deputy];
        let committee = [member];
        let p = deciding_panel_under(
            Appeals::LeaderFinal,
            CaseKind::Complaint,
            &referees,
            &committee,
            &[leader, 5],
        )
        .unwrap();
        assert_eq!(p.members, vec![(deputy, Seat::Referee)]);
        assert_eq!((p.mode, p.rule), (PanelMode::Referee, PanelRule::Deputy));
        // No deputy: nobody else may decide (the committee does not exist in this ruleset).
        assert_eq!(
            deciding_panel_under(
                Appeals::LeaderFinal,
                CaseKind::Complaint,
                &[leader],
                &committee,
                &[leader]
            ),
            Err(PanelError::NobodyEligible(PanelRule::Deputy))
        );
        assert_eq!(
            deciding_panel_under(
                Appeals::LeaderFinal,
                CaseKind::Appeal,
                &referees,
                &committee,
                &[5]
            ),
            Err(PanelError::NoAppeal)
        );
        let decided = Decided {
            kind: CaseKind::Complaint,
            mode: PanelMode::Referee,
            decided_at: Some(Utc::now()),
            appealed: false,
        };
        assert_eq!(
            may_appeal_under(Appeals::LeaderFinal, &decided, Utc::now(), 30),
            Err(AppealRefusal::LeaderFinal)
        );
        // Seed 000 keeps its committee.
        assert!(may_appeal_under(Appeals::Committee, &decided, Utc::now(), 30).is_ok());
    }

    const REF: UserId = 1;
    const REF2: UserId = 2;
    const C1: UserId = 11;
    const C2: UserId = 12;
    const C3: UserId = 13;
    const P1: UserId = 21;
    const P2: UserId = 22;

    fn ids(p: &Panel) -> Vec<UserId> {
        p.members.iter().map(|(u, _)| *u).collect()
    }

    #[test]
    fn by_default_the_referee_decides_a_complaint_alone() {
        let p = deciding_panel(CaseKind::Complaint, &[REF], &[C1, C2, C3], &[P1, P2]).unwrap();
        assert_eq!(p.rule, PanelRule::Referee);
        assert_eq!(p.mode, PanelMode::Referee);
        assert_eq!(p.members, vec![(REF, Seat::Referee)]);
    }

    #[test]
    fn a_complaint_involving_the_referee_goes_to_the_committee() {
        let p = deciding_panel(CaseKind::Complaint, &[REF], &[C1, C2, C3], &[P1, REF]).unwrap();
        assert_eq!(p.rule, PanelRule::Committee);
        assert_eq!(p.mode, PanelMode::Vote);
        assert_eq!(ids(&p), vec![C1, C2, C3]);
        assert!(p.members.iter().all(|(_, s)| *s == Seat::Committee));
    }

    #[test]
    fn with_two_referees_one_involved_still_goes_to_the_committee() {
        let p = deciding_panel(CaseKind::Complaint, &[REF, REF2], &[C1, C2, C3], &[REF]).unwrap();
        assert_eq!(p.rule, PanelRule::Committee);
        assert_eq!(ids(&p), vec![C1, C2, C3]);
    }

    #[test]
    fn a_complaint_involving_a_committee_member_goes_to_the_referee_and_the_other_two() {
        let p = deciding_panel(CaseKind::Complaint, &[REF], &[C1, C2, C3], &[P1, C2]).unwrap();
        assert_eq!(p.rule, PanelRule::RefereeWithRemainingCommittee);
        assert_eq!(p.mode, PanelMode::Vote);
        assert_eq!(
            p.members,
            vec![
                (REF, Seat::Referee),
                (C1, Seat::Committee),
                (C3, Seat::Committee)
            ]
        );
        assert!(!p.has(C2));
    }

    #[test]
    fn a_complaint_involving_the_referee_and_a_member_leaves_the_other_members() {
        let p = deciding_panel(CaseKind::Complaint, &[REF, REF2], &[C1, C2, C3], &[REF, C1]);
        let p = p.unwrap();
        assert_eq!(p.rule, PanelRule::RefereeWithRemainingCommittee);
        assert_eq!(ids(&p), vec![REF2, C2, C3]);
    }

    #[test]
    fn a_panel_that_votes_with_fewer_than_three_free_members_is_not_formed() {
        let rule = PanelRule::RefereeWithRemainingCommittee;
        // The referee and a member are parties: two members are left.
        let p = deciding_panel(CaseKind::Complaint, &[REF], &[C1, C2, C3], &[REF, C1]);
        assert_eq!(p, Err(PanelError::TooFew { rule, free: 2 }));
        // An appellant naming two members leaves one.
        let p = deciding_panel(CaseKind::Appeal, &[REF], &[C1, C2, C3], &[P1, REF, C1, C2]);
        assert_eq!(p, Err(PanelError::TooFew { rule, free: 1 }));
        // A committee of two is not a committee.
        let p = deciding_panel(CaseKind::Appeal, &[REF], &[C1, C2], &[P1, REF]);
        let e = p.unwrap_err();
        assert_eq!(
            e,
            PanelError::TooFew {
                rule: PanelRule::Committee,
                free: 2
            }
        );
        assert!(e
            .to_string()
            .contains("appoint 1 more appeals committee members"));
        // A referee ruling alone is not a panel that votes.
        let p = deciding_panel(CaseKind::Complaint, &[REF], &[C1], &[P1]).unwrap();
        assert_eq!(p.mode, PanelMode::Referee);
    }

    #[test]
    fn without_a_free_referee_a_complaint_goes_to_the_committee() {
        let p = deciding_panel(CaseKind::Complaint, &[], &[C1, C2, C3], &[P1]).unwrap();
        assert_eq!(p.rule, PanelRule::Committee);
        assert_eq!(ids(&p), vec![C1, C2, C3]);
    }

    #[test]
    fn an_appeal_goes_to_the_committee() {
        let p = deciding_panel(CaseKind::Appeal, &[REF], &[C1, C2, C3], &[P1, P2, REF]).unwrap();
        assert_eq!(p.rule, PanelRule::Committee);
        assert_eq!(p.mode, PanelMode::Vote);
        assert_eq!(ids(&p), vec![C1, C2, C3]);
    }

    #[test]
    fn an_appeal_involving_a_member_takes_a_free_referee_in_their_place() {
        // The referee whose decision is appealed is a party; a second referee substitutes.
        let p = deciding_panel(
            CaseKind::Appeal,
            &[REF, REF2],
            &[C1, C2, C3],
            &[P1, REF, C3],
        )
        .unwrap();
        assert_eq!(p.rule, PanelRule::RefereeWithRemainingCommittee);
        assert_eq!(
            p.members,
            vec![
                (REF2, Seat::Referee),
                (C1, Seat::Committee),
                (C2, Seat::Committee)
            ]
        );
    }

    #[test]
    fn nobody_decides_a_case_they_are_a_party_to() {
        for parties in [vec![REF], vec![C1], vec![REF, C2], vec![P1, C3, REF]] {
            for kind in [CaseKind::Complaint, CaseKind::Appeal] {
                let p = deciding_panel(kind, &[REF, REF2], &[C1, C2, C3], &parties).unwrap();
                assert!(parties.iter().all(|u| !p.has(*u)), "{kind:?} {parties:?}");
            }
        }
    }

    #[test]
    fn without_anyone_eligible_there_is_no_panel() {
        assert_eq!(
            deciding_panel(CaseKind::Complaint, &[REF], &[], &[REF]),
            Err(PanelError::NobodyEligible(PanelRule::Committee))
        );
        assert_eq!(
            deciding_panel(CaseKind::Appeal, &[REF], &[], &[P1]),
            Err(PanelError::NobodyEligible(PanelRule::Committee))
        );
        assert_eq!(
            deciding_panel(CaseKind::Complaint, &[], &[C1], &[C1]),
            Err(PanelError::NobodyEligible(
                PanelRule::RefereeWithRemainingCommittee
            ))
        );
        assert!(!PanelError::NobodyEligible(PanelRule::Referee)
            .to_string()
            .is_empty());
    }

    #[test]
    fn an_official_listed_twice_sits_once() {
        let p = deciding_panel(CaseKind::Complaint, &[REF, REF], &[C1, C1, C2, C3], &[REF]);
        assert_eq!(ids(&p.unwrap()), vec![C1, C2, C3]);
    }

    #[test]
    fn the_majority_of_the_panel_decides() {
        assert_eq!(tally::<&str>(3, &[]), Tally::Pending);
        assert_eq!(tally(3, &["uphold"]), Tally::Pending);
        assert_eq!(tally(3, &["uphold", "dismiss"]), Tally::Pending);
        assert_eq!(tally(3, &["uphold", "uphold"]), Tally::Majority("uphold"));
        assert_eq!(
            tally(3, &["uphold", "dismiss", "uphold"]),
            Tally::Majority("uphold")
        );
        assert_eq!(tally(2, &["dismiss"]), Tally::Pending);
        assert_eq!(
            tally(2, &["dismiss", "dismiss"]),
            Tally::Majority("dismiss")
        );
        assert_eq!(tally(1, &["dismiss"]), Tally::Majority("dismiss"));
    }

    #[test]
    fn a_split_panel_deadlocks_and_different_remedies_do_not_add_up() {
        assert_eq!(tally(2, &["uphold", "dismiss"]), Tally::Deadlock);
        assert_eq!(
            tally(3, &["remedy a", "remedy b", "dismiss"]),
            Tally::Deadlock
        );
        assert_eq!(tally(3, &["remedy a", "remedy b"]), Tally::Pending);
    }

    fn decided(kind: CaseKind, mode: PanelMode, at: Option<DateTime<Utc>>) -> Decided {
        Decided {
            kind,
            mode,
            decided_at: at,
            appealed: false,
        }
    }

    #[test]
    fn a_referee_decision_may_be_appealed_within_the_window() {
        let at = DateTime::parse_from_rfc3339("2026-06-12T18:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let c = decided(CaseKind::Complaint, PanelMode::Referee, Some(at));
        assert_eq!(may_appeal(&c, at + Duration::minutes(29), 30), Ok(()));
        let closed = may_appeal(&c, at + Duration::minutes(30), 30).unwrap_err();
        assert_eq!(
            closed,
            AppealRefusal::WindowClosed {
                closed_at: at + Duration::minutes(30),
                window_minutes: 30
            }
        );
        assert!(closed.to_string().contains("2026-06-12T18:30:00Z"));
        // A window of 0 makes decisions final at once.
        assert!(matches!(
            may_appeal(&c, at, 0),
            Err(AppealRefusal::WindowClosed { .. })
        ));
    }

    #[test]
    fn appeals_of_appeals_committee_decisions_and_open_cases_are_refused() {
        let at = Utc::now();
        assert_eq!(
            may_appeal(
                &decided(CaseKind::Appeal, PanelMode::Vote, Some(at)),
                at,
                30
            ),
            Err(AppealRefusal::AppealIsFinal)
        );
        assert_eq!(
            may_appeal(
                &decided(CaseKind::Complaint, PanelMode::Vote, Some(at)),
                at,
                30
            ),
            Err(AppealRefusal::DecidedByCommittee)
        );
        assert_eq!(
            may_appeal(
                &decided(CaseKind::Complaint, PanelMode::Referee, None),
                at,
                30
            ),
            Err(AppealRefusal::NotDecided)
        );
        let mut twice = decided(CaseKind::Complaint, PanelMode::Referee, Some(at));
        twice.appealed = true;
        assert_eq!(
            may_appeal(&twice, at, 30),
            Err(AppealRefusal::AlreadyAppealed)
        );
        for r in [
            AppealRefusal::NotDecided,
            AppealRefusal::AppealIsFinal,
            AppealRefusal::DecidedByCommittee,
            AppealRefusal::AlreadyAppealed,
        ] {
            assert!(!r.to_string().is_empty());
        }
    }

    #[test]
    fn panel_rules_explain_themselves() {
        for rule in [
            PanelRule::Referee,
            PanelRule::Committee,
            PanelRule::RefereeWithRemainingCommittee,
        ] {
            for kind in [CaseKind::Complaint, CaseKind::Appeal] {
                assert!(!rule.explain(kind).is_empty());
            }
        }
    }
}
