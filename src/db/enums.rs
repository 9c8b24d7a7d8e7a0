//! The closed sets stored in TEXT columns (statuses, kinds, methods, rulesets), read and
//! written as the domain's enums: a row holds a `RoundStatus`, not a string, so every place
//! that branches on it is a `match` the compiler checks.
//!
//! The names stay the ones stored (each enum's `as_str`/`parse`, the one mapping between a
//! value and its name); no column changes. A stored name the enum does not know is a
//! deserialization error naming the value and the column (a 500, logged), never a default.
//!
//! The domain knows nothing of diesel; the mapping lives here. Each enum gets
//! `ToSql`/`FromSql` for `Text` on PostgreSQL, `Queryable` (a field of a row) and
//! `AsExpression` for `Text` and `Nullable<Text>` (a value in a filter, an insert or an
//! update, by value or by reference), which is what diesel's `AsExpression`/`FromSqlRow`
//! derives would generate on the type itself.

use diesel::deserialize::{self, FromSql, Queryable};
use diesel::expression::AsExpression;
use diesel::pg::{Pg, PgValue};
use diesel::serialize::{self, Output, ToSql};
use diesel::sql_types::{Nullable, Text};

use crate::domain::accounts::{ClaimStatus, Language, TokenPurpose};
use crate::domain::case_sets::{
    CaseOutcome, CaseStep, CaseSubject, PanelReason, PartyRole, Verdict,
};
use crate::domain::cases::{CaseKind, PanelMode, Seat};
use crate::domain::colours::Colour;
use crate::domain::events::LiveEventKind;
use crate::domain::rating::acceptance::RatingStatus;
use crate::domain::rating::replay::ChangeKind;
use crate::domain::scoring::penalty::RecordedPenalty;
use crate::domain::scoring::standings::WithdrawalKind;
use crate::domain::scoring::{Preset, RoundKind};
use crate::domain::seating::SeatingMethod;
use crate::domain::staff::StaffRole;
use crate::domain::status::{
    CaseStatus, CheckoutState, DeliveryStatus, RegistrationStatus, ReportStatus, RoundStatus,
    ScheduleState, TournamentStatus,
};

/// The value a stored name names; an unknown name is an error that names it and what it
/// should have been (diesel adds the column).
pub fn decode<T>(stored: &str, what: &str, parse: fn(&str) -> Option<T>) -> deserialize::Result<T> {
    parse(stored).ok_or_else(|| format!("unknown {what} stored: {stored:?}").into())
}

/// Maps each enum to `Text` through its `as_str` and `parse`.
macro_rules! stored_as_text {
    ($($ty:ty => $what:literal),+ $(,)?) => {$(
        impl ToSql<Text, Pg> for $ty {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
                <str as ToSql<Text, Pg>>::to_sql(self.as_str(), out)
            }
        }

        impl FromSql<Text, Pg> for $ty {
            fn from_sql(value: PgValue<'_>) -> deserialize::Result<Self> {
                decode(std::str::from_utf8(value.as_bytes())?, $what, <$ty>::parse)
            }
        }

        impl Queryable<Text, Pg> for $ty {
            type Row = Self;

            fn build(row: Self) -> deserialize::Result<Self> {
                Ok(row)
            }
        }

        impl AsExpression<Text> for $ty {
            type Expression = <&'static str as AsExpression<Text>>::Expression;

            fn as_expression(self) -> Self::Expression {
                AsExpression::<Text>::as_expression(self.as_str())
            }
        }

        impl AsExpression<Text> for &$ty {
            type Expression = <&'static str as AsExpression<Text>>::Expression;

            fn as_expression(self) -> Self::Expression {
                AsExpression::<Text>::as_expression(self.as_str())
            }
        }

        impl AsExpression<Nullable<Text>> for $ty {
            type Expression = <&'static str as AsExpression<Nullable<Text>>>::Expression;

            fn as_expression(self) -> Self::Expression {
                AsExpression::<Nullable<Text>>::as_expression(self.as_str())
            }
        }

        impl AsExpression<Nullable<Text>> for &$ty {
            type Expression = <&'static str as AsExpression<Nullable<Text>>>::Expression;

            fn as_expression(self) -> Self::Expression {
                AsExpression::<Nullable<Text>>::as_expression(self.as_str())
            }
        }
    )+};
}

stored_as_text! {
    TournamentStatus => "tournament status",
    Preset => "ruleset",
    RatingStatus => "rating status",
    RegistrationStatus => "registration status",
    Colour => "colour",
    RoundStatus => "round status",
    RoundKind => "round kind",
    SeatingMethod => "seating method",
    WithdrawalKind => "withdrawal kind",
    RecordedPenalty => "penalty kind",
    ChangeKind => "rating change kind",
    CaseStatus => "case status",
    CaseKind => "case kind",
    PanelMode => "panel mode",
    Seat => "panel seat",
    ScheduleState => "schedule state",
    CheckoutState => "check-out state",
    Language => "language",
    TokenPurpose => "token purpose",
    ClaimStatus => "claim status",
    ReportStatus => "result report status",
    crate::domain::rating::acceptance::DecisionKind => "rating decision kind",
    CaseSubject => "case subject",
    PartyRole => "party role",
    Verdict => "vote",
    CaseOutcome => "case outcome",
    PanelReason => "panel rule",
    CaseStep => "case step",
    DeliveryStatus => "delivery status",
    StaffRole => "staff role",
    LiveEventKind => "event kind",
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant's stored name reads back as the variant, and the names are distinct.
    fn round_trips<T: Copy + PartialEq + std::fmt::Debug>(
        what: &str,
        all: &[T],
        as_str: fn(T) -> &'static str,
        parse: fn(&str) -> Option<T>,
    ) {
        for &v in all {
            assert_eq!(decode(as_str(v), what, parse).unwrap(), v, "{what} {v:?}");
        }
        let mut names: Vec<&str> = all.iter().map(|&v| as_str(v)).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len(), "{what}: two variants share a name");
        let err = decode("no_such_name", what, parse).unwrap_err().to_string();
        assert_eq!(err, format!("unknown {what} stored: \"no_such_name\""));
    }

    #[test]
    fn every_variant_round_trips_and_an_unknown_name_is_an_error_naming_it() {
        use TournamentStatus as T;
        round_trips(
            "tournament status",
            &[T::Draft, T::RegistrationOpen, T::Running, T::Finished],
            T::as_str,
            T::parse,
        );
        round_trips("ruleset", &Preset::ALL, Preset::as_str, Preset::parse);
        use RatingStatus as R;
        round_trips(
            "rating status",
            &[R::Pending, R::Accepted, R::Refused, R::Withdrawn],
            R::as_str,
            R::parse,
        );
        use RegistrationStatus as G;
        round_trips(
            "registration status",
            &[G::Confirmed, G::Waitlisted, G::Cancelled],
            G::as_str,
            G::parse,
        );
        round_trips("colour", &Colour::ALL, Colour::as_str, Colour::parse);
        use RoundStatus as S;
        round_trips(
            "round status",
            &[S::Draft, S::Published, S::Completed],
            S::as_str,
            S::parse,
        );
        use RoundKind as K;
        round_trips(
            "round kind",
            &[K::Preliminary, K::Final, K::Voluntary, K::Playoff],
            K::as_str,
            K::parse,
        );
        use SeatingMethod as M;
        round_trips(
            "seating method",
            &[
                M::Random,
                M::RandomSeeded,
                M::FixedSeeded,
                M::PlacementEven,
                M::Swiss,
                M::Danish,
                M::Clarification,
                M::ClarificationBonus,
                M::FinalGroups,
                M::Bridge,
                M::TeamDuplicate,
                M::Swiss2p,
                M::RoundRobin,
                M::Knockout,
            ],
            M::as_str,
            M::parse,
        );
        use WithdrawalKind as W;
        round_trips(
            "withdrawal kind",
            &[W::Withdrawal, W::OptOut],
            W::as_str,
            W::parse,
        );
        use RecordedPenalty as P;
        round_trips(
            "penalty kind",
            &[P::PointPenalty, P::Warning, P::GameLoss, P::Removal],
            P::as_str,
            P::parse,
        );
        use ChangeKind as C;
        round_trips(
            "rating change kind",
            &[C::Game, C::Bonus, C::Import],
            C::as_str,
            C::parse,
        );
        use CaseStatus as A;
        round_trips(
            "case status",
            &[A::Open, A::Decided, A::Appealed],
            A::as_str,
            A::parse,
        );
        use CaseKind as B;
        round_trips("case kind", &[B::Complaint, B::Appeal], B::as_str, B::parse);
        use PanelMode as D;
        round_trips("panel mode", &[D::Referee, D::Vote], D::as_str, D::parse);
        round_trips(
            "panel seat",
            &[Seat::Referee, Seat::Committee],
            Seat::as_str,
            Seat::parse,
        );
        use ScheduleState as E;
        round_trips(
            "schedule state",
            &[E::Open, E::Proposed, E::Agreed, E::Forfeited],
            E::as_str,
            E::parse,
        );
        use ReportStatus as Q;
        round_trips(
            "result report status",
            &[Q::Pending, Q::Confirmed, Q::Disputed, Q::Superseded],
            Q::as_str,
            Q::parse,
        );
    }

    /// The names are the ones the migrations' CHECK constraints allow (nothing stored
    /// changes): the ones a TEXT column of each set holds today.
    #[test]
    fn the_names_are_the_stored_ones() {
        let names = |all: &[&'static str]| all.join(",");
        assert_eq!(
            names(&Preset::ALL.map(Preset::as_str)),
            "agricola_norway,bridge_agricola,team_duplicate_2v2,tantrix,ashes_league"
        );
        assert_eq!(SeatingMethod::Swiss2p.as_str(), "swiss_2p");
        assert_eq!(
            TournamentStatus::RegistrationOpen.as_str(),
            "registration_open"
        );
        assert_eq!(WithdrawalKind::OptOut.as_str(), "opt_out");
        assert_eq!(RecordedPenalty::PointPenalty.as_str(), "point_penalty");
        assert_eq!(RecordedPenalty::GameLoss.as_str(), "game_loss");
        assert_eq!(ChangeKind::Import.as_str(), "import");
        assert_eq!(CaseKind::Appeal.as_str(), "appeal");
        assert_eq!(PanelMode::Vote.as_str(), "vote");
        assert_eq!(Seat::Committee.as_str(), "committee");
    }

    /// Every variant's name is also its JSON name, so a row value put into a JSON payload
    /// (the live feed, the audit trail) reads as it did when it was a string.
    #[test]
    fn stored_names_are_the_json_names() {
        fn same<T: serde::Serialize + Copy>(all: &[T], as_str: fn(T) -> &'static str) {
            for &v in all {
                assert_eq!(serde_json::to_value(v).unwrap(), as_str(v));
            }
        }
        same(&Preset::ALL, Preset::as_str);
        same(&Colour::ALL, Colour::as_str);
        use SeatingMethod as M;
        same(
            &[
                M::Swiss2p,
                M::RoundRobin,
                M::ClarificationBonus,
                M::TeamDuplicate,
            ],
            M::as_str,
        );
        use RoundKind as K;
        same(
            &[K::Preliminary, K::Final, K::Voluntary, K::Playoff],
            K::as_str,
        );
        same(
            &[WithdrawalKind::Withdrawal, WithdrawalKind::OptOut],
            WithdrawalKind::as_str,
        );
        use ChangeKind as C;
        same(&[C::Game, C::Bonus, C::Import], C::as_str);
    }

    #[test]
    fn a_rating_decision_kind_round_trips() {
        use crate::domain::rating::acceptance::DecisionKind as D;
        round_trips(
            "rating decision kind",
            &[D::Status, D::TimeChanged, D::TimeChangeRefused],
            D::as_str,
            D::parse,
        );
    }
}
