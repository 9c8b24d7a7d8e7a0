//! Id newtypes for every table, mapped to their `BIGINT` columns once.
//!
//! The domain's own ids (`PlayerId`, `TournamentId`, `RoundId`, `UserId`, `CaseId`, `PoolId`)
//! live in `domain::ids` (the rules speak of them); the ids only the store speaks of are
//! declared here. Every one of them reads from and writes to `BigInt` (and `Nullable<BigInt>`),
//! by value or by reference, so a row holds a `RoundId`, a store function takes one, and the
//! compiler refuses a `PlayerId` where a `TournamentId` goes.
//!
//! The serialised form of every id is the bare number (`#[serde(transparent)]`), so answers keep
//! their shape.

use diesel::deserialize::{self, FromSql, Queryable};
use diesel::expression::AsExpression;
use diesel::pg::{Pg, PgValue};
use diesel::serialize::{self, Output, ToSql};
use diesel::sql_types::{BigInt, Nullable};
use serde::{Deserialize, Serialize};
use std::fmt;

pub use crate::domain::ids::{CaseId, PlayerId, PoolId, RoundId, TournamentId, UserId};

macro_rules! store_id {
    ($($(#[$doc:meta])* $name:ident),+ $(,)?) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }

        impl From<i64> for $name {
            fn from(id: i64) -> Self {
                Self(id)
            }
        }
    )+};
}

store_id! {
    /// A registration (`registrations.id`).
    RegistrationId,
    /// A team of a team event (`teams.id`).
    TeamId,
    /// A withdrawal (`withdrawals.id`).
    WithdrawalId,
    /// A penalty (`penalties.id`).
    PenaltyId,
    /// A player's report of a result (`result_reports.id`).
    ReportId,
    /// A message about scheduling a game (`schedule_messages.id`).
    ScheduleMessageId,
    /// An event of a tournament's log (`tournament_events.id`).
    TournamentEventId,
    /// A check-out of a tournament (`tournament_checkouts.id`).
    CheckoutId,
    /// A party to a case (`case_parties.id`).
    PartyId,
    /// An event of a case's history (`case_events.id`).
    CaseEventId,
    /// A rating decision (`rating_decisions.id`).
    DecisionId,
    /// An import of a rating list (`rating_imports.id`).
    ImportId,
    /// An event of a pool's log (`pool_events.id`).
    PoolEventId,
    /// An invitation (`invitations.id`).
    InvitationId,
    /// A claim of a player profile (`player_claims.id`).
    ClaimId,
    /// A link between an account and a player (`player_links.id`).
    PlayerLinkId,
    /// A mail in the outbox (`mail_outbox.id`).
    MailId,
    /// A one-use account token (`account_tokens.id`).
    AccountTokenId,
    /// A refresh token (`refresh_tokens.id`).
    RefreshTokenId,
    /// A sign-in: the family of refresh tokens that rotate within it (`refresh_tokens.family_id`).
    SessionFamilyId,
    /// An API key (`api_keys.id`).
    ApiKeyId,
    /// A webhook endpoint (`webhook_endpoints.id`).
    WebhookId,
    /// A delivery of a webhook (`webhook_deliveries.id`).
    DeliveryId,
}

/// Maps each id to `BigInt` through its number.
macro_rules! stored_as_bigint {
    ($($ty:ty),+ $(,)?) => {$(
        impl ToSql<BigInt, Pg> for $ty {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
                <i64 as ToSql<BigInt, Pg>>::to_sql(&self.0, out)
            }
        }

        impl FromSql<BigInt, Pg> for $ty {
            fn from_sql(value: PgValue<'_>) -> deserialize::Result<Self> {
                <i64 as FromSql<BigInt, Pg>>::from_sql(value).map(Self)
            }
        }

        impl Queryable<BigInt, Pg> for $ty {
            type Row = Self;

            fn build(row: Self) -> deserialize::Result<Self> {
                Ok(row)
            }
        }

        impl AsExpression<BigInt> for $ty {
            type Expression = <i64 as AsExpression<BigInt>>::Expression;

            fn as_expression(self) -> Self::Expression {
                AsExpression::<BigInt>::as_expression(self.0)
            }
        }

        impl AsExpression<BigInt> for &$ty {
            type Expression = <i64 as AsExpression<BigInt>>::Expression;

            fn as_expression(self) -> Self::Expression {
                AsExpression::<BigInt>::as_expression(self.0)
            }
        }

        impl AsExpression<Nullable<BigInt>> for $ty {
            type Expression = <i64 as AsExpression<Nullable<BigInt>>>::Expression;

            fn as_expression(self) -> Self::Expression {
                AsExpression::<Nullable<BigInt>>::as_expression(self.0)
            }
        }

        impl AsExpression<Nullable<BigInt>> for &$ty {
            type Expression = <i64 as AsExpression<Nullable<BigInt>>>::Expression;

            fn as_expression(self) -> Self::Expression {
                AsExpression::<Nullable<BigInt>>::as_expression(self.0)
            }
        }
    )+};
}

stored_as_bigint! {
    PlayerId, TournamentId, RoundId, UserId, CaseId, PoolId,
    RegistrationId, TeamId, WithdrawalId, PenaltyId, ReportId, ScheduleMessageId,
    TournamentEventId, CheckoutId, PartyId, CaseEventId, DecisionId, ImportId, PoolEventId,
    InvitationId, ClaimId, PlayerLinkId, MailId, AccountTokenId, RefreshTokenId, SessionFamilyId,
    ApiKeyId,
    WebhookId, DeliveryId,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::schema::{invitations, rounds};
    use diesel::prelude::*;

    /// An id is bound as its number in filters, `IN` lists and inserts; a nullable column takes
    /// one too.
    #[test]
    fn ids_bind_as_their_numbers() {
        let q = rounds::table
            .filter(rounds::id.eq(RoundId(7)))
            .filter(rounds::tournament_id.eq_any(vec![TournamentId(3), TournamentId(4)]))
            .select(rounds::id);
        let sql = diesel::debug_query::<Pg, _>(&q).to_string();
        assert!(
            sql.contains("binds: [7, [TournamentId(3), TournamentId(4)]]"),
            "{sql}"
        );
        let q = invitations::table
            .filter(invitations::player_id.eq(PlayerId(9)))
            .select(invitations::player_id);
        let sql = diesel::debug_query::<Pg, _>(&q).to_string();
        assert!(sql.contains("binds: [9]"), "{sql}");
    }

    /// Ids read back typed, nullable ones as `Option` (a compile-time check: never run).
    #[allow(dead_code)]
    fn typed_reads(conn: &mut diesel::PgConnection) -> QueryResult<Vec<(RoundId, TournamentId)>> {
        let _: Vec<Option<PlayerId>> = invitations::table
            .select(invitations::player_id)
            .load(conn)?;
        rounds::table
            .select((rounds::id, rounds::tournament_id))
            .load(conn)
    }

    #[test]
    fn ids_serialise_as_bare_numbers() {
        assert_eq!(serde_json::to_string(&WebhookId(12)).unwrap(), "12");
        assert_eq!(
            serde_json::from_str::<RegistrationId>("5").unwrap(),
            RegistrationId(5)
        );
    }
}
