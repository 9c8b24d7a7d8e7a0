//! The search by name that the registry's lists of players and of rating pools share (and
//! whose score the tournaments' list takes): a table with `name`, its folded form
//! `name_folded` (migrations `player_search`, `pool_names`) and `id`, searched by a text `q`
//! as a substring of the folded name or a near match of one of its words (pg_trgm's `<%`),
//! ranked by word similarity or ordered by name (its bytes, `COLLATE "C"`), ties by name then
//! id, and paged by keyset
//! after the last row of the page before.

use diesel::dsl::sql;
use diesel::expression::{BoxableExpression, SqlLiteral};
use diesel::pg::Pg;
use diesel::sql_types::{BigInt, Bool, Float, Nullable, Text};

/// Where a page of a name search starts after the one before: the last row's keys.
#[derive(Debug, Clone)]
pub enum NamesAfter<I> {
    /// Ranked by similarity: its negated similarity, name and id.
    Ranked(f32, String, I),
    /// By name: its name and id.
    Named(String, I),
}

impl<I: Copy + Into<i64>> NamesAfter<I> {
    /// The keys as the index takes them (`infra::search::Query::after`): the negated similarity
    /// (0 by name), the name and the id.
    pub fn keys(&self) -> (f32, &str, i64) {
        match self {
            NamesAfter::Ranked(rank, name, id) => (*rank, name, (*id).into()),
            NamesAfter::Named(name, id) => (0.0, name, (*id).into()),
        }
    }
}

/// A boolean SQL condition over the rows of `QS`.
pub type Condition<QS> = Box<dyn BoxableExpression<QS, Pg, SqlType = Bool>>;

/// The search of one table: its name in SQL.
#[derive(Debug, Clone, Copy)]
pub struct Named(pub &'static str);

impl Named {
    /// The rows whose folded name holds `q` (folded) or a near match of one of its words.
    pub fn matches<QS>(self, q: &str) -> Condition<QS> {
        let t = self.0;
        Box::new(
            sql::<Bool>(&format!("({t}.name_folded LIKE tourney_like_pattern("))
                .bind::<Text, _>(q.to_string())
                .sql(") OR tourney_fold(")
                .bind::<Text, _>(q.to_string())
                .sql(&format!(") <% {t}.name_folded)")),
        )
    }

    /// The similarity of a row's name to `q` (0 for an empty `q`, written as the constant: the
    /// function for every row was a third of a page by cursor's time in PostgreSQL).
    pub fn score<QS>(self, q: &str) -> Box<dyn BoxableExpression<QS, Pg, SqlType = Float>> {
        if q.is_empty() {
            return Box::new(sql::<Float>("0::real"));
        }
        Box::new(
            sql::<Float>("word_similarity(tourney_fold(")
                .bind::<Text, _>(q.to_string())
                .sql(&format!("), {}.name_folded)", self.0)),
        )
    }

    /// The name as the lists order it: by its bytes (`COLLATE "C"`), whatever the database's
    /// collation, so that an instance's search index (`infra::search`, which orders by the
    /// bytes) and PostgreSQL give one order, and the name indexes (migration `names_bytewise`)
    /// serve it.
    pub fn name(self) -> SqlLiteral<Text> {
        sql::<Text>(&self.name_sql())
    }

    /// [`Named::name`] in SQL.
    fn name_sql(self) -> String {
        format!("{}.name COLLATE \"C\"", self.0)
    }

    /// The rows after `after` in the list's order (by similarity to `q`, or by name).
    pub fn after<QS, I: Copy + Into<i64>>(self, q: &str, after: NamesAfter<I>) -> Condition<QS> {
        let (t, name_sql) = (self.0, self.name_sql());
        match after {
            NamesAfter::Ranked(rank, name, id) => Box::new(
                sql::<Bool>("(-word_similarity(tourney_fold(")
                    .bind::<Text, _>(q.to_string())
                    .sql(&format!("), {t}.name_folded), {name_sql}, {t}.id) > ("))
                    .bind::<Float, _>(rank)
                    .sql(", ")
                    .bind::<Text, _>(name)
                    .sql(", ")
                    .bind::<BigInt, _>(id.into())
                    .sql(")"),
            ),
            NamesAfter::Named(name, id) => Box::new(
                sql::<Bool>(&format!("({name_sql}, {t}.id) > ("))
                    .bind::<Text, _>(name)
                    .sql(", ")
                    .bind::<BigInt, _>(id.into())
                    .sql(")"),
            ),
        }
    }
}

/// The count of every match, taken in the same pass before `LIMIT` and `OFFSET` (`here`), or
/// none.
pub fn counted_here(here: bool) -> diesel::expression::SqlLiteral<Nullable<BigInt>> {
    sql::<Nullable<BigInt>>(if here {
        "count(*) OVER ()"
    } else {
        "NULL::int8"
    })
}
