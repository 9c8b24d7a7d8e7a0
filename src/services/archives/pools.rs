//! Pool archives (issue 32, item 2): a rating pool's settings and seasons, its rating imports,
//! the archives of the tournaments it accepted, and its rating log, in one document; imported
//! into another instance, the pool is recreated with new ids and its list recomputed from the
//! same games and imports (so its leaderboard equals the original).

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::export::archive_of;
use super::import::{
    check_results, checked, columns, insert_row, map_players, next_id, write_archive, MappedId,
    Target,
};
use super::spec::{Kind, TableSpec};
use super::{canonical, ArchiveKeys, ArchiveSignature, Row, TournamentArchive, Trust};
use crate::auth::Caller;
use crate::db::archives as store;
use crate::db::ids::{PoolId, TournamentId};
use crate::db::models::Tournament;
use crate::db::PgConnection;
use crate::error::ApiError;

/// The `format` of a pool archive.
pub const POOL_FORMAT: &str = "tourney.pool-archive";

/// A rating pool's archive.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PoolArchive {
    /// Always `tourney.pool-archive`.
    pub format: String,
    /// The format version (2: signed; 1: before signatures).
    pub version: u32,
    pub exported_at: DateTime<Utc>,
    /// `sha256:` and the hex SHA-256 of the content's canonical JSON (as in a tournament
    /// archive).
    pub digest: String,
    /// The exporting instance's signature of `format`, `version` and `digest` (as in a
    /// tournament archive); it covers the tournaments inside. Absent before version 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<ArchiveSignature>,
    pub content: PoolContent,
}

/// A pool's rows.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PoolContent {
    /// The pool (a row of `rating_pools`: name, parameters, seasons, league, open).
    #[schema(value_type = Object)]
    pub pool: Row,
    /// The players its rating imports name (`id`, `name`, `club`, `country`).
    #[schema(value_type = Vec<Object>)]
    pub players: Vec<Row>,
    /// Its rating imports (`rating_imports` rows) and their rows (`rating_import_rows`).
    #[schema(value_type = Vec<Object>)]
    pub imports: Vec<Row>,
    #[schema(value_type = Vec<Object>)]
    pub import_rows: Vec<Row>,
    /// Its rating log as it stood (`rating_changes`); the import recomputes it from the games
    /// and imports, and it is kept for reference.
    #[schema(value_type = Vec<Object>)]
    pub rating_log: Vec<Row>,
    /// The archives of the tournaments it accepted, in order of id.
    pub tournaments: Vec<TournamentArchive>,
}

/// A pool archive to import, with how its people map onto this instance.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportPool {
    pub archive: PoolArchive,
    /// The archive's player ids (as strings) mapped onto players here; the others are created.
    #[serde(default)]
    pub player_map: BTreeMap<String, i64>,
    /// The archive's user ids (as strings) mapped onto accounts here; the others are created
    /// disabled (once for the whole pool archive), never matched by username.
    #[serde(default)]
    pub user_map: BTreeMap<String, i64>,
    /// The exporting instance's public key, when it is not in `ARCHIVE_TRUSTED_KEYS` here (as
    /// on a tournament import).
    #[serde(default)]
    pub trust_key: Option<String>,
    /// Imports an archive without a signature (written before archives were signed).
    #[serde(default)]
    pub accept_unsigned: bool,
}

/// What a pool import made.
#[derive(Debug, Serialize, ToSchema)]
pub struct PoolImportOut {
    pub pool_id: i64,
    /// The new ids of its tournaments, in the archive's order.
    pub tournaments: Vec<i64>,
    pub players: Vec<MappedId>,
}

fn digest(content: &PoolContent) -> Result<String, ApiError> {
    let v = serde_json::to_value(content).map_err(|e| ApiError::Internal(e.to_string()))?;
    let mut text = String::new();
    canonical(&v, &mut text);
    use sha2::Digest;
    Ok(format!(
        "sha256:{}",
        hex::encode(sha2::Sha256::digest(text.as_bytes()))
    ))
}

/// The archive of rating pool `pool_id` (admins: it holds its tournaments' cases).
pub fn pool_archive(
    conn: &mut PgConnection,
    caller: &Caller,
    pool_id: i64,
    keys: &ArchiveKeys,
    now: DateTime<Utc>,
) -> Result<PoolArchive, ApiError> {
    caller.require_admin()?;
    let id = PoolId(pool_id);
    crate::db::snapshot(conn, |conn| {
        let pool = store::pool_row(conn, id)?
            .ok_or_else(|| ApiError::NotFound(format!("no rating pool {pool_id}")))?;
        let imports = store::pool_imports(conn, id)?;
        let import_rows = store::pool_import_rows(conn, id)?;
        let players = store::pool_import_players(conn, id)?;
        let rating_log = store::pool_rating_log(conn, id)?;
        let tournaments = store::accepted_in(conn, id)?
            .into_iter()
            .map(|tid| archive_of(conn, tid.0, now))
            .collect::<Result<Vec<_>, _>>()?;
        let content = PoolContent {
            pool,
            players,
            imports,
            import_rows,
            rating_log,
            tournaments,
        };
        let digest = digest(&content)?;
        Ok(PoolArchive {
            signature: Some(keys.sign(POOL_FORMAT, super::VERSION, &digest)),
            format: POOL_FORMAT.into(),
            version: super::VERSION,
            exported_at: now,
            digest,
            content,
        })
    })
}

const POOL: TableSpec = TableSpec {
    section: "pool",
    table: "rating_pools",
    own: None,
    refs: &[],
    json: &[],
};
const IMPORTS: TableSpec = TableSpec {
    section: "imports",
    table: "rating_imports",
    own: None,
    refs: &[],
    json: &[],
};
const IMPORT_ROWS: TableSpec = TableSpec {
    section: "import_rows",
    table: "rating_import_rows",
    own: None,
    refs: &[],
    json: &[],
};

fn check_pool_envelope(archive: &PoolArchive) -> Result<(), ApiError> {
    if archive.format != POOL_FORMAT {
        return Err(ApiError::field(
            "archive.format",
            format!("not a pool archive (expected `{POOL_FORMAT}`)"),
        ));
    }
    if !super::READS.contains(&archive.version) {
        return Err(ApiError::field(
            "archive.version",
            format!("pool archive version {} is not known here", archive.version),
        ));
    }
    if digest(&archive.content)? != archive.digest {
        return Err(ApiError::field(
            "archive.digest",
            "the content does not match its digest: the archive was changed or damaged after it was made",
        ));
    }
    Ok(())
}

/// A second import of a pool (or a pool of the same name here) is a conflict, not a broken
/// row: 409 naming the pool (issue 37 item 6).
fn name_free(conn: &mut PgConnection, pool: &Row) -> Result<(), ApiError> {
    let name = pool.get("name").and_then(Value::as_str).unwrap_or_default();
    match store::pool_named(conn, name)?.map(|p| p.0) {
        Some(id) => Err(ApiError::conflict_at(
            "archive.content.pool.name",
            format!(
                "a rating pool named \"{name}\" exists here (pool {id}): the pool was imported \
                 already, or another one has its name; rename one of them to import it as a \
                 new pool"
            ),
        )),
        None => Ok(()),
    }
}

fn id(row: &Row, key: &str) -> Option<i64> {
    row.get(key).and_then(Value::as_i64)
}

/// Writes the pool row, its imports and their rows (inside the caller's transaction).
fn write_pool(
    conn: &mut PgConnection,
    caller: &Caller,
    c: &PoolContent,
    players: &HashMap<i64, i64>,
) -> Result<i64, ApiError> {
    let pool_id = next_id(conn, "rating_pools")?;
    let mut pool = c.pool.clone();
    for (k, v) in [
        ("id", Value::from(pool_id)),
        ("created_by", Value::from(caller.user_id)),
        ("version", Value::from(1)),
        ("leaderboard_version", Value::from(0)),
        // A new pool's log is new: not rewritten yet (archives made before these columns
        // existed have neither).
        ("log_rewrites", Value::from(0)),
        ("log_rewritten_from", Value::Null),
    ] {
        pool.insert(k.into(), v);
    }
    let cols = columns(conn, "rating_pools")?;
    insert_row(conn, &POOL, "archive.content.pool", pool, &cols)?;
    let mut import_ids = HashMap::new();
    let cols = columns(conn, "rating_imports")?;
    for (i, row) in c.imports.iter().enumerate() {
        let mut row = row.clone();
        let new = next_id(conn, "rating_imports")?;
        import_ids.extend(id(&row, "id").map(|old| (old, new)));
        row.insert("id".into(), Value::from(new));
        row.insert("pool_id".into(), Value::from(pool_id));
        row.insert("imported_by".into(), Value::from(caller.user_id));
        insert_row(
            conn,
            &IMPORTS,
            &format!("archive.content.imports[{i}]"),
            row,
            &cols,
        )?;
    }
    let cols = columns(conn, "rating_import_rows")?;
    for (i, row) in c.import_rows.iter().enumerate() {
        let at = format!("archive.content.import_rows[{i}]");
        let mut row = row.clone();
        let import = id(&row, "import_id").and_then(|old| import_ids.get(&old).copied());
        let player = id(&row, "player_id").and_then(|old| players.get(&old).copied());
        let (Some(import), Some(player)) = (import, player) else {
            return Err(ApiError::field(
                at,
                "names an import or a player the archive does not hold",
            ));
        };
        row.insert("import_id".into(), Value::from(import));
        row.insert("player_id".into(), Value::from(player));
        insert_row(conn, &IMPORT_ROWS, &at, row, &cols)?;
    }
    Ok(pool_id)
}

/// Imports a pool archive (admins), in one transaction: the pool with its settings and seasons,
/// its rating imports, and each accepted tournament (through the tournament import, accepted
/// into the new pool); players are mapped as given, else shared between the tournaments and
/// created once. The list is then rebuilt from the games and imports.
pub fn import_pool(
    conn: &mut PgConnection,
    caller: &Caller,
    input: ImportPool,
    keys: &ArchiveKeys,
    now: DateTime<Utc>,
) -> Result<PoolImportOut, ApiError> {
    caller.require_admin()?;
    check_pool_envelope(&input.archive)?;
    let a = &input.archive;
    let trust = Trust {
        key: input.trust_key.clone(),
        unsigned: input.accept_unsigned,
    };
    let signed = (a.format.as_str(), a.version, a.digest.as_str());
    keys.check("archive", signed, a.signature.as_ref(), &trust)?;
    let c = &input.archive.content;
    super::checks::check_players(&c.players, "archive.content.players")?;
    let mut known = Vec::new();
    for (i, t) in c.tournaments.iter().enumerate() {
        let whole = checked(t, None).and_then(|k| check_results(&t.content).map(|()| k));
        known.push(whole.map_err(|e| {
            match e {
                ApiError::Validation(errors) => ApiError::Validation(
                    errors
                        .into_iter()
                        .map(|mut f| {
                            f.field = f.field.replacen(
                                "archive",
                                &format!("archive.content.tournaments[{i}]"),
                                1,
                            );
                            f
                        })
                        .collect(),
                ),
                other => other,
            }
        })?);
    }
    crate::db::transaction(conn, |conn| {
        name_free(conn, &c.pool)?;
        // Accounts named in several tournaments are the same person: created once.
        let mut users: BTreeMap<String, i64> = input.user_map.clone();
        let mut map: BTreeMap<String, i64> = input.player_map.clone();
        let mut created: Vec<MappedId> = Vec::new();
        // The pool first (its imports name players too), then the tournaments into it.
        let mut players: HashMap<i64, i64> = map
            .iter()
            .filter_map(|(k, v)| k.parse::<i64>().ok().map(|k| (k, *v)))
            .collect();
        let unmapped: Vec<Row> = c
            .players
            .iter()
            .filter(|p| id(p, "id").is_some_and(|i| !players.contains_key(&i)))
            .cloned()
            .collect();
        let made = map_players(conn, caller, &unmapped, HashMap::new(), &mut created)?;
        players.extend(made);
        map.extend(players.iter().map(|(k, v)| (k.to_string(), *v)));
        let pool_id = write_pool(conn, caller, c, &players)?;
        let pool = crate::services::ratings::load_pool(conn, pool_id)?;
        let mut ids = Vec::new();
        for (t, k) in c.tournaments.iter().zip(&known) {
            // Players met in an earlier tournament (or the imports) are the same people here.
            let mine: HashSet<i64> = k.get(&Kind::Player).cloned().unwrap_or_default();
            let given: BTreeMap<String, i64> = map
                .iter()
                .filter(|(key, _)| key.parse::<i64>().is_ok_and(|id| mine.contains(&id)))
                .map(|(k, v)| (k.clone(), *v))
                .collect();
            let status = crate::services::ratings::request_status(conn, caller, &pool, None)?;
            let reason = crate::services::ratings::automatic_reason(&pool, status);
            let target = Target::New(Some((pool_id, status, reason)), now);
            let mine: HashSet<i64> = k.get(&Kind::User).cloned().unwrap_or_default();
            let given_users: BTreeMap<String, i64> = users
                .iter()
                .filter(|(key, _)| key.parse::<i64>().is_ok_and(|id| mine.contains(&id)))
                .map(|(k, v)| (k.clone(), *v))
                .collect();
            let w = write_archive(conn, caller, t, k, (&given, &given_users), target)?;
            for m in &w.players {
                map.insert(m.archive_id.to_string(), m.id);
            }
            for m in &w.users {
                users.insert(m.archive_id.to_string(), m.id);
            }
            created.extend(w.players.into_iter().filter(|m| m.created));
            let row: Tournament = store::import::tournament(conn, TournamentId(w.tid))?;
            crate::services::ratings::request_recorded(conn, caller, &row, &pool, now)?;
            ids.push(w.tid);
        }
        crate::services::ratings::rebuild_pool(conn, pool_id)?;
        Ok(PoolImportOut {
            pool_id,
            tournaments: ids,
            players: created,
        })
    })
}
