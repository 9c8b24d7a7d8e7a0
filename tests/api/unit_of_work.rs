//! One transaction per request (issue 39, item 4): an idempotent write runs in the transaction
//! that stores its answer, not in a savepoint nested inside it. Counted with diesel's
//! instrumentation: every transaction or savepoint begun, with its depth.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use diesel::connection::{Instrumentation, InstrumentationEvent};
use diesel::prelude::*;
use tourney::error::ApiError;
use tourney::infra::idempotency;

use crate::helpers::fresh_database;

/// The depth of every transaction (1) and savepoint (2 and more) begun on `conn` from now on.
fn count_begins(conn: &mut PgConnection) -> Arc<Mutex<Vec<u32>>> {
    let begun = Arc::new(Mutex::new(Vec::new()));
    let seen = begun.clone();
    let watch = move |event: InstrumentationEvent<'_>| {
        if let InstrumentationEvent::BeginTransaction { depth, .. } = event {
            seen.lock().unwrap().push(depth.get());
        }
    };
    let boxed: Box<dyn Instrumentation> = Box::new(watch);
    conn.set_instrumentation(boxed);
    begun
}

fn a_write(conn: &mut PgConnection) -> Result<usize, ApiError> {
    Ok(diesel::sql_query("SELECT 1").execute(conn)?)
}

/// A write through `db::unit_of_work` inside the idempotency wrapper begins one transaction and
/// no savepoint; alone it begins its own transaction; the old way (`conn.transaction` inside
/// the wrapper) is seen as the savepoint it was.
#[test]
fn an_idempotent_write_runs_in_one_transaction() {
    let mut conn = PgConnection::establish(&fresh_database()).unwrap();
    let begun = count_begins(&mut conn);
    let run = |conn: &mut PgConnection, nested: bool| {
        idempotency::once(
            conn,
            1,
            None,
            201,
            |_| BTreeMap::new(),
            |conn| {
                if nested {
                    conn.transaction(a_write)
                } else {
                    tourney::db::unit_of_work(conn, a_write)
                }
            },
        )
        .unwrap()
    };
    run(&mut conn, false);
    assert_eq!(*begun.lock().unwrap(), [1], "one transaction, no savepoint");
    begun.lock().unwrap().clear();
    run(&mut conn, true);
    assert_eq!(
        *begun.lock().unwrap(),
        [1, 2],
        "the counter sees a savepoint"
    );
    begun.lock().unwrap().clear();
    tourney::db::unit_of_work(&mut conn, a_write).unwrap();
    assert_eq!(
        *begun.lock().unwrap(),
        [1],
        "alone, the write opens its own transaction"
    );
}
