//! The panels of open cases after the tournament's officials change.
//!
//! A panel is computed from the officials and the parties (`crate::domain::cases`). When a
//! referee or an appeals committee member is appointed or dismissed, the panel of every open
//! case is computed again with the same conflict-of-interest rules, so that a dismissed
//! official is replaced and a new one takes a seat they are eligible for:
//!
//! - a case nobody has voted on gets the panel computed now; when none can be formed (every
//!   free official is a party, or a panel that votes would have fewer than three members) the
//!   panel is vacant: nobody decides the case until an appointment makes a panel possible;
//! - a case with votes keeps its mode and rule (the vote has begun) and its members who voted
//!   (their votes count) or still hold their seat's role; a seat whose holder has lost it goes
//!   to a member of the panel computed now who does not sit on it yet, and stays with its
//!   holder (who cannot act) while there is none.

use crate::domain::cases::{Panel, PanelError, PanelMode, Seat, UserId};
use crate::domain::status::TournamentStatus;

/// An open case's panel after a change of officials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewPanel {
    /// Nobody has voted: the panel computed now.
    Recomputed(Panel),
    /// Nobody has voted and no panel can be formed now.
    Vacant,
    /// Votes were cast: the members, seat by seat (mode and rule unchanged).
    Refilled(Vec<(UserId, Seat)>),
}

/// The panel of an open case after the officials changed: `computed` is the panel the rules
/// give now, `stored` the members seated so far, `voted` the members who have voted and
/// `holds(user, seat)` whether a member still holds the seat's role and is not a party.
pub fn after_staff_change(
    computed: Result<Panel, PanelError>,
    stored: &[(UserId, Seat)],
    voted: &[UserId],
    holds: impl Fn(UserId, Seat) -> bool,
) -> NewPanel {
    if voted.is_empty() {
        return match computed {
            Ok(p) => NewPanel::Recomputed(p),
            Err(_) => NewPanel::Vacant,
        };
    }
    let candidates = match computed {
        Ok(p) if p.mode == PanelMode::Vote => p.members,
        _ => Vec::new(),
    };
    let mut spare = candidates
        .into_iter()
        .filter(|(u, _)| !stored.iter().any(|(m, _)| m == u));
    NewPanel::Refilled(
        stored
            .iter()
            .map(|&(u, seat)| {
                if voted.contains(&u) || holds(u, seat) {
                    (u, seat)
                } else {
                    spare.next().unwrap_or((u, seat))
                }
            })
            .collect(),
    )
}

/// Whether the appeals committee is fixed: seed 000 section (4) gives the appeals committee
/// "tre forhåndsoppnevnte medlemmer", three members appointed beforehand, so once the
/// tournament has started (a round is drawn, or it is running or finished) its members are
/// neither appointed nor dismissed. The seed provides no replacement: a member involved in a
/// case stands aside and the referee sits with the remaining members
/// ([`crate::domain::cases::deciding_panel`]), so no change is allowed at all.
pub fn committee_fixed(status: TournamentStatus, round_drawn: bool) -> bool {
    round_drawn
        || matches!(
            status,
            TournamentStatus::Running | TournamentStatus::Finished
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::cases::{deciding_panel, CaseKind};

    const R: UserId = 1;
    const R2: UserId = 2;
    const C1: UserId = 11;
    const C2: UserId = 12;
    const C3: UserId = 13;
    const P: UserId = 21;

    #[test]
    fn the_committee_is_fixed_once_the_tournament_started() {
        use TournamentStatus::*;
        assert!(!committee_fixed(Draft, false));
        assert!(!committee_fixed(RegistrationOpen, false));
        assert!(committee_fixed(RegistrationOpen, true));
        assert!(committee_fixed(Running, false));
        assert!(committee_fixed(Finished, false));
    }

    #[test]
    fn without_votes_the_panel_is_computed_again_or_left_vacant() {
        let now = deciding_panel(CaseKind::Complaint, &[R2], &[C1, C2, C3], &[P]);
        let got = after_staff_change(now.clone(), &[(R, Seat::Referee)], &[], |_, _| false);
        assert_eq!(got, NewPanel::Recomputed(now.unwrap()));
        let none = deciding_panel(CaseKind::Appeal, &[], &[C1, C2], &[P]);
        let stored = [
            (C1, Seat::Committee),
            (C2, Seat::Committee),
            (C3, Seat::Committee),
        ];
        assert_eq!(
            after_staff_change(none, &stored, &[], |_, _| true),
            NewPanel::Vacant
        );
    }

    #[test]
    fn with_votes_voters_stay_and_a_lost_seat_goes_to_a_free_official() {
        // The complaint involves C1: R, C2, C3 decide; C2 voted, then R was dismissed and R2
        // appointed.
        let stored = [
            (R, Seat::Referee),
            (C2, Seat::Committee),
            (C3, Seat::Committee),
        ];
        let now = deciding_panel(CaseKind::Complaint, &[R2], &[C1, C2, C3], &[P, C1]);
        let holds = |u: UserId, _| u != R;
        assert_eq!(
            after_staff_change(now, &stored, &[C2], holds),
            NewPanel::Refilled(vec![
                (R2, Seat::Referee),
                (C2, Seat::Committee),
                (C3, Seat::Committee)
            ])
        );
        // Nobody free: the seat stays with its holder, who cannot act.
        let now = deciding_panel(CaseKind::Complaint, &[], &[C1, C2, C3], &[P, C1]);
        assert_eq!(
            after_staff_change(now, &stored, &[C2], holds),
            NewPanel::Refilled(stored.to_vec())
        );
        // A member who voted keeps the seat even once dismissed: the vote counts.
        let now = deciding_panel(CaseKind::Complaint, &[R2], &[C1, C2, C3], &[P, C1]);
        assert_eq!(
            after_staff_change(now, &stored, &[R], |u, _| u != R),
            NewPanel::Refilled(stored.to_vec())
        );
    }
}
