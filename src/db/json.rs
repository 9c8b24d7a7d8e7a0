//! JSON columns read and written as the domain's types (issue 39): a row holds a
//! `Vec<Remedy>`, not a `serde_json::Value`, and the value is parsed once, as the row is read.
//!
//! One helper and one policy for every JSON column of `src/db`. A stored value that does not
//! parse is an error naming the table, the row and the column (`tournaments row 5: bad
//! ruleset_overrides: ...`, `rounds row 5: draw: ...`; a 500, logged), never a default.
//! [`Parsed`] reads a column's text; the row's `Queryable` parses it and names the row with
//! [`Parsed::named`] or [`Parsed::at`] (it knows the row's id, a column cannot). [`Json`]
//! writes a typed value into a JSONB or JSON column.

use std::fmt;
use std::io::Write;
use std::marker::PhantomData;

use diesel::deserialize::{self, FromSql, Queryable};
use diesel::expression::AsExpression;
use diesel::pg::{Pg, PgValue};
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::{self, Jsonb};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The JSONB format version PostgreSQL sends and expects before the text.
const JSONB_VERSION: u8 = 1;

/// A JSON or JSONB column to be read as `T`: its text as stored, parsed when the row names it
/// ([`Parsed::named`]), so a row parses only the columns it keeps (a rated round's draw is
/// parsed for a team duplicate round only, `db::ratings::games`).
pub struct Parsed<T> {
    text: Vec<u8>,
    of: PhantomData<fn() -> T>,
}

impl<T> fmt::Debug for Parsed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Parsed")
            .field(&String::from_utf8_lossy(&self.text))
            .finish()
    }
}

impl<T: DeserializeOwned> Parsed<T> {
    /// The value; one that does not parse is an error naming `table`, row `id` and `column`.
    pub fn named(self, table: &str, id: impl fmt::Display, column: &str) -> deserialize::Result<T> {
        self.parse()
            .map_err(|e| format!("{table} row {id}: bad {column}: {e}").into())
    }

    /// The value; one that does not parse is an error naming the row `at` (`rounds row 5`,
    /// `results row 5/1/2`) and `column`. The wording of the rows of rounds, draw attempts and
    /// results (`rounds row 5: draw: ...`), where [`named`](Self::named) says `bad draw`.
    pub fn at(self, row: &dyn fmt::Display, column: &str) -> deserialize::Result<T> {
        self.parse()
            .map_err(|e| format!("{row}: {column}: {e}").into())
    }

    fn parse(&self) -> Result<T, String> {
        serde_json::from_slice(&self.text).map_err(|e| e.to_string())
    }
}

impl<T> FromSql<Jsonb, Pg> for Parsed<T> {
    fn from_sql(value: PgValue<'_>) -> deserialize::Result<Self> {
        let bytes = value.as_bytes();
        let Some((&JSONB_VERSION, text)) = bytes.split_first() else {
            return Err("unsupported JSONB encoding version".into());
        };
        Ok(Self {
            text: text.to_vec(),
            of: PhantomData,
        })
    }
}

impl<T> FromSql<sql_types::Json, Pg> for Parsed<T> {
    fn from_sql(value: PgValue<'_>) -> deserialize::Result<Self> {
        Ok(Self {
            text: value.as_bytes().to_vec(),
            of: PhantomData,
        })
    }
}

impl<T> Queryable<Jsonb, Pg> for Parsed<T> {
    type Row = Self;

    fn build(row: Self) -> deserialize::Result<Self> {
        Ok(row)
    }
}

impl<T> Queryable<sql_types::Json, Pg> for Parsed<T> {
    type Row = Self;

    fn build(row: Self) -> deserialize::Result<Self> {
        Ok(row)
    }
}

/// A typed value written into a JSONB or JSON column (`#[diesel(serialize_as = Json<T>)]` on an
/// insert's field, or `column.eq(Json(&value))`).
#[derive(Debug, AsExpression)]
#[diesel(sql_type = Jsonb)]
#[diesel(sql_type = sql_types::Json)]
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

/// A JSON (text) column keeps its text as written: the value goes through `serde_json::Value`
/// first, the form these columns have always been written in (an object's keys in order).
impl<T: Serialize + fmt::Debug> ToSql<sql_types::Json, Pg> for Json<T> {
    fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
        serde_json::to_writer(out, &serde_json::to_value(&self.0)?)?;
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

/// Declares a row whose JSON columns are parsed as it is read, from one field list (issue 39):
/// the row `$row` with each field as the services read it; its stored twin `$stored`, diesel's
/// `Queryable` and `Selectable` of `$table`, with each JSON field (`as json`; `as json_or_null`
/// for a nullable column) read as [`Parsed`]; and the reading of `$row` through `$stored`
/// ([`read_through`]). A JSON column that does not parse is an error naming the table
/// (`$name`), the row (`$at`, computed from the stored row `$s`) and the column:
/// `cases row 7: bad remedy: ...`.
macro_rules! stored_row {
    (
        $(#[$meta:meta])*
        pub struct $row:ident {
            $(
                $(#[$field_meta:meta])*
                pub $field:ident: $ty:ty $(as $json:ident)?
            ),* $(,)?
        }
        read through $stored:ident from $table:ident, named $name:literal row |$s:ident| $at:expr;
    ) => {
        $(#[$meta])*
        pub struct $row {
            $(
                $(#[$field_meta])*
                pub $field: $ty,
            )*
        }

        #[doc = concat!("A `", stringify!($table), "` row as stored, its JSON columns not yet ")]
        #[doc = concat!("parsed: [`", stringify!($row), "`] is read through it.")]
        #[derive(Debug, diesel::Queryable, diesel::Selectable)]
        #[diesel(table_name = $table)]
        pub struct $stored {
            $(
                pub $field: $crate::db::json::stored_type!($ty $(, $json)?),
            )*
        }

        impl $stored {
            fn decode(self) -> diesel::deserialize::Result<$row> {
                let at = {
                    let $s = &self;
                    $at
                };
                Ok($row {
                    $(
                        $field: $crate::db::json::parsed_field!(
                            self.$field, $name, &at, $field $(, $json)?
                        ),
                    )*
                })
            }
        }

        $crate::db::json::read_through!($row, $stored);
    };
}
pub(crate) use stored_row;

/// A field's type in a row's stored twin (see [`stored_row`]).
macro_rules! stored_type {
    ($ty:ty) => { $ty };
    ($ty:ty, json) => { $crate::db::json::Parsed<$ty> };
    ($ty:ty, json_or_null) => {
        Option<$crate::db::json::Parsed<<$ty as $crate::db::json::OrNull>::Value>>
    };
}
pub(crate) use stored_type;

/// A field of a row read from its stored twin (see [`stored_row`]).
macro_rules! parsed_field {
    ($value:expr, $name:literal, $at:expr, $field:ident) => {
        $value
    };
    ($value:expr, $name:literal, $at:expr, $field:ident, json) => {
        $value.named($name, $at, stringify!($field))?
    };
    ($value:expr, $name:literal, $at:expr, $field:ident, json_or_null) => {
        $value
            .map(|v| v.named($name, $at, stringify!($field)))
            .transpose()?
    };
}
pub(crate) use parsed_field;

/// The value a nullable JSON column holds when it is not NULL (`T` of `Option<T>`).
pub trait OrNull {
    type Value;
}

impl<T> OrNull for Option<T> {
    type Value = T;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value that did not parse is an error naming the table, the row and the column.
    #[test]
    fn named_names_the_row_and_the_column() {
        let text = |t: &str| Parsed::<Vec<String>> {
            text: t.as_bytes().to_vec(),
            of: PhantomData,
        };
        let err = text("[1]").named("cases", 7, "evidence_links").unwrap_err();
        assert_eq!(
            err.to_string(),
            "cases row 7: bad evidence_links: invalid type: integer `1`, expected a string at line 1 column 2"
        );
        let good = text(r#"["x"]"#);
        assert_eq!(good.named("cases", 7, "evidence_links").unwrap(), ["x"]);
    }
}
