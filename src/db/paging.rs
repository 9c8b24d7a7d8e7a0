//! Query pieces shared by the paged lists.

use diesel::expression::SqlLiteral;
use diesel::sql_types::{BigInt, Nullable};

/// The whole list's size as a column of every row when `wanted` (`count(*) OVER ()`, taken
/// before LIMIT and OFFSET), else NULL: a page that reads every match anyway (a ranked search)
/// counts them in the same pass rather than in a second query.
pub fn count_in_pass(wanted: bool) -> SqlLiteral<Nullable<BigInt>> {
    diesel::dsl::sql(if wanted {
        "count(*) OVER ()"
    } else {
        "NULL::int8"
    })
}
