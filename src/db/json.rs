//! JSON columns read and written as the domain's types (issue 39): a row holds a
//! `Vec<Remedy>`, not a `serde_json::Value`, and the value is parsed once, as the row is read.
//!
//! One policy for a stored value that does not parse: an error naming the table, the row and
//! the column (`tournaments row 5: bad ruleset_overrides: ...`, a 500, logged), never a
//! default. [`Parsed`] reads a column and keeps why it did not parse; the row's `Queryable`
//! then names the row with [`Parsed::named`] (it knows the row's id, a column cannot).
//! [`Json`] writes a typed value into a JSONB column.

use std::fmt;
use std::io::Write;

use diesel::deserialize::{self, FromSql, Queryable};
use diesel::expression::AsExpression;
use diesel::pg::{Pg, PgValue};
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::Jsonb;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The JSONB format version PostgreSQL sends and expects before the text.
const JSONB_VERSION: u8 = 1;

/// A JSONB column parsed as `T`, or why it does not parse.
#[derive(Debug)]
pub struct Parsed<T>(Result<T, String>);

impl<T> Parsed<T> {
    /// The value; one that does not parse is an error naming `table`, row `id` and `column`.
    pub fn named(self, table: &str, id: impl fmt::Display, column: &str) -> deserialize::Result<T> {
        self.0
            .map_err(|e| format!("{table} row {id}: bad {column}: {e}").into())
    }
}

impl<T: DeserializeOwned> FromSql<Jsonb, Pg> for Parsed<T> {
    fn from_sql(value: PgValue<'_>) -> deserialize::Result<Self> {
        let bytes = value.as_bytes();
        let Some((&JSONB_VERSION, text)) = bytes.split_first() else {
            return Err("unsupported JSONB encoding version".into());
        };
        Ok(Self(
            serde_json::from_slice(text).map_err(|e| e.to_string()),
        ))
    }
}

impl<T: DeserializeOwned> Queryable<Jsonb, Pg> for Parsed<T> {
    type Row = Self;

    fn build(row: Self) -> deserialize::Result<Self> {
        Ok(row)
    }
}

/// A typed value written into a JSONB column (`#[diesel(serialize_as = Json<T>)]` on an
/// insert's field, or `column.eq(Json(&value))`).
#[derive(Debug, AsExpression)]
#[diesel(sql_type = Jsonb)]
pub struct Json<T: Serialize + fmt::Debug>(pub T);

impl<T: Serialize + fmt::Debug> From<T> for Json<T> {
    fn from(value: T) -> Self {
        Self(value)
    }
}

impl<T: Serialize + fmt::Debug> ToSql<Jsonb, Pg> for Json<T> {
    fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
        out.write_all(&[JSONB_VERSION])?;
        serde_json::to_writer(out, &self.0)?;
        Ok(IsNull::No)
    }
}

/// Reads a row through its stored form: `$row` selects what `$stored` selects, and is built
/// from it by `$stored`'s `decode`, which names the row when one of its JSON columns does not
/// parse.
macro_rules! read_through {
    ($row:ty, $stored:ty) => {
        impl diesel::Selectable<diesel::pg::Pg> for $row {
            type SelectExpression =
                <$stored as diesel::Selectable<diesel::pg::Pg>>::SelectExpression;

            fn construct_selection() -> Self::SelectExpression {
                <$stored as diesel::Selectable<diesel::pg::Pg>>::construct_selection()
            }
        }

        impl<ST> diesel::deserialize::Queryable<ST, diesel::pg::Pg> for $row
        where
            $stored: diesel::deserialize::Queryable<ST, diesel::pg::Pg>,
        {
            type Row = <$stored as diesel::deserialize::Queryable<ST, diesel::pg::Pg>>::Row;

            fn build(row: Self::Row) -> diesel::deserialize::Result<Self> {
                <$stored as diesel::deserialize::Queryable<ST, diesel::pg::Pg>>::build(row)?
                    .decode()
            }
        }
    };
}
pub(crate) use read_through;

#[cfg(test)]
mod tests {
    use super::*;

    /// A value that did not parse is an error naming the table, the row and the column.
    #[test]
    fn named_names_the_row_and_the_column() {
        let bad: Parsed<Vec<String>> = Parsed(Err("invalid type: integer".into()));
        let err = bad.named("cases", 7, "evidence_links").unwrap_err();
        assert_eq!(
            err.to_string(),
            "cases row 7: bad evidence_links: invalid type: integer"
        );
        let good: Parsed<Vec<String>> = Parsed(Ok(vec!["x".into()]));
        assert_eq!(good.named("cases", 7, "evidence_links").unwrap(), ["x"]);
    }
}
