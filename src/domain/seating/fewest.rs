//! Fewest repeat meetings in one round (issue 44): seed 000 Bordsammensetning (1) "hver spiller
//! møter forskjellige spillere" and (3) "spillerne møter fleste mulig spillere de ikke allerede
//! har møtt", seed 001 (domain.md 6: "balance as well as possible").
//!
//! The problem: seat the players at tables of the given sizes, each seeding group spread as
//! evenly as the rule allows (every table holds `floor(|g| / Y)` or `ceil(|g| / Y)` of group `g`;
//! one group of everyone for the unseeded methods), so that the fewest pairs who met before sit
//! together (then the fewest earlier meetings among them).
//!
//! - Up to [`EXACT_TABLES`] tables: branch and bound over the whole field, started from the
//!   method's own draw (so a draw that is already best is kept as it is). Players are placed most
//!   constrained first; the bound adds to the cost so far, for every player still to place, the
//!   least cost they would add at any table open to them. Tables are interchangeable, so an
//!   empty table is only tried if no earlier empty table of the same size exists; seats within a
//!   table are unordered (a table is a set). The work is counted (bound cells read and seats
//!   placed), never timed: past [`WORK_BUDGET`] the search stops and the draw says that its
//!   count is not proven best. The same input gives the same result on any machine.
//! - Larger fields: the method's draw is improved by solving neighbourhoods of a few tables
//!   (the tables with a repeat and others picked by a fixed sequence) with the same exact search.
//!   The result is checked against the lower bound (0, or what the exact search proved); when it
//!   is above, the draw's report says it is not proven best.

use super::{History, Meetings};
use crate::domain::ids::PlayerId;
use std::collections::HashMap;

/// A repeated pair costs this, plus one for each earlier meeting of the pair: fewest repeated
/// pairs first, then fewest earlier meetings among them.
const PAIR: u64 = 1 << 20;
/// The exact search covers the whole field up to this many tables (48 players).
pub(crate) const EXACT_TABLES: usize = 12;
/// Work budget of the exact search over the whole field.
const WORK_BUDGET: u64 = 60_000_000;
/// Larger fields: tables per neighbourhood, neighbourhoods tried, work per neighbourhood.
const NEIGHBOURHOOD_TABLES: usize = 6;
const NEIGHBOURHOODS: usize = 400;
const NEIGHBOURHOOD_WORK: u64 = 400_000;

/// What the search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fewest {
    /// The tables (sizes as given, 3-player tables last).
    pub tables: Vec<Vec<PlayerId>>,
    /// Repeated pairs at these tables.
    pub repeats: u32,
    /// No arrangement the rule allows has fewer repeated pairs than this.
    pub lower_bound: u32,
    /// `repeats == lower_bound` (the tables are proven best).
    pub proven: bool,
}

/// The seating problem over player indices `0..n`.
struct Problem {
    n: usize,
    sizes: Vec<usize>,
    /// `cost[a * n + b]`: what seating `a` with `b` costs.
    cost: Vec<u64>,
    group: Vec<usize>,
    lo: Vec<usize>,
    hi: Vec<usize>,
}

impl Problem {
    fn y(&self) -> usize {
        self.sizes.len()
    }

    /// Whether `table_of` (every player seated) respects sizes and group quotas.
    fn allows(&self, table_of: &[usize]) -> bool {
        let y = self.y();
        let mut seats = vec![0usize; y];
        let mut count = vec![0usize; self.lo.len() * y];
        for (p, &t) in table_of.iter().enumerate() {
            if t >= y {
                return false;
            }
            seats[t] += 1;
            count[self.group[p] * y + t] += 1;
        }
        seats == self.sizes
            && count.iter().enumerate().all(|(i, &c)| {
                let g = i / y;
                c >= self.lo[g] && c <= self.hi[g]
            })
    }

    fn total(&self, table_of: &[usize]) -> u64 {
        let mut c = 0;
        for a in 0..self.n {
            for b in a + 1..self.n {
                if table_of[a] == table_of[b] {
                    c += self.cost[a * self.n + b];
                }
            }
        }
        c
    }
}

const NONE: usize = usize::MAX;

/// Branch and bound over one [`Problem`].
struct Search<'a> {
    p: &'a Problem,
    y: usize,
    table_of: Vec<usize>,
    free: Vec<usize>,
    count: Vec<usize>,
    /// Seats of table `t` that groups below their minimum there still need.
    need: Vec<usize>,
    /// `acc[q * y + t]`: cost of `q` with the players at table `t`.
    acc: Vec<u64>,
    unplaced: Vec<usize>,
    cur: u64,
    best: u64,
    best_table_of: Vec<usize>,
    root_bound: Option<u64>,
    /// A bound on every complete arrangement ([`degree_bound`]).
    floor: u64,
    work: u64,
    budget: u64,
    aborted: bool,
}

impl<'a> Search<'a> {
    fn new(p: &'a Problem, budget: u64) -> Self {
        let y = p.y();
        let groups = p.lo.len();
        let need_each: usize = p.lo.iter().sum();
        Search {
            p,
            y,
            table_of: vec![NONE; p.n],
            free: p.sizes.clone(),
            count: vec![0; groups * y],
            need: vec![need_each; y],
            acc: vec![0; p.n * y],
            unplaced: (0..p.n).collect(),
            cur: 0,
            best: u64::MAX,
            best_table_of: Vec::new(),
            root_bound: None,
            floor: 0,
            work: 0,
            budget,
            aborted: false,
        }
    }

    fn open(&self, q: usize, t: usize) -> bool {
        let g = self.p.group[q];
        let c = self.count[g * self.y + t];
        self.free[t] > 0 && c < self.p.hi[g] && (c < self.p.lo[g] || self.free[t] > self.need[t])
    }

    fn place(&mut self, q: usize, t: usize) {
        let g = self.p.group[q];
        if self.count[g * self.y + t] < self.p.lo[g] {
            self.need[t] -= 1;
        }
        self.count[g * self.y + t] += 1;
        self.free[t] -= 1;
        self.table_of[q] = t;
        self.cur += self.acc[q * self.y + t];
        let n = self.p.n;
        for r in 0..n {
            self.acc[r * self.y + t] += self.p.cost[q * n + r];
        }
        self.work += n as u64;
    }

    fn unplace(&mut self, q: usize, t: usize) {
        let n = self.p.n;
        for r in 0..n {
            self.acc[r * self.y + t] -= self.p.cost[q * n + r];
        }
        self.cur -= self.acc[q * self.y + t];
        self.table_of[q] = NONE;
        self.free[t] += 1;
        let g = self.p.group[q];
        self.count[g * self.y + t] -= 1;
        if self.count[g * self.y + t] < self.p.lo[g] {
            self.need[t] += 1;
        }
    }

    fn run(&mut self) {
        if self.aborted {
            return;
        }
        if self.unplaced.is_empty() {
            if self.cur < self.best {
                self.best = self.cur;
                self.best_table_of = self.table_of.clone();
            }
            return;
        }
        // The bound, and the player to place: fewest open tables, then the dearest least cost,
        // then the lowest index.
        let mut sum_least = 0;
        let mut pick: Option<(usize, u64, usize, usize)> = None; // (open, least, player, slot)
        for (slot, &q) in self.unplaced.iter().enumerate() {
            let mut open = 0;
            let mut least = u64::MAX;
            for t in 0..self.y {
                if self.open(q, t) {
                    open += 1;
                    least = least.min(self.acc[q * self.y + t]);
                }
            }
            if open == 0 {
                return;
            }
            sum_least += least;
            let better = match pick {
                None => true,
                Some((o, l, p, _)) => (open, u64::MAX - least, q) < (o, u64::MAX - l, p),
            };
            if better {
                pick = Some((open, least, q, slot));
            }
        }
        self.work += (self.unplaced.len() * self.y) as u64;
        let bound = (self.cur + sum_least).max(self.floor);
        if self.root_bound.is_none() {
            self.root_bound = Some(bound);
        }
        if bound >= self.best {
            return;
        }
        if self.work > self.budget {
            self.aborted = true;
            return;
        }
        let Some((_, least, q, slot)) = pick else {
            return;
        };
        let mut tables: Vec<(u64, usize)> = Vec::new();
        for t in 0..self.y {
            if !self.open(q, t) {
                continue;
            }
            let empty = self.free[t] == self.p.sizes[t];
            if empty
                && (0..t)
                    .any(|u| self.free[u] == self.p.sizes[u] && self.p.sizes[u] == self.p.sizes[t])
            {
                continue; // an earlier empty table of the same size stands for this one
            }
            tables.push((self.acc[q * self.y + t], t));
        }
        tables.sort_unstable();
        self.unplaced.swap_remove(slot);
        let partial = self.cur + sum_least - least;
        for (c, t) in tables {
            if (partial + c).max(self.floor) >= self.best {
                break;
            }
            self.place(q, t);
            self.run();
            self.unplace(q, t);
            if self.aborted {
                break;
            }
        }
        self.unplaced.push(q);
        let last = self.unplaced.len() - 1;
        self.unplaced.swap(slot, last);
    }
}

/// Solves `p` exactly within `budget`, starting from `start` when it is allowed. Returns the
/// best arrangement found (or `start`), its cost, a lower bound, and whether it is proven best.
fn solve(
    p: &Problem,
    start: Option<&[usize]>,
    budget: u64,
    floor: u64,
) -> Option<(Vec<usize>, u64, u64, bool)> {
    let mut s = Search::new(p, budget);
    s.floor = floor;
    if let Some(st) = start.filter(|st| p.allows(st)) {
        s.best = p.total(st);
        s.best_table_of = st.to_vec();
    }
    s.run();
    if s.best_table_of.is_empty() {
        return None;
    }
    let proven = !s.aborted;
    let bound = if proven {
        s.best
    } else {
        s.root_bound.unwrap_or(floor).min(s.best)
    };
    Some((s.best_table_of, s.best, bound, proven))
}

/// The round's tables with the fewest repeat meetings the rule allows (see the module docs),
/// starting from `start`, the method's own draw: `groups` are the seeding groups (one group of
/// everyone for unseeded methods), `sizes` the table sizes.
pub(crate) fn fewest_repeats(
    groups: &[Vec<PlayerId>],
    sizes: &[usize],
    history: &History,
    start: &[Vec<PlayerId>],
) -> Fewest {
    fewest_within(groups, sizes, history, start, WORK_BUDGET)
}

/// [`fewest_repeats`] with the whole-field search's work budget given (tests).
pub(crate) fn fewest_within(
    groups: &[Vec<PlayerId>],
    sizes: &[usize],
    history: &History,
    start: &[Vec<PlayerId>],
    budget: u64,
) -> Fewest {
    let players: Vec<PlayerId> = groups.iter().flatten().copied().collect();
    let n = players.len();
    let y = sizes.len();
    let index: HashMap<PlayerId, usize> =
        players.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    let meetings = Meetings::from_history(history);
    let mut cost = vec![0u64; n * n];
    for a in 0..n {
        for b in a + 1..n {
            let m = meetings.count(players[a], players[b]) as u64;
            if m > 0 {
                cost[a * n + b] = PAIR + m;
                cost[b * n + a] = PAIR + m;
            }
        }
    }
    let group: Vec<usize> = groups
        .iter()
        .enumerate()
        .flat_map(|(g, members)| std::iter::repeat_n(g, members.len()))
        .collect();
    let problem = Problem {
        n,
        sizes: sizes.to_vec(),
        cost,
        group,
        lo: groups.iter().map(|g| g.len() / y.max(1)).collect(),
        hi: groups.iter().map(|g| g.len().div_ceil(y.max(1))).collect(),
    };
    let floor = PAIR * degree_bound(&problem);
    // The start as table indices; tables matched to sizes in order.
    let mut start_of = vec![NONE; n];
    for (t, table) in start.iter().enumerate() {
        for p in table {
            if let Some(&i) = index.get(p) {
                start_of[i] = t;
            }
        }
    }
    let start_ok = start.len() == y
        && start.iter().zip(sizes).all(|(t, &s)| t.len() == s)
        && problem.allows(&start_of);
    let (table_of, cost, bound, proven) = if y <= EXACT_TABLES {
        solve(&problem, start_ok.then_some(&start_of[..]), budget, floor)
            .unwrap_or_else(|| (start_of.clone(), problem.total(&start_of), floor, false))
    } else if start_ok {
        improve_by_neighbourhoods(&problem, start_of.clone(), floor)
    } else {
        let c = problem.total(&start_of);
        (start_of.clone(), c, floor.min(c), c <= floor)
    };
    // Tables in the start's order where they keep a player's table (the fixed rotation numbers
    // tables by the first group's members), 4-player tables first.
    let mut tables: Vec<Vec<usize>> = vec![Vec::new(); y];
    for (q, &t) in table_of.iter().enumerate() {
        if t < y {
            tables[t].push(q);
        }
    }
    tables.sort_by_key(|t| {
        (
            std::cmp::Reverse(t.len()),
            t.first().map(|&q| start_of[q]).unwrap_or(NONE),
            t.clone(),
        )
    });
    Fewest {
        tables: tables
            .into_iter()
            .map(|t| t.into_iter().map(|q| players[q]).collect())
            .collect(),
        repeats: (cost / PAIR) as u32,
        lower_bound: (bound / PAIR) as u32,
        proven: proven || cost / PAIR == bound / PAIR,
    }
}

/// A bound from the players' degrees: a player sits with at least `c` others (`c` = the
/// smallest table size less one), of whom at most `f` are players they may sit with and have
/// not met; so at least `c - f` of their table mates are repeats, and every repeated pair is
/// counted from both ends. A complete history makes it exact (every pair at a table repeats).
fn degree_bound(p: &Problem) -> u64 {
    let c = p.sizes.iter().copied().min().unwrap_or(1).saturating_sub(1) as u64;
    let mut ends = 0u64;
    for a in 0..p.n {
        let g = p.group[a];
        let fresh = (0..p.n)
            .filter(|&b| b != a && p.cost[a * p.n + b] == 0 && (p.group[b] != g || p.hi[g] > 1))
            .count() as u64;
        ends += c.saturating_sub(fresh);
    }
    ends.div_ceil(2)
}

/// Large fields: exact search over neighbourhoods of [`NEIGHBOURHOOD_TABLES`] tables (each
/// table with a repeat in turn, with other tables from a fixed sequence), keeping every
/// improvement. Returns the arrangement, its cost, the lower bound `floor` and whether the cost
/// reaches it.
fn improve_by_neighbourhoods(
    p: &Problem,
    mut table_of: Vec<usize>,
    floor: u64,
) -> (Vec<usize>, u64, u64, bool) {
    let y = p.y();
    let n = p.n;
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); y];
    for (q, &t) in table_of.iter().enumerate() {
        members[t].push(q);
    }
    let table_cost = |m: &[usize]| -> u64 {
        let mut c = 0;
        for (i, &a) in m.iter().enumerate() {
            for &b in &m[i + 1..] {
                c += p.cost[a * n + b];
            }
        }
        c
    };
    let mut costs: Vec<u64> = members.iter().map(|m| table_cost(m)).collect();
    // A fixed sequence (xorshift), not the draw's lot: the lot stays as the method drew it.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |bound: usize| -> usize {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % bound as u64) as usize
    };
    for round in 0..NEIGHBOURHOODS {
        let conflicted: Vec<usize> = (0..y).filter(|&t| costs[t] > 0).collect();
        if conflicted.is_empty() || costs.iter().sum::<u64>() <= floor {
            break;
        }
        let mut hood = vec![conflicted[round % conflicted.len()]];
        while hood.len() < NEIGHBOURHOOD_TABLES.min(y) {
            let t = next(y);
            if !hood.contains(&t) {
                hood.push(t);
            }
        }
        hood.sort_unstable();
        let before: u64 = hood.iter().map(|&t| costs[t]).sum();
        let sub_players: Vec<usize> = hood.iter().flat_map(|&t| members[t].clone()).collect();
        let m = sub_players.len();
        let mut cost = vec![0u64; m * m];
        for (i, &a) in sub_players.iter().enumerate() {
            for (j, &b) in sub_players.iter().enumerate() {
                cost[i * m + j] = p.cost[a * n + b];
            }
        }
        let sub = Problem {
            n: m,
            sizes: hood.iter().map(|&t| p.sizes[t]).collect(),
            cost,
            group: sub_players.iter().map(|&q| p.group[q]).collect(),
            lo: p.lo.clone(),
            hi: p.hi.clone(),
        };
        let start: Vec<usize> = sub_players
            .iter()
            .map(|&q| hood.iter().position(|&t| t == table_of[q]).unwrap_or(NONE))
            .collect();
        if let Some((sub_of, c, _, _)) = solve(&sub, Some(&start), NEIGHBOURHOOD_WORK, 0) {
            if c < before {
                for (i, &q) in sub_players.iter().enumerate() {
                    table_of[q] = hood[sub_of[i]];
                }
                for &t in &hood {
                    members[t].clear();
                }
                for &q in &sub_players {
                    members[table_of[q]].push(q);
                }
                for &t in &hood {
                    members[t].sort_unstable();
                    costs[t] = table_cost(&members[t]);
                }
            }
        }
    }
    let total: u64 = costs.iter().sum();
    (table_of, total, floor.min(total), total <= floor)
}

#[cfg(test)]
mod tests;
