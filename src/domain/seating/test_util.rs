use super::*;

pub fn players(n: usize) -> Vec<PlayerEntry> {
    (1..=n as i64).map(PlayerEntry::new).collect()
}

pub fn standings_in_order(n: usize) -> Vec<Standing> {
    (1..=n as i64)
        .map(|i| Standing {
            player: PlayerId(i),
            place: i as u32,
            score: None,
        })
        .collect()
}

pub fn input(method: SeatingMethod, n: usize) -> DrawInput {
    DrawInput {
        algorithm: SEATING_ALGORITHM,
        round: 1,
        method,
        players: players(n),
        standings: standings_in_order(n),
        history: History::default(),
        options: BTreeMap::new(),
        plan: None,
        teams: vec![],
    }
}

pub fn rng(seed: u8) -> DrawRng {
    DrawRng::from_seed([seed; 32])
}

pub fn ids(v: &[i64]) -> Vec<PlayerId> {
    v.iter().map(|&i| PlayerId(i)).collect()
}

pub fn sorted_tables(d: &Draw) -> Vec<Vec<i64>> {
    d.tables
        .iter()
        .map(|t| {
            let mut v: Vec<i64> = t.seats.iter().map(|p| p.0).collect();
            v.sort();
            v
        })
        .collect()
}

/// Every active player seated exactly once (or given a bye).
pub fn assert_each_once(input: &DrawInput, d: &Draw) {
    let mut seen: Vec<PlayerId> = d.tables.iter().flat_map(|t| t.seats.clone()).collect();
    seen.extend(d.byes.iter().copied());
    seen.sort();
    let mut want: Vec<PlayerId> = input.players.iter().map(|p| p.id).collect();
    want.sort();
    assert_eq!(seen, want);
}
