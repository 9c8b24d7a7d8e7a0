//! The tournament list's search from the instance's search index (`infra::search`): the
//! index gives every match of `q` in the list's order (relevance or name); the database says
//! which of them the reader may see and pass the other filters, a batch at a time, until the
//! page is full and the count reaches its cap.

use std::collections::HashSet;

use crate::db::PgConnection;

use crate::db;
use crate::db::ids::TournamentId;
use crate::db::models::Tournament;
use crate::db::tournaments::{ListAfter, ListFilter, ListOrder};
use crate::error::ApiError;
use crate::infra::search::{self, Hit, Names, Order};
use crate::services::validate::COUNT_CAP;

/// The first batch of candidates asked about; each next batch is twice the one before.
const FIRST_BATCH: usize = 256;

/// Whether `h` comes after the last row of the page before (`after`), in the list's order.
fn is_after(h: &Hit, after: Option<&ListAfter>) -> bool {
    let by_name = |name: &str, id: i64| (h.name.as_bytes(), h.id) > (name.as_bytes(), id);
    match after {
        None => true,
        Some(ListAfter::Relevance(rank, name, id)) => match (-h.score).total_cmp(rank) {
            std::cmp::Ordering::Equal => by_name(name, *id),
            o => o == std::cmp::Ordering::Greater,
        },
        Some(ListAfter::Name(name, id)) => by_name(name, *id),
        // Not asked with the other orders.
        Some(_) => true,
    }
}

/// A page as `db::tournaments::list_page` gives it (rows with their similarity and the count),
/// and the count of every match that passes the filters (capped just past [`COUNT_CAP`];
/// where not `counting`, only those read to fill the page).
pub(super) fn page(
    conn: &mut PgConnection,
    names: &Names,
    (q, list): (&str, &ListFilter),
    order: ListOrder,
    after: Option<&ListAfter>,
    (offset, limit, counting): (usize, usize, bool),
) -> Result<super::Rows, ApiError> {
    let folded = match search::fold_ascii(q) {
        Some(f) => f,
        None => db::search::fold(conn, q)?,
    };
    let order = match order {
        ListOrder::Relevance => Order::Ranked,
        _ => Order::Named,
    };
    // The matches in the list's order, taken from the index a few at a time (a larger take
    // gives the same ones first).
    let (mut candidates, mut exhausted) = (Vec::new(), false);
    let (mut counted, mut page, mut skipped) = (0usize, Vec::new(), 0usize);
    let (mut start, mut batch) = (0, FIRST_BATCH);
    while page.len() < limit || (counting && counted <= COUNT_CAP as usize) {
        if start >= candidates.len() {
            if exhausted {
                break;
            }
            let take = (start + batch).max(FIRST_BATCH) * 4;
            candidates = names.ordered(&folded, order, take);
            exhausted = candidates.len() < take;
            if start >= candidates.len() {
                break;
            }
        }
        let end = (start + batch).min(candidates.len());
        let ids: Vec<TournamentId> = candidates[start..end]
            .iter()
            .map(|h: &Hit| TournamentId(h.id))
            .collect();
        let passing: HashSet<TournamentId> = db::tournaments::passing(conn, list, &ids)?
            .into_iter()
            .collect();
        for h in &candidates[start..end] {
            if !passing.contains(&TournamentId(h.id)) {
                continue;
            }
            counted += 1;
            if page.len() < limit && is_after(h, after) {
                if skipped < offset {
                    skipped += 1;
                } else {
                    page.push(h.clone());
                }
            }
        }
        (start, batch) = (end, batch * 2);
    }
    let ids: Vec<TournamentId> = page.iter().map(|h| TournamentId(h.id)).collect();
    let rows = db::tournaments::by_ids(conn, &ids)?;
    let total = Some(counted as i64);
    let rows = search::in_hits_order(&page, rows, |t: &Tournament| t.id.0, total);
    Ok((rows, total))
}
