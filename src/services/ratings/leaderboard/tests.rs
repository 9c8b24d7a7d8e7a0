//! The board against a reference ranking, cursors, and the cache.

use super::*;
use crate::domain::ids::{PlayerId, PoolId, UserId};
use chrono::{DateTime, Utc};

fn pool(version: i32) -> RatingPoolRow {
    RatingPoolRow {
        id: PoolId(1),
        name: "P".into(),
        params: crate::domain::rating::RatingPoolParams::agricola_norway(),
        time_zone: "Europe/Oslo".into(),
        seasons: Vec::new(),
        league: false,
        created_by: UserId(1),
        created_at: DateTime::<Utc>::UNIX_EPOCH,
        updated_at: DateTime::<Utc>::UNIX_EPOCH,
        version,
        open: false,
    }
}

fn row(id: i64, rating: f64, games: i64, club: Option<&str>, country: Option<&str>) -> BoardRow {
    BoardRow {
        player_id: PlayerId(id),
        name: format!("P{id}"),
        club: club.map(String::from),
        country: country.map(String::from),
        rating,
        games,
        last_played: None,
        trend_delta: 0.0,
        trend_games: 0,
        last_delta: None,
    }
}

/// The reference: rank among the listed players (1 + how many rate higher), then filter.
fn reference(rows: &[BoardRow], q: &BoardQuery<'_>) -> (i64, Vec<(u32, i64)>) {
    let mut listed: Vec<&BoardRow> = rows
        .iter()
        .filter(|r| r.games > 0 && r.games >= q.threshold)
        .collect();
    listed.sort_by(|a, b| board_order(a, b));
    let ranked: Vec<(u32, &BoardRow)> = listed
        .iter()
        .map(|r| {
            let higher = listed
                .iter()
                .filter(|o| pg_cmp(o.rating, r.rating) == Ordering::Greater)
                .count();
            (higher as u32 + 1, *r)
        })
        .filter(|(_, r)| q.country.is_none() || r.country.as_deref() == q.country)
        .filter(|(_, r)| {
            q.club
                .is_none_or(|c| r.club.as_ref().map(|x| x.to_lowercase()) == Some(c.to_lowercase()))
        })
        .collect();
    let total = ranked.len() as i64;
    let items = ranked
        .into_iter()
        .skip(q.offset as usize)
        .take(q.limit as usize)
        .map(|(k, r)| (k, r.player_id.0))
        .collect();
    (total, items)
}

fn sample() -> Vec<BoardRow> {
    let clubs = [Some("Kraków"), Some("KRAKÓW"), Some("Łódź"), None];
    let countries = [Some("PL"), Some("DE"), None];
    (1..=60)
        .map(|i| {
            // Many exact ties, -0 and 0, and players without a rated game.
            let rating = match i % 7 {
                0 => 0.0,
                1 => -0.0,
                k => 1000.0 + f64::from((k * 13 % 5) as i32) * 12.5,
            };
            row(
                (i * 37 % 61) as i64,
                rating,
                (i % 6) as i64,
                clubs[i % 4],
                countries[i % 3],
            )
        })
        .collect()
}

#[test]
fn pages_rank_and_filter_like_the_sql() {
    let rows = sample();
    let board = Board::new(pool(1), 1, rows.clone(), 3);
    assert_eq!(board.len(), rows.iter().filter(|r| r.games > 0).count());
    for threshold in [0, 1, 2, 3, 5, 6] {
        for country in [None, Some("PL"), Some("DE"), Some("NO")] {
            for club in [None, Some("kraków"), Some("ŁÓDŹ"), Some("Oslo")] {
                for (limit, offset) in [(200, 0), (3, 0), (3, 4), (5, 100)] {
                    let q = BoardQuery {
                        threshold,
                        country,
                        club,
                        limit,
                        offset,
                        after: None,
                    };
                    let page = board.page(&q);
                    let got: Vec<(u32, i64)> = page
                        .items
                        .iter()
                        .map(|(k, r)| (*k, r.player_id.0))
                        .collect();
                    assert_eq!((page.total, got), reference(&rows, &q), "{q:?}");
                }
            }
        }
    }
}

#[test]
fn a_walk_by_cursor_is_the_walk_by_offset_and_skips_only_the_keys_before_it() {
    let rows = sample();
    let board = Board::new(pool(1), 1, rows.clone(), 3);
    for threshold in [0, 3, 6] {
        for country in [None, Some("PL")] {
            for club in [None, Some("kraków")] {
                let q = |limit, after| BoardQuery {
                    threshold,
                    country,
                    club,
                    limit,
                    offset: 0,
                    after,
                };
                let (total, want) = reference(&rows, &q(1000, None));
                let (mut got, mut after) = (Vec::new(), None);
                loop {
                    let page = board.page(&q(4, after));
                    assert_eq!(page.total, total);
                    got.extend(page.items.iter().map(|(k, r)| (*k, r.player_id.0)));
                    if !page.more {
                        break;
                    }
                    after = page.items.last().map(|(_, r)| BoardKey::of(r));
                }
                assert_eq!(got, want, "{threshold} {country:?} {club:?}");
            }
        }
    }
    // A key no line has (a line that moved away) starts the page at its place in the order.
    let r = |id, rating, games| row(id, rating, games, None, None);
    let from = |board: &Board, key| {
        let q = BoardQuery {
            threshold: 1,
            country: None,
            club: None,
            limit: 10,
            offset: 0,
            after: Some(key),
        };
        let ids: Vec<i64> = board
            .page(&q)
            .items
            .iter()
            .map(|(_, r)| r.player_id.0)
            .collect();
        ids
    };
    let board = Board::new(pool(1), 1, vec![r(1, 1500.0, 5), r(2, 1400.0, 5)], 1);
    assert_eq!(from(&board, BoardKey::new(1450.0, 9, 7)), [2]);
    assert_eq!(from(&board, BoardKey::new(1500.0, 5, 0)), [1, 2]);
    assert_eq!(from(&board, BoardKey::new(1500.0, 5, 1)), [2]);
    assert_eq!(from(&board, BoardKey::new(1500.0, 6, 9)), [1, 2]);
    assert_eq!(from(&board, BoardKey::new(1400.0, 5, 2)), Vec::<i64>::new());
    // -0 and 0 are one rating on the board, as in PostgreSQL.
    let board = Board::new(pool(1), 1, vec![r(1, 0.0, 1), r(2, -0.0, 1)], 1);
    assert_eq!(from(&board, BoardKey::new(-0.0, 1, 1)), [2]);
}

#[test]
fn equal_ratings_share_a_rank_and_the_next_skips() {
    let rows = vec![
        row(1, 1500.0, 3, None, None),
        row(2, 1500.0, 5, None, None),
        row(3, 1400.0, 5, None, None),
        row(4, 1600.0, 1, None, None),
        row(5, 1400.0, 5, None, None),
    ];
    let board = Board::new(pool(1), 1, rows, 5);
    let ranks = |t| {
        let q = BoardQuery {
            threshold: t,
            country: None,
            club: None,
            limit: 50,
            offset: 0,
            after: None,
        };
        board
            .page(&q)
            .items
            .iter()
            .map(|(k, r)| (*k, r.player_id.0))
            .collect::<Vec<_>>()
    };
    assert_eq!(ranks(0), [(1, 4), (2, 2), (2, 1), (4, 3), (4, 5)]);
    assert_eq!(ranks(5), [(1, 2), (2, 3), (2, 5)]);
    assert_eq!(ranks(3), [(1, 2), (1, 1), (3, 3), (3, 5)]);
}

#[test]
fn the_cache_answers_only_the_exact_versions_and_keeps_a_few_pools() {
    let cache = LeaderboardCache::new(2);
    let v = |pool, leaderboard| BoardVersion { pool, leaderboard };
    let loads = std::cell::Cell::new(0);
    let load = |p: i32, lb: i64| {
        loads.set(loads.get() + 1);
        Ok::<_, ()>(Board::new(pool(p), lb, vec![row(1, 1.0, 1, None, None)], 1))
    };
    cache.get_or_load(1, v(1, 1), || load(1, 1)).unwrap();
    cache.get_or_load(1, v(1, 1), || load(1, 1)).unwrap();
    assert_eq!(loads.get(), 1);
    assert!(cache.get(1, v(1, 2)).is_none());
    assert!(cache.get(1, v(2, 1)).is_none());
    // A newer version replaces the pool's board.
    cache.get_or_load(1, v(1, 2), || load(1, 2)).unwrap();
    assert_eq!(loads.get(), 2);
    assert!(cache.get(1, v(1, 1)).is_none());
    // A load that finds the pool changed meanwhile is kept at what it read.
    let b = cache.get_or_load(2, v(1, 1), || load(1, 5)).unwrap();
    assert_eq!(b.version, v(1, 5));
    assert!(cache.get(2, v(1, 5)).is_some());
    // The least recently used pool goes.
    assert!(cache.get(1, v(1, 2)).is_some());
    cache.get_or_load(3, v(1, 1), || load(1, 1)).unwrap();
    assert_eq!(cache.pools(), [1, 3]);
    // A failed load stores nothing.
    assert!(cache.get_or_load(4, v(1, 1), || Err(())).is_err());
    assert_eq!(cache.pools(), [1, 3]);
}
