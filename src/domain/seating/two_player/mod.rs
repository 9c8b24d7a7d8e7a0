//! 2-player formats (Tantrix, seed 003; Ashes, seed 004; domain.md sections 4, 8 and 9):
//! Swiss with score groups, floaters and byes; round robin by the circle method; knockout
//! brackets seeded by rating; and the Ashes round-count rule.
//!
//! A 2-player table has two seats; `seats[0]` is the first-listed player (the player who starts
//! or, in Tantrix, picks colours first), `starting_player` is left empty because these rules draw
//! no starting player.

use super::{
    ranked_players, Draw, DrawInput, DrawReport, Meetings, PlayerEntry, SeatingError, Table,
};
use crate::domain::ids::PlayerId;
use crate::domain::rng::DrawRng;
use crate::domain::seating::SeatingMethod;
use std::collections::HashMap;

/// The allowed number of rounds of an Ashes league tournament for `players` participants
/// (seed 004; domain.md section 3): minimum 3; maximum 3 up to 4 players, 4 up to 8, 5 up to 16,
/// 6 up to 32, 8 above 32. An Ashes tournament needs at least 4 participants (seed 004).
pub fn ashes_round_range(players: usize) -> Result<(u32, u32), SeatingError> {
    if players < 4 {
        return Err(SeatingError::NotEnoughPlayers {
            needed: 4,
            got: players,
        });
    }
    let max = match players {
        0..=4 => 3,
        5..=8 => 4,
        9..=16 => 5,
        17..=32 => 6,
        _ => 8,
    };
    Ok((3, max))
}

/// Refuses a round count outside [`ashes_round_range`].
pub fn check_ashes_rounds(players: usize, rounds: u32) -> Result<(), SeatingError> {
    let (min, max) = ashes_round_range(players)?;
    if rounds < min || rounds > max {
        return Err(SeatingError::RoundsOutOfRange { rounds, min, max });
    }
    Ok(())
}

/// The seed in each slot of a knockout bracket for `entrants` players: the bracket size is the
/// next power of two, slots pair up as (0, 1), (2, 3), ..., and seeds are placed so that 1 meets
/// the last seed, 8 meets 9 in a 16-bracket, and the top seeds can meet only late
/// (1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11). `None` marks a bye (a seed above
/// `entrants`), which by construction falls to the top seeds.
pub fn knockout_bracket(entrants: usize) -> Vec<Option<u32>> {
    let size = entrants.max(1).next_power_of_two();
    let mut order: Vec<u32> = vec![1];
    while order.len() < size {
        let m = order.len() as u32 * 2;
        order = order.iter().flat_map(|&s| [s, m + 1 - s]).collect();
    }
    order
        .into_iter()
        .map(|s| (s as usize <= entrants).then_some(s))
        .collect()
}

/// The matches of a knockout round for the entrants still in, given by their bracket seeds
/// (distinct, 1-based): entrants are placed in their [`knockout_bracket`] slots, the block size
/// is the largest power of two holding at most one entrant per block, and entrants in sibling
/// blocks meet; an entrant whose sibling block is empty has a bye. Returns index pairs (better
/// slot first) and bye indices, in bracket order.
pub fn bracket_matches(seeds: &[u32]) -> (Vec<(usize, usize)>, Vec<usize>) {
    let max_seed = seeds.iter().copied().max().unwrap_or(1) as usize;
    let bracket = knockout_bracket(max_seed);
    let slot_of: HashMap<u32, usize> = bracket
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.map(|s| (s, i)))
        .collect();
    let mut by_slot: Vec<(usize, usize)> = seeds
        .iter()
        .enumerate()
        .map(|(i, s)| (slot_of[s], i))
        .collect();
    by_slot.sort();
    // The largest block size that still holds at most one entrant per block: the entrants
    // are the survivors of blocks of that size, and sibling blocks meet.
    let mut block = 1usize;
    while by_slot.len() > 1
        && by_slot
            .windows(2)
            .all(|w| w[0].0 / (block * 2) != w[1].0 / (block * 2))
    {
        block *= 2;
    }
    let mut pairs = Vec::new();
    let mut byes = Vec::new();
    let mut i = 0;
    while i < by_slot.len() {
        let (s, p) = by_slot[i];
        let sibling = (s / block) ^ 1;
        if i + 1 < by_slot.len() && by_slot[i + 1].0 / block == sibling && sibling > s / block {
            pairs.push((p, by_slot[i + 1].1));
            i += 2;
        } else {
            byes.push(p);
            i += 1;
        }
    }
    (pairs, byes)
}

/// Draws a 2-player round.
pub(crate) fn draw(input: &DrawInput, rng: &mut DrawRng) -> Result<Draw, SeatingError> {
    let n = input.players.len();
    if n < 2 {
        return Err(SeatingError::NotEnoughPlayers { needed: 2, got: n });
    }
    let mut report = DrawReport::default();
    let mut seeds = Vec::new();
    let (pairs, byes) = match input.method {
        SeatingMethod::Swiss2p => {
            let ranked = ranked_players(input, false)?;
            let (pairs, byes, repeats) = swiss_2p(input, &ranked, rng);
            if repeats > 0 {
                report.unsatisfied.push(format!(
                    "{repeats} pairing(s) repeat an earlier game: no repeat-free pairing was found"
                ));
            }
            (pairs, byes)
        }
        SeatingMethod::RoundRobin => {
            // Seed 003 (10.2, "jeder gegen jeden"): the circle keeps the order fixed at the first
            // round (by rating, then id), handed back as seeds in later rounds. Sorting by the
            // ratings of the moment would change the circle as rated rounds come in, and pairs
            // would meet twice. A withdrawn player's place stays in the circle, empty: whoever
            // would have met them has the bye.
            let slots = round_robin_circle(input, &mut seeds);
            round_robin_slots(&slots, input.round.max(1))
        }
        SeatingMethod::Knockout => {
            let (pairs, byes, s) = knockout(input, rng)?;
            seeds = s;
            (pairs, byes)
        }
        _ => unreachable!("not a 2-player method"),
    };
    let per_match = games_per_match(input)?;
    let tables = pairs
        .into_iter()
        .enumerate()
        .flat_map(|(i, [a, b])| {
            (0..per_match).map(move |g| Table {
                number: i as u32 * per_match + g + 1,
                // The players change seats from game to game.
                seats: if g % 2 == 0 { vec![a, b] } else { vec![b, a] },
                starting_player: None,
                label: (per_match > 1).then(|| format!("match {} game {}", i + 1, g + 1)),
            })
        })
        .collect();
    Ok(Draw {
        round: input.round,
        method: input.method,
        tables,
        bridge_groups: vec![],
        shared_deal: None,
        byes,
        groups: vec![],
        team_matches: vec![],
        seeds,
        plan: None,
        report,
    })
}

/// Node budget of the exact (backtracking) Swiss pairing search before it falls back to the
/// greedy pairing with repair: 200,000 steps for fields up to 64 (complete search in practice),
/// 20 steps per player above that (each step costs O(n)). Counted in steps, never timed.
fn swiss_node_budget(n: usize) -> usize {
    if n <= 64 {
        200_000
    } else {
        20 * n
    }
}

/// 2-player Swiss (seeds 003/004; domain.md section 4): players ranked by the standings, score
/// groups of equal score (or equal place when no scores are given).
///
/// 1. Odd field: the bye goes to the lowest-ranked player who has not had one (if all have, the
///    lowest-ranked among those with fewest byes). In Ashes a bye is worth a win (3 points,
///    seed 004); scoring is the standings module's business.
/// 2. The best-ranked unpaired player is paired with the first player they have not met in this
///    order: their score group's unpaired players from the middle down (top half meets bottom
///    half), then from the middle up, then players of lower score groups in ranking order
///    (a floater). A backtracking search over this order finds a repeat-free pairing whenever one
///    exists within the node budget (complete for small fields).
/// 3. If none is found: greedy pairing with fewest meetings, then swaps with lower pairs to remove
///    repeats; remaining repeats are reported.
///
/// Seat order (who is listed first) is drawn by lot. Returns pairs, byes and repeats left.
fn swiss_2p(
    input: &DrawInput,
    ranked: &[PlayerId],
    rng: &mut DrawRng,
) -> (Vec<[PlayerId; 2]>, Vec<PlayerId>, u32) {
    let meetings = Meetings::from_history(&input.history);
    let mut order: Vec<PlayerId> = ranked.to_vec();
    let mut byes = Vec::new();
    if order.len() % 2 == 1 {
        let mut had: HashMap<PlayerId, u32> = HashMap::new();
        for b in &input.history.byes {
            *had.entry(*b).or_insert(0) += 1;
        }
        let fewest = order
            .iter()
            .map(|p| had.get(p).copied().unwrap_or(0))
            .min()
            .unwrap_or(0);
        let pos = order
            .iter()
            .rposition(|p| had.get(p).copied().unwrap_or(0) == fewest)
            .expect("someone has the fewest byes");
        byes.push(order.remove(pos));
    }
    // Score group of each ranked player (non-increasing groups in rank order).
    let score: HashMap<PlayerId, (Option<f64>, u32)> = input
        .standings
        .iter()
        .map(|s| (s.player, (s.score, s.place)))
        .collect();
    let mut group = Vec::with_capacity(order.len());
    let mut g = 0usize;
    for i in 0..order.len() {
        if i > 0 {
            let a = score.get(&order[i - 1]);
            let b = score.get(&order[i]);
            let same = match (a, b) {
                (Some((Some(x), _)), Some((Some(y), _))) => x == y,
                (Some((None, x)), Some((None, y))) => x == y,
                (None, None) => true,
                _ => false,
            };
            if !same {
                g += 1;
            }
        }
        group.push(g);
    }
    let met = |a: usize, b: usize| meetings.count(order[a], order[b]) > 0;
    let pairs_idx = match exact_pairing(&group, &met, swiss_node_budget(group.len())) {
        Some(p) => p,
        None => greedy_with_repair(order.len(), &group, &|a, b| {
            meetings.count(order[a], order[b])
        }),
    };
    let repeats = pairs_idx.iter().filter(|&&(a, b)| met(a, b)).count() as u32;
    let pairs = pairs_idx
        .into_iter()
        .map(|(a, b)| {
            if rng.below(2) == 0 {
                [order[a], order[b]]
            } else {
                [order[b], order[a]]
            }
        })
        .collect();
    (pairs, byes, repeats)
}

/// The candidate opponents of `p` (the best-ranked unpaired player) in preference order, at most
/// `limit` of them, skipping those `skip` rejects (already met).
fn candidates(
    p: usize,
    group: &[usize],
    paired: &[bool],
    group_end: &[usize],
    skip: &dyn Fn(usize, usize) -> bool,
    limit: usize,
) -> Vec<usize> {
    let end = group_end[group[p]];
    let same: Vec<usize> = (p + 1..end).filter(|&i| !paired[i]).collect();
    let u = same.len() + 1; // p included
    let h = ((u / 2).max(1) - 1).min(same.len()); // index in `same` of the natural opponent
    let order = same[h..]
        .iter()
        .copied()
        .chain(same[..h].iter().rev().copied())
        .chain((end..paired.len()).filter(|&i| !paired[i]));
    order.filter(|&q| !skip(p, q)).take(limit).collect()
}

fn group_ends(group: &[usize]) -> Vec<usize> {
    let groups = group.last().map(|g| g + 1).unwrap_or(0);
    let mut ends = vec![0; groups];
    for (i, &g) in group.iter().enumerate() {
        ends[g] = i + 1;
    }
    ends
}

/// Backtracking search for a perfect pairing without repeats, following the preference order.
fn exact_pairing(
    group: &[usize],
    met: &dyn Fn(usize, usize) -> bool,
    budget: usize,
) -> Option<Vec<(usize, usize)>> {
    struct Frame {
        p: usize,
        cands: Vec<usize>,
        next: usize,
        partner: Option<usize>,
    }
    let n = group.len();
    let ends = group_ends(group);
    // Small fields: complete search; large fields: the best few candidates per player.
    let limit = if n <= 64 { usize::MAX } else { 12 };
    let mut paired = vec![false; n];
    let mut stack: Vec<Frame> = Vec::new();
    let mut nodes = 0usize;
    let mut low = 0usize; // every index below `low` is paired
    let push = |paired: &mut Vec<bool>, stack: &mut Vec<Frame>, low: &mut usize| -> bool {
        while *low < n && paired[*low] {
            *low += 1;
        }
        if *low == n {
            return false;
        }
        let p = *low;
        paired[p] = true;
        let cands = candidates(p, group, paired, &ends, met, limit);
        stack.push(Frame {
            p,
            cands,
            next: 0,
            partner: None,
        });
        true
    };
    if !push(&mut paired, &mut stack, &mut low) {
        return Some(Vec::new());
    }
    loop {
        nodes += 1;
        if nodes > budget {
            return None;
        }
        let frame = stack.last_mut()?;
        if let Some(q) = frame.partner.take() {
            paired[q] = false;
            low = low.min(q);
        }
        let p = frame.p;
        let chosen = frame.cands.get(frame.next).copied();
        frame.next += 1;
        match chosen {
            Some(q) => {
                frame.partner = Some(q);
                paired[q] = true;
                if !push(&mut paired, &mut stack, &mut low) {
                    return Some(
                        stack
                            .iter()
                            .map(|f| (f.p, f.partner.expect("complete")))
                            .collect(),
                    );
                }
            }
            None => {
                paired[p] = false;
                low = low.min(p);
                stack.pop();
                if stack.is_empty() {
                    return None;
                }
            }
        }
    }
}

/// Greedy pairing allowing repeats (fewest meetings first, preference order on ties), then
/// swaps: a repeated pair (a, b) and a pair (c, d) below become (a, c) + (b, d) or
/// (a, d) + (b, c) when that lowers the number of repeats.
fn greedy_with_repair(
    n: usize,
    group: &[usize],
    count: &dyn Fn(usize, usize) -> u32,
) -> Vec<(usize, usize)> {
    let ends = group_ends(group);
    let mut paired = vec![false; n];
    let mut pairs = Vec::new();
    for p in 0..n {
        if paired[p] {
            continue;
        }
        paired[p] = true;
        let cands = candidates(p, group, &paired, &ends, &|_, _| false, usize::MAX);
        let q = cands
            .iter()
            .copied()
            .min_by_key(|&q| count(p, q))
            .expect("even number of players");
        paired[q] = true;
        pairs.push((p, q));
    }
    let rep = |a: usize, b: usize| (count(a, b) > 0) as u32;
    for _pass in 0..4 {
        let mut changed = false;
        for i in (0..pairs.len()).rev() {
            let (a, b) = pairs[i];
            if rep(a, b) == 0 {
                continue;
            }
            // Look for a partner pair, nearest first (below, then above).
            let mut order: Vec<usize> = (i + 1..pairs.len()).collect();
            order.extend((0..i).rev());
            for j in order {
                let (c, d) = pairs[j];
                let before = rep(a, b) + rep(c, d);
                if rep(a, c) + rep(b, d) < before {
                    pairs[i] = (a.min(c), a.max(c));
                    pairs[j] = (b.min(d), b.max(d));
                    changed = true;
                    break;
                }
                if rep(a, d) + rep(b, c) < before {
                    pairs[i] = (a.min(d), a.max(d));
                    pairs[j] = (b.min(c), b.max(c));
                    changed = true;
                    break;
                }
            }
        }
        if !changed {
            break;
        }
    }
    pairs.sort();
    pairs
}

/// The circle of a round robin: in the first round the players by rating (then id), which is
/// recorded as their seeds; in later rounds the players at their seeds' places, with the places
/// of players no longer in the event left empty.
fn round_robin_circle(
    input: &DrawInput,
    seeds: &mut Vec<(PlayerId, u32)>,
) -> Vec<Option<PlayerId>> {
    let seeded = input.round > 1 && input.players.iter().all(|p| p.seed.is_some());
    if seeded {
        let size = input
            .players
            .iter()
            .filter_map(|p| p.seed)
            .max()
            .unwrap_or(0) as usize;
        let mut slots = vec![None; size];
        for p in &input.players {
            if let Some(s) = p.seed {
                slots[s as usize - 1] = Some(p.id);
            }
        }
        return slots;
    }
    let mut fixed: Vec<&PlayerEntry> = input.players.iter().collect();
    fixed.sort_by(|a, b| {
        b.rating
            .unwrap_or(f64::NEG_INFINITY)
            .total_cmp(&a.rating.unwrap_or(f64::NEG_INFINITY))
            .then(a.id.cmp(&b.id))
    });
    *seeds = fixed
        .iter()
        .enumerate()
        .map(|(i, p)| (p.id, i as u32 + 1))
        .collect();
    fixed.into_iter().map(|p| Some(p.id)).collect()
}

/// Round `round` of a round robin by the circle method (seed 003 "jeder gegen jeden"): player 1
/// (best ranked) stays fixed and the others rotate one place per round; with an odd field a
/// virtual player is added and whoever meets it has the bye. The first-listed seat alternates so
/// each player is listed first about half the time. Rounds beyond `m - 1` (m = even field size)
/// start a second cycle with the seats swapped.
pub fn round_robin(ranked: &[PlayerId], round: u32) -> (Vec<[PlayerId; 2]>, Vec<PlayerId>) {
    let slots: Vec<Option<PlayerId>> = ranked.iter().copied().map(Some).collect();
    round_robin_slots(&slots, round)
}

/// [`round_robin`] over a circle whose empty places (`None`) are players no longer in the event.
pub fn round_robin_slots(
    circle: &[Option<PlayerId>],
    round: u32,
) -> (Vec<[PlayerId; 2]>, Vec<PlayerId>) {
    let mut slots: Vec<Option<PlayerId>> = circle.to_vec();
    if slots.len() % 2 == 1 {
        slots.push(None);
    }
    let m = slots.len();
    let cycle = (m - 1) as u32;
    let r = (round - 1) % cycle;
    let second_cycle = ((round - 1) / cycle) % 2 == 1;
    let mut rot: Vec<Option<PlayerId>> = vec![slots[0]];
    let others = &slots[1..];
    for i in 0..m - 1 {
        rot.push(others[(i + (m - 1) - r as usize) % (m - 1)]);
    }
    let mut pairs = Vec::new();
    let mut byes = Vec::new();
    for i in 0..m / 2 {
        let (a, b) = (rot[i], rot[m - 1 - i]);
        match (a, b) {
            (Some(a), Some(b)) => {
                let flip = if i == 0 { r % 2 == 1 } else { i % 2 == 1 };
                let flip = flip ^ second_cycle;
                pairs.push(if flip { [b, a] } else { [a, b] });
            }
            (Some(a), None) | (None, Some(a)) => byes.push(a),
            (None, None) => {}
        }
    }
    (pairs, byes)
}

/// Games each pairing of the round plays: a knockout's cup matches may have several (option
/// `games_per_match`, 1-9, default 1; seed 003, Tie-Breaks 1 "Cup-Begegnung über mehrere
/// Spiele"): match k sits at tables (k-1)N+1 ..= kN. Every other method plays one game.
pub fn games_per_match(input: &DrawInput) -> Result<u32, SeatingError> {
    if input.method != SeatingMethod::Knockout {
        return Ok(1);
    }
    match super::opt_u32(input, "games_per_match")? {
        None => Ok(1),
        Some(n) if (1..=9).contains(&n) => Ok(n),
        Some(n) => Err(SeatingError::InvalidOption {
            option: "games_per_match".into(),
            reason: format!("must be between 1 and 9, got {n}"),
        }),
    }
}

/// Pairs, byes and (round 1) seeds of a knockout round.
type KnockoutRound = (Vec<[PlayerId; 2]>, Vec<PlayerId>, Vec<(PlayerId, u32)>);

/// Knockout round: in round 1 (no player has a seed) the players are seeded by rating (highest
/// first, ties by id) and placed by [`knockout_bracket`]; top seeds without an opponent get byes.
/// In later rounds the players still in (with their round-1 seeds) meet their bracket neighbours.
/// Seat order is drawn by lot.
fn knockout(input: &DrawInput, rng: &mut DrawRng) -> Result<KnockoutRound, SeatingError> {
    let mut seeds: Vec<(PlayerId, u32)> = Vec::new();
    let first_round = input.players.iter().all(|p| p.seed.is_none());
    let mut given = std::collections::BTreeSet::new();
    for p in &input.players {
        if let Some(s) = p.seed {
            if s == 0 || !given.insert(s) {
                return Err(SeatingError::InvalidOption {
                    option: "seed".into(),
                    reason: format!("seed {s} of player {} is zero or used twice", p.id),
                });
            }
        }
    }
    let mut entrants = input.players.clone();
    if first_round {
        entrants.sort_by(|a, b| {
            b.rating
                .unwrap_or(f64::NEG_INFINITY)
                .total_cmp(&a.rating.unwrap_or(f64::NEG_INFINITY))
                .then(a.id.cmp(&b.id))
        });
        seeds = entrants
            .iter()
            .enumerate()
            .map(|(i, p)| (p.id, i as u32 + 1))
            .collect();
    } else {
        // Players without a seed (should not happen) go after the seeded ones, by id.
        let max = entrants.iter().filter_map(|p| p.seed).max().unwrap_or(0);
        entrants.sort_by_key(|p| (p.seed.unwrap_or(u32::MAX), p.id));
        let mut extra = max;
        for p in &entrants {
            let s = match p.seed {
                Some(s) => s,
                None => {
                    extra += 1;
                    extra
                }
            };
            seeds.push((p.id, s));
        }
    }
    let seed_list: Vec<u32> = seeds.iter().map(|&(_, s)| s).collect();
    let (matches, bye_idx) = bracket_matches(&seed_list);
    let pairs = matches
        .into_iter()
        .map(|(i, j)| {
            let (p, q) = (seeds[i].0, seeds[j].0);
            if rng.below(2) == 0 {
                [p, q]
            } else {
                [q, p]
            }
        })
        .collect();
    let byes = bye_idx.into_iter().map(|i| seeds[i].0).collect();
    if !first_round {
        seeds.clear();
    }
    Ok((pairs, byes, seeds))
}

#[cfg(test)]
mod tests;
