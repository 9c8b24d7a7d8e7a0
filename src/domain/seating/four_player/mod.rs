//! The nine seating methods for 4-player tables (seed 000, "Bordsammensetning" (1)-(9);
//! domain.md section 4), with 3-player tables where the number of players requires
//! (domain.md section 3).
//!
//! Where the 3-player tables go: the rules say the table where the last-placed (withdrawn) player
//! would have played becomes the 3-player table. For methods that fill tables in ranking order
//! (Swiss, Danish, final groups) that is the last table(s); for the clarification methods table 1
//! holds the last-placed player, so table 1 is the first to become a 3-player table; for
//! placement-even the withdrawn players count as the last places of the snake layout.

use super::{
    fewest, opt_u32, ranked_players_by_lot, schedule, table_sizes, tables_with_lots, Draw,
    DrawInput, DrawReport, Meetings, PlayerEntry, Schedule, SeatingError, SeatingMethod,
    SeedingGroupSpread, Table,
};
use crate::domain::ids::PlayerId;
use crate::domain::rng::DrawRng;
use std::collections::BTreeSet;

/// Draws a round for one of the 4-player methods.
pub(crate) fn draw(input: &DrawInput, rng: &mut DrawRng) -> Result<Draw, SeatingError> {
    use SeatingMethod::*;
    let n = input.players.len();
    let sizes = table_sizes(n)?;
    let mut report = DrawReport::default();
    let mut groups_out = Vec::new();
    let mut plan_out = None;
    let tables: Vec<Table> = match input.method {
        Random => {
            let (mut tables, rest, fresh) = random_round(input, rng)?;
            if input.algorithm >= 2 && fresh && rest.rounds.is_empty() {
                // Issue 44: a round planned alone has the fewest repeats the field allows.
                let everyone = vec![tables.iter().flatten().copied().collect::<Vec<_>>()];
                let best = fewest::fewest_repeats(&everyone, &sizes, &input.history, &tables);
                report.record_fewest(best.lower_bound, best.proven);
                tables = best.tables;
            }
            plan_out = Some(rest);
            tables_with_lots(tables, rng)
        }
        RandomSeeded | FixedSeeded => {
            let min_games = opt_u32(input, "min_rated_games")?.unwrap_or(5);
            let groups = seeding_groups(&input.players, sizes.len(), min_games);
            let fixed = input.method == FixedSeeded;
            let mut t = if fixed {
                seeded_tables(&groups, &sizes, &input.history, input.round, true, rng)
            } else {
                best_seeded_tables(&groups, &sizes, &input.history, input.round, rng)
            };
            if input.algorithm >= 2 {
                // Issue 44: the lot (or the rotation) is kept unless fewer repeats exist.
                let best = fewest::fewest_repeats(&groups, &sizes, &input.history, &t);
                report.record_fewest(best.lower_bound, best.proven);
                t = best.tables;
            }
            report.seeding_groups = group_spread(&groups, &t);
            groups_out = groups;
            tables_with_lots(t, rng)
        }
        PlacementEven => {
            let ranked = ranked_players_by_lot(input, true, rng)?;
            let (t, spread) = placement_even(&ranked, &input.history, rng);
            if spread > 0 {
                report.unsatisfied.push(format!(
                    "placement sums differ by {spread} between tables (no equal split exists)"
                ));
            }
            tables_with_lots(t, rng)
        }
        Swiss => {
            let ranked = ranked_players_by_lot(input, true, rng)?;
            let t = swiss4(&ranked, &sizes, &Meetings::from_history(&input.history));
            tables_with_lots(t, rng)
        }
        Danish => {
            let ranked = ranked_players_by_lot(input, true, rng)?;
            tables_with_lots(in_order(&ranked, &sizes), rng)
        }
        FinalGroups => {
            let ranked = ranked_players_by_lot(input, true, rng)?;
            let t = in_order(&ranked, &sizes);
            groups_out = t.clone();
            tables_with_lots(t, rng)
        }
        Clarification => {
            let ranked = ranked_players_by_lot(input, true, rng)?;
            tables_with_lots(clarification(&ranked, &sizes), rng)
        }
        ClarificationBonus => {
            let ranked = ranked_players_by_lot(input, true, rng)?;
            let t = clarification(&ranked, &sizes);
            // Seed 000 (8): "+3 poeng for hver av de to topplasserte de slår" / "-3 poeng for hver
            // av de to nederste som slår dem": scoring needs who the top two and the bottom two
            // are, so the draw names them (first group the top two, second the bottom two).
            if let Some(t1) = t.first().filter(|t1| t1.len() == 4) {
                groups_out = vec![t1[..2].to_vec(), t1[2..].to_vec()];
            }
            clarification_bonus_seats(t, rng)
        }
        _ => unreachable!("not a 4-player method"),
    };
    Ok(Draw {
        round: input.round,
        method: input.method,
        tables,
        bridge_groups: vec![],
        shared_deal: None,
        byes: vec![],
        groups: groups_out,
        team_matches: vec![],
        seeds: vec![],
        plan: plan_out,
        report,
    })
}

/// The `random` method: the first round of the stored plan if it still seats exactly the active
/// players, else a fresh plan over `rounds_remaining` rounds (default 1) from the history.
/// Returns this round's tables, the plan for the rounds after it, and whether the round was
/// planned now (not taken from the stored plan).
pub(crate) fn random_round(
    input: &DrawInput,
    rng: &mut DrawRng,
) -> Result<(Vec<Vec<PlayerId>>, Schedule, bool), SeatingError> {
    let active: BTreeSet<PlayerId> = input.players.iter().map(|p| p.id).collect();
    if let Some(plan) = &input.plan {
        if let Some(first) = plan.rounds.first() {
            let mut seated: Vec<PlayerId> = first.tables.iter().flatten().copied().collect();
            seated.sort();
            let valid_sizes = first.tables.iter().all(|t| t.len() == 3 || t.len() == 4);
            if valid_sizes && seated.iter().copied().eq(active.iter().copied()) {
                let rest = Schedule {
                    rounds: plan.rounds[1..].to_vec(),
                };
                return Ok((first.tables.clone(), rest, false));
            }
        }
    }
    let rounds = opt_u32(input, "rounds_remaining")?.unwrap_or(1);
    if rounds == 0 {
        return Err(SeatingError::InvalidOption {
            option: "rounds_remaining".into(),
            reason: "must be at least 1 (this round included)".into(),
        });
    }
    let ids: Vec<PlayerId> = active.into_iter().collect();
    let mut plan = schedule::plan_random_schedule(&ids, rounds, &input.history, rng)?;
    let first = plan.rounds.remove(0);
    Ok((first.tables, plan, true))
}

/// Seeding groups (seed 000, Bordsammensetning 2): groups of `y` (the number of tables) by
/// rating, best first, as long as a full group of players with a rating score (at least
/// `min_games` rated games) can be formed; everyone else forms the rest group (last). If any
/// player carries an explicit `seeding_group`, those groups are used instead (players without
/// one go to a rest group after them).
pub fn seeding_groups(players: &[PlayerEntry], y: usize, min_games: u32) -> Vec<Vec<PlayerId>> {
    if players.iter().any(|p| p.seeding_group.is_some()) {
        let mut v: Vec<(u32, PlayerId)> = players
            .iter()
            .map(|p| (p.seeding_group.unwrap_or(u32::MAX), p.id))
            .collect();
        v.sort();
        let mut groups: Vec<Vec<PlayerId>> = Vec::new();
        let mut last = None;
        for (g, p) in v {
            if last != Some(g) {
                groups.push(Vec::new());
                last = Some(g);
            }
            if let Some(cur) = groups.last_mut() {
                cur.push(p);
            }
        }
        return groups;
    }
    let mut rated: Vec<&PlayerEntry> = players
        .iter()
        .filter(|p| p.rating.is_some() && p.rated_games >= min_games)
        .collect();
    rated.sort_by(|a, b| {
        b.rating
            .unwrap_or(0.0)
            .total_cmp(&a.rating.unwrap_or(0.0))
            .then(a.id.cmp(&b.id))
    });
    let full = rated.len() / y.max(1);
    let mut groups: Vec<Vec<PlayerId>> = rated
        .chunks(y.max(1))
        .take(full)
        .map(|c| c.iter().map(|p| p.id).collect())
        .collect();
    let grouped: BTreeSet<PlayerId> = groups.iter().flatten().copied().collect();
    let mut rest: Vec<PlayerId> = players
        .iter()
        .map(|p| p.id)
        .filter(|p| !grouped.contains(p))
        .collect();
    rest.sort();
    if !rest.is_empty() {
        groups.push(rest);
    }
    groups
}

/// Spreads the seeding groups over tables of the given sizes: each group as evenly as the
/// capacities allow (one per table for a group of Y), by lot (`fixed = false`) or by the fixed
/// rotation "member k of group g to table (k + g * (round - 1)) mod Y" (`fixed = true`, seed 000,
/// Bordsammensetning 3); then swaps within a group between tables reduce repeat meetings.
/// Attempts of the random seeded draw: each is a fresh lot plus the swap repair, and the one with
/// the fewest repeat meetings is kept. The repair alone can stop at 2 repeats where none were
/// needed; fresh lots get past that.
const SEEDED_ATTEMPTS: usize = 60;

/// Up to this many players, the seeded draw also looks one round ahead: among its draws with
/// the fewest repeats it keeps one after which the next round can still meet new players
/// (seed 000 (2)/(3): "flest mulig nye spillere" over the event). Round by round, 16 players in
/// four groups could draw a repeat-free second round after which no third round is
/// repeat-free (18 of the 24 repeat-free second rounds are such dead ends); 4 repeat-free
/// rounds exist.
const LOOKAHEAD_PLAYERS: usize = 64;
/// Distinct best draws compared by the lookahead, and fresh lots tried for each next round.
const LOOKAHEAD_CANDIDATES: usize = 32;
const LOOKAHEAD_ATTEMPTS: usize = 40;

/// Repeat meetings a set of tables would add to `meetings`.
fn repeats_of(meetings: &Meetings, tables: &[Vec<PlayerId>]) -> u32 {
    tables
        .iter()
        .map(|t| {
            let mut n = 0;
            for (i, &a) in t.iter().enumerate() {
                for &b in &t[i + 1..] {
                    n += meetings.count(a, b);
                }
            }
            n
        })
        .sum()
}

/// The tables as a set: each table sorted, tables sorted (two lots that seat alike compare
/// equal).
fn normalised(tables: &[Vec<PlayerId>]) -> Vec<Vec<PlayerId>> {
    let mut t: Vec<Vec<PlayerId>> = tables
        .iter()
        .map(|t| {
            let mut t = t.clone();
            t.sort();
            t
        })
        .collect();
    t.sort();
    t
}

fn best_seeded_tables(
    groups: &[Vec<PlayerId>],
    sizes: &[usize],
    history: &super::History,
    round: u32,
    rng: &mut DrawRng,
) -> Vec<Vec<PlayerId>> {
    let meetings = Meetings::from_history(history);
    let lookahead = groups.iter().map(Vec::len).sum::<usize>() <= LOOKAHEAD_PLAYERS;
    // The distinct draws with the fewest repeats this round.
    let mut best: Vec<Vec<Vec<PlayerId>>> = Vec::new();
    let mut seen: Vec<Vec<Vec<PlayerId>>> = Vec::new();
    let mut best_repeats = u32::MAX;
    for _ in 0..SEEDED_ATTEMPTS {
        if best_repeats == 0 && (!lookahead || best.len() >= LOOKAHEAD_CANDIDATES) {
            break;
        }
        let t = seeded_tables(groups, sizes, history, round, false, rng);
        let r = repeats_of(&meetings, &t);
        if r < best_repeats {
            best_repeats = r;
            best.clear();
            seen.clear();
        }
        let key = normalised(&t);
        if r == best_repeats && !seen.contains(&key) {
            seen.push(key);
            best.push(t);
        }
    }
    if !lookahead || best.len() == 1 {
        return best.swap_remove(0);
    }
    // One round ahead: the fewest repeats a fresh lot of the next round reaches after each.
    let mut chosen = 0;
    let mut chosen_next = u32::MAX;
    for (i, tables) in best.iter().enumerate() {
        let mut after = history.clone();
        after.tables.extend(tables.iter().cloned());
        let next_meetings = Meetings::from_history(&after);
        let mut next = u32::MAX;
        for _ in 0..LOOKAHEAD_ATTEMPTS {
            let t = seeded_tables(groups, sizes, &after, round + 1, false, rng);
            next = next.min(repeats_of(&next_meetings, &t));
            if next == 0 {
                break;
            }
        }
        if next < chosen_next {
            (chosen, chosen_next) = (i, next);
            if next == 0 {
                break;
            }
        }
    }
    best.swap_remove(chosen)
}

fn seeded_tables(
    groups: &[Vec<PlayerId>],
    sizes: &[usize],
    history: &super::History,
    round: u32,
    fixed: bool,
    rng: &mut DrawRng,
) -> Vec<Vec<PlayerId>> {
    let y = sizes.len();
    let mut cap: Vec<usize> = sizes.to_vec();
    let mut tables: Vec<Vec<PlayerId>> = vec![Vec::new(); y];
    let mut group_at: Vec<Vec<usize>> = vec![vec![0; y]; groups.len()];
    for (g, members) in groups.iter().enumerate() {
        let mut order = members.clone();
        if !fixed {
            rng.shuffle(&mut order);
        }
        for (k, &p) in order.iter().enumerate() {
            let preferred = if fixed {
                (k + g * (round.max(1) as usize - 1)) % y
            } else {
                0
            };
            // Fewest of this group first, then most free seats, then the preferred/lot order.
            let mut best: Vec<usize> = Vec::new();
            let mut best_key = (usize::MAX, 0usize);
            for t in 0..y {
                if cap[t] == 0 {
                    continue;
                }
                let key = (group_at[g][t], usize::MAX - cap[t]);
                if key < best_key {
                    best_key = key;
                    best.clear();
                }
                if key == best_key {
                    best.push(t);
                }
            }
            let t = if fixed {
                *best
                    .iter()
                    .min_by_key(|&&t| (t + y - preferred) % y)
                    .expect("capacity covers every player")
            } else {
                best[rng.index(best.len())]
            };
            tables[t].push(p);
            cap[t] -= 1;
            group_at[g][t] += 1;
        }
    }
    // Repair repeats by swapping same-group players between tables.
    let meetings = Meetings::from_history(history);
    let group_of = |p: PlayerId| groups.iter().position(|g| g.contains(&p));
    let cost_at = |table: &[PlayerId], p: PlayerId, skip: PlayerId| -> u32 {
        table
            .iter()
            .filter(|&&x| x != p && x != skip)
            .map(|&x| meetings.count(p, x))
            .sum()
    };
    for _pass in 0..20 {
        let mut improved = false;
        for a in 0..y {
            for b in a + 1..y {
                for i in 0..tables[a].len() {
                    for j in 0..tables[b].len() {
                        let (p, q) = (tables[a][i], tables[b][j]);
                        if group_of(p) != group_of(q) {
                            continue;
                        }
                        let before = cost_at(&tables[a], p, p) + cost_at(&tables[b], q, q);
                        let after = cost_at(&tables[a], q, p) + cost_at(&tables[b], p, q);
                        if after < before {
                            tables[a][i] = q;
                            tables[b][j] = p;
                            improved = true;
                        }
                    }
                }
            }
        }
        if !improved {
            break;
        }
    }
    tables
}

/// The spread of each seeding group over the tables.
fn group_spread(groups: &[Vec<PlayerId>], tables: &[Vec<PlayerId>]) -> Vec<SeedingGroupSpread> {
    groups
        .iter()
        .enumerate()
        .map(|(g, members)| {
            let per: Vec<u32> = tables
                .iter()
                .map(|t| t.iter().filter(|p| members.contains(p)).count() as u32)
                .collect();
            SeedingGroupSpread {
                group: g as u32 + 1,
                size: members.len() as u32,
                tables: per.iter().filter(|&&c| c > 0).count() as u32,
                max_at_one_table: per.iter().copied().max().unwrap_or(0),
            }
        })
        .collect()
}

/// Tables filled in ranking order (Danish, seed 000 Bordsammensetning 6; final placement groups,
/// Bordsammensetning 9): places 1-4 on table 1, 5-8 on table 2, ...; 3-player tables last.
pub fn in_order(ranked: &[PlayerId], sizes: &[usize]) -> Vec<Vec<PlayerId>> {
    let mut out = Vec::new();
    let mut k = 0;
    for &s in sizes {
        out.push(ranked[k..k + s].to_vec());
        k += s;
    }
    out
}

/// Clarification tables (seed 000, Bordsammensetning 7): places 1, 2, second-to-last and last on
/// table 1; then 3-6, 7-10, ... If a table must have 3 players, table 1 is the first to lose one
/// (it is where the last-placed player sits): then it holds 1, 2 and last.
pub fn clarification(ranked: &[PlayerId], sizes: &[usize]) -> Vec<Vec<PlayerId>> {
    let n = ranked.len();
    let mut sizes = sizes.to_vec();
    // Move one 3-player table (if any) to the front.
    if let Some(pos) = sizes.iter().position(|&s| s == 3) {
        let s = sizes.remove(pos);
        sizes.insert(0, s);
    }
    let first = sizes[0];
    let bottom = first.saturating_sub(2).min(n.saturating_sub(2));
    let mut t1: Vec<PlayerId> = ranked[..2.min(n)].to_vec();
    t1.extend_from_slice(&ranked[n - bottom..]);
    let middle = &ranked[2.min(n)..n - bottom];
    let mut out = vec![t1];
    out.extend(in_order(middle, &sizes[1..]));
    out
}

/// Seats for clarification with bonus/malus (seed 000, Bordsammensetning 8 and Spesielle regler
/// 1): on table 1 the top player takes seat 1 (the rules let them choose; seat 1 stands for their
/// choice), place 2 sits opposite on seat 3, and the two lowest draw lots for seat 2 (to the top
/// player's left, play goes clockwise) and seat 4. A 3-player table 1 seats the top player on
/// seat 1 and the other two by lot. Other tables and all starting players are drawn by lot.
fn clarification_bonus_seats(t: Vec<Vec<PlayerId>>, rng: &mut DrawRng) -> Vec<Table> {
    let mut iter = t.into_iter();
    let t1 = iter.next().unwrap_or_default();
    let seats = if t1.len() == 4 {
        let (low_a, low_b) = (t1[2], t1[3]);
        let (left, other) = if rng.below(2) == 0 {
            (low_a, low_b)
        } else {
            (low_b, low_a)
        };
        vec![t1[0], left, t1[1], other]
    } else {
        let mut rest = t1[1..].to_vec();
        rng.shuffle(&mut rest);
        let mut s = vec![t1[0]];
        s.extend(rest);
        s
    };
    let starting_player = Some(seats[rng.index(seats.len())]);
    let mut tables = vec![Table {
        number: 1,
        seats,
        starting_player,
        label: None,
    }];
    for mut t in tables_with_lots(iter.collect(), rng) {
        t.number += 1;
        tables.push(t);
    }
    tables
}

/// Swiss for 4-player tables (seed 000, Bordsammensetning 5; domain.md 4.5): the best-ranked
/// player left meets the three highest-ranked others left whom they have not met; if fewer than
/// three are new to them, the best-ranked among those met fewest times fill the table. Repeat for
/// the best-ranked player left. Deterministic given the ranking and history; 3-player tables last.
pub fn swiss4(ranked: &[PlayerId], sizes: &[usize], meetings: &Meetings) -> Vec<Vec<PlayerId>> {
    let mut left: Vec<PlayerId> = ranked.to_vec();
    let mut out = Vec::with_capacity(sizes.len());
    for &s in sizes {
        let top = left.remove(0);
        // (times met, rank) of each candidate; take the s-1 smallest.
        let mut keyed: Vec<(u32, usize)> = left
            .iter()
            .enumerate()
            .map(|(i, &p)| (meetings.count(top, p), i))
            .collect();
        let take = (s - 1).min(keyed.len());
        if take < keyed.len() {
            keyed.select_nth_unstable(take);
            keyed.truncate(take);
        }
        keyed.sort();
        let mut idx: Vec<usize> = keyed.iter().map(|&(_, i)| i).collect();
        let mut table = vec![top];
        table.extend(idx.iter().map(|&i| left[i]));
        idx.sort_unstable_by(|a, b| b.cmp(a));
        for i in idx {
            left.remove(i);
        }
        // Keep seat lists in ranking order.
        out.push(table);
    }
    out
}

/// Placement-based even tables (seed 000, Bordsammensetning 4; domain.md 4.4): the sum of the
/// players' places (their rank 1..n among active players) is the same on every table, and among
/// the equal-sum layouts the one with fewest repeat meetings is sought.
///
/// Start: the snake layout over 4Y places (row 1 forward, rows 2 and 3 backward, row 4 forward),
/// whose table sums are all 8Y + 2; places above n (withdrawn players, placed last, domain.md
/// section 3) are empty seats. Then a seeded local search over swaps of one player or two players
/// between two tables keeps the sum spread at its minimum and lowers the repeats.
/// Returns the tables and the remaining sum spread (0 when all sums are equal, counting empty
/// seats at their virtual places).
pub fn placement_even(
    ranked: &[PlayerId],
    history: &super::History,
    rng: &mut DrawRng,
) -> (Vec<Vec<PlayerId>>, u32) {
    let n = ranked.len();
    let y = n.div_ceil(4);
    // Virtual places 1..=total laid out in the snake.
    let mut layout: Vec<Vec<usize>> = vec![Vec::new(); y];
    for row in 0..4 {
        for i in 0..y {
            let place = row * y + i + 1;
            let t = if row == 0 || row == 3 { i } else { y - 1 - i };
            layout[t].push(place);
        }
    }
    let meetings = Meetings::from_history(history);
    let pid = |place: usize| ranked[place - 1];
    let real = |place: usize| place <= n;
    let sum = |t: &Vec<usize>| t.iter().sum::<usize>();
    let reps = |t: &Vec<usize>| -> u32 {
        let mut c = 0;
        for (i, &a) in t.iter().enumerate() {
            for &b in &t[i + 1..] {
                if real(a) && real(b) {
                    c += meetings.count(pid(a), pid(b));
                }
            }
        }
        c
    };
    let spread = |l: &Vec<Vec<usize>>| {
        let sums: Vec<usize> = l.iter().map(sum).collect();
        (sums.iter().max().unwrap_or(&0) - sums.iter().min().unwrap_or(&0)) as u32
    };
    let mut cur_reps: u32 = layout.iter().map(reps).sum();
    let mut best = layout.clone();
    let mut best_reps = cur_reps;
    let base_spread = spread(&layout);
    if y >= 2 && cur_reps > 0 {
        let budget = 4_000 + 400 * y;
        for _ in 0..budget {
            let a = rng.index(y);
            let mut b = rng.index(y - 1);
            if b >= a {
                b += 1;
            }
            let two = rng.below(2) == 1;
            let la = layout[a].len();
            let lb = layout[b].len();
            let (i1, j1) = (rng.index(la), rng.index(lb));
            let (i2, j2) = (rng.index(la), rng.index(lb));
            if two && (i1 == i2 || j1 == j2) {
                continue;
            }
            let moved: Vec<(usize, usize)> = if two {
                vec![(i1, j1), (i2, j2)]
            } else {
                vec![(i1, j1)]
            };
            // Empty seats stay where the snake put them.
            if moved
                .iter()
                .any(|&(i, j)| !real(layout[a][i]) || !real(layout[b][j]))
            {
                continue;
            }
            let out_a: usize = moved.iter().map(|&(i, _)| layout[a][i]).sum();
            let out_b: usize = moved.iter().map(|&(_, j)| layout[b][j]).sum();
            if out_a != out_b {
                continue; // would change the sums
            }
            let before = reps(&layout[a]) + reps(&layout[b]);
            for &(i, j) in &moved {
                let tmp = layout[a][i];
                layout[a][i] = layout[b][j];
                layout[b][j] = tmp;
            }
            let after = reps(&layout[a]) + reps(&layout[b]);
            if after <= before {
                cur_reps = cur_reps + after - before;
                if cur_reps < best_reps {
                    best_reps = cur_reps;
                    best = layout.clone();
                    if best_reps == 0 {
                        break;
                    }
                }
            } else {
                for &(i, j) in moved.iter().rev() {
                    let tmp = layout[a][i];
                    layout[a][i] = layout[b][j];
                    layout[b][j] = tmp;
                }
            }
        }
    }
    // Table 1 holds place 1, and so on by best place.
    let mut best: Vec<Vec<usize>> = best
        .into_iter()
        .map(|mut t| {
            t.sort();
            t
        })
        .collect();
    best.sort();
    let tables = best
        .into_iter()
        .map(|t| t.into_iter().filter(|&p| real(p)).map(pid).collect())
        .collect();
    (tables, base_spread)
}

#[cfg(test)]
mod tests;
