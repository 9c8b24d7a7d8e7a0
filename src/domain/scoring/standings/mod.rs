//! Standings after any round, for each purpose (seeding, qualification, final).
//!
//! Tabbycat-style: each tie-break metric is a small named unit with a stable key
//! ([`TieBreakKey`]); the order is the ruleset's configured list for the purpose
//! ([`super::TieBreaks`]). Players are first split into tiers, then compared key by key:
//!
//! 1. Tiers: players who continued; players who stopped before a voluntary round (later stops
//!    rank higher); withdrawn players; players whose results are voided (Tantrix: more than two
//!    forfeits). Sources: domain.md section 3 ("Mandatory and voluntary games", "Withdrawal");
//!    seed 003, rule 7.3.
//! 2. Placement groups: once final rounds are played, a player of group k stays within places
//!    4k-3..4k (seed 000, Bordsammensetning 9). The groups are the tables of the first final
//!    round, in the order given (group 1 first).
//! 3. The configured keys, in order. `head_to_head` is computed among the players still tied
//!    when it is applied (seed 003, Tie-Breaks 2).
//! 4. What remains tied is placed equal, flagged `lot`/`decided_by_lot`, or flagged
//!    `playoff_needed`, as the order's [`Unresolved`] says. Lots are drawn with the caller's
//!    [`DrawRng`] or taken from a recorded `lot_order`, never invented.
//!
//! Standings after round N use rounds 1..=N only, so recomputing from scratch equals computing
//! on truncated input (tested).

use super::ruleset::{Format, Purpose, RoundKind, TieBreakKey, Unresolved};
use super::{score_round, Points, RoundInput, RoundScore, Ruleset, ScoringError};
use crate::domain::ids::PlayerId;
use crate::domain::rng::DrawRng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// A player who withdrew: they play no round from `from_round` on and are placed last.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Withdrawal {
    /// The player.
    pub player: PlayerId,
    /// The first round they do not play.
    pub from_round: u32,
}

/// A player who chose not to play a voluntary round (and so stopped before it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OptOut {
    /// The player.
    pub player: PlayerId,
    /// The voluntary round they did not play.
    pub round: u32,
}

/// Withdrawal (plays no round from `from_round` on; placed last) or opt-out (stops before the
/// voluntary round `from_round`; placed below everyone who continued).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, utoipa::ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WithdrawalKind {
    Withdrawal,
    OptOut,
}

impl WithdrawalKind {
    /// The name a kind is stored and sent under.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Withdrawal => "withdrawal",
            Self::OptOut => "opt_out",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Withdrawal, Self::OptOut]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

/// Everything the standings need.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandingsInput {
    /// The tournament's ruleset (preset with overrides applied).
    pub ruleset: Ruleset,
    /// Registered players; players seated in a round are added automatically.
    #[serde(default)]
    pub players: Vec<PlayerId>,
    /// The rounds with results, any order.
    pub rounds: Vec<RoundInput>,
    /// Withdrawals.
    #[serde(default)]
    pub withdrawals: Vec<Withdrawal>,
    /// Voluntary-round opt-outs.
    #[serde(default)]
    pub opt_outs: Vec<OptOut>,
    /// Standings after this round; `None` = after the last round given.
    #[serde(default)]
    pub after_round: Option<u32>,
    /// What the ranking is for.
    pub purpose: Purpose,
    /// A previously recorded lot: players earlier in the list rank higher among players the
    /// tie-breaks could not separate. Takes precedence over drawing a new lot.
    #[serde(default)]
    pub lot_order: Option<Vec<PlayerId>>,
    /// The places a tie must not be left on where the rules call for a play-off: first place,
    /// the prizes, the qualification places (seed 003, 10.3). At least 1.
    #[serde(default = "first_place_only")]
    pub decisive_places: u32,
}

fn first_place_only() -> u32 {
    1
}

/// A tie-break value: a number, or a sequence compared element by element.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TieBreakValue {
    /// A single value (TP, relative score, wins, ...).
    Number(Points),
    /// A sequence (high placements: [firsts, shared firsts, seconds, ...]; final-round places,
    /// last final round first).
    Sequence(Vec<Points>),
}

/// Why a row's place is shared or was decided by lot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TieStatus {
    /// Tied; only a lot can separate them and none was drawn (no random source given).
    Lot,
    /// The order among tied players was decided by lot (recorded in `lot_drawn`).
    DecidedByLot,
    /// Tied; a play-off game must decide (Tantrix).
    PlayoffNeeded,
}

/// One player's line in the standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandingRow {
    /// The player.
    pub player: PlayerId,
    /// The place, 1 = best; players placed equal share a place.
    pub place: u32,
    /// Total TP (weights applied; Ashes: match points).
    pub tp: Points,
    /// TP per round, aligned with [`Standings::rounds`]; `None` when the player did not play it.
    pub tp_by_round: Vec<Option<Points>>,
    /// Every tie-break value of the purpose's order, by key.
    pub tie_breaks: BTreeMap<String, TieBreakValue>,
    /// Placement group (1-based) once final rounds are played.
    pub placement_group: Option<u32>,
    /// Withdrawn: placed last.
    pub withdrawn: bool,
    /// Stopped before this voluntary round: placed below all who continued.
    pub stopped_before_round: Option<u32>,
    /// All results voided (Tantrix: more than `max_forfeits` forfeits).
    pub voided: bool,
    /// Set when the place is shared by lot/play-off or was decided by lot.
    pub tie: Option<TieStatus>,
}

/// The standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standings {
    /// After this round.
    pub after_round: u32,
    /// What the ranking is for.
    pub purpose: Purpose,
    /// The round numbers counted, in order (playoff rounds are not counted).
    pub rounds: Vec<u32>,
    /// Rows, best first.
    pub rows: Vec<StandingRow>,
    /// Lot drawn in this computation (players in drawn order, tie group after tie group); the
    /// caller records it and passes it back as `lot_order` to reproduce the standings.
    pub lot_drawn: Vec<PlayerId>,
}

#[derive(Default, Clone)]
struct Acc {
    tp: Points,
    tp_by_round: Vec<Option<Points>>,
    relative: Points,
    placements: Vec<u32>,
    final_places: Vec<(u32, u32)>,
    prev: Option<(u32, i64, i64)>,
    wins: Points,
    margins: i64,
    game_points: i64,
    games: u32,
    opponents: Vec<usize>,
    h2h: HashMap<usize, Points>,
    forfeits: u32,
}

/// Computes the standings. Pass a random source to draw lots where the ruleset says a lot
/// decides (the drawn order is returned in [`Standings::lot_drawn`] for the caller to record);
/// without one, and without a recorded `lot_order`, such ties are flagged [`TieStatus::Lot`].
pub fn compute_standings(
    input: &StandingsInput,
    rng: Option<&mut DrawRng>,
) -> Result<Standings, ScoringError> {
    let r = &input.ruleset;
    r.validate().map_err(ScoringError::InvalidRuleset)?;
    if r.format == Format::TeamDuplicate {
        return Err(ScoringError::UnsupportedFormat { format: r.format });
    }
    let (after, rounds) = counted_rounds(input)?;
    let scored: Vec<RoundScore> = rounds
        .iter()
        .map(|x| score_round(r, x))
        .collect::<Result<_, _>>()?;
    let field = Field::of(input, &scored);
    let mut acc = field.accumulators(r, scored.len());
    let voided = void_forfeiters(r, &scored, &field, &mut acc);
    accumulate(r, &scored, &rounds, &field, &voided, &mut acc);
    let tiers = Tiers::of(input, &rounds, &field, after, voided);
    let order = r.tie_breaks.for_purpose(input.purpose);
    let mut values = Metrics::of(r, &acc, &rounds).values(&order.keys);
    let playoff = order
        .playoff_after
        .map(|n| (n, input.decisive_places.max(1)));
    let blocks = rank(&order.keys, playoff, &tiers, &acc, &mut values);
    let (rows, lot_drawn) = place(
        input,
        order.unresolved,
        blocks,
        &field,
        &acc,
        &tiers,
        values,
        rng,
    );
    Ok(Standings {
        after_round: after,
        purpose: input.purpose,
        rounds: rounds.iter().map(|x| x.number).collect(),
        rows,
        lot_drawn,
    })
}

/// The rounds that count after round `after` (default: the last given), in order; play-offs
/// never count toward the standings (domain.md section 3).
fn counted_rounds(input: &StandingsInput) -> Result<(u32, Vec<&RoundInput>), ScoringError> {
    let last = input.rounds.iter().map(|x| x.number).max().unwrap_or(0);
    let after = input.after_round.unwrap_or(last);
    let mut rounds: Vec<&RoundInput> = input
        .rounds
        .iter()
        .filter(|x| x.number <= after && x.kind != RoundKind::Playoff)
        .collect();
    rounds.sort_by_key(|x| x.number);
    for w in rounds.windows(2) {
        if w[0].number == w[1].number {
            return Err(ScoringError::DuplicateRound { round: w[0].number });
        }
    }
    Ok((after, rounds))
}

/// The players of the standings, in id order for determinism, with their index.
struct Field {
    ids: Vec<PlayerId>,
    index: HashMap<PlayerId, usize>,
}

impl Field {
    fn of(input: &StandingsInput, scored: &[RoundScore]) -> Self {
        let mut ids: BTreeSet<PlayerId> = input.players.iter().copied().collect();
        for s in scored {
            for t in &s.tables {
                ids.extend(t.seats.iter().map(|x| x.player));
            }
        }
        let ids: Vec<PlayerId> = ids.into_iter().collect();
        let index = ids.iter().enumerate().map(|(i, p)| (*p, i)).collect();
        Field { ids, index }
    }

    fn accumulators(&self, r: &Ruleset, rounds: usize) -> Vec<Acc> {
        let acc = Acc {
            tp_by_round: vec![None; rounds],
            placements: vec![0; 2 * r.players_per_table as usize],
            ..Acc::default()
        };
        vec![acc; self.ids.len()]
    }
}

/// Tantrix: more than `max_forfeits` forfeits voids all of a player's results (seed 003, rule
/// 7.3); games against them are removed for both sides (our reading). Counts every player's
/// forfeits and returns who is voided.
fn void_forfeiters(
    r: &Ruleset,
    scored: &[RoundScore],
    field: &Field,
    acc: &mut [Acc],
) -> Vec<bool> {
    let n = field.ids.len();
    let mut voided = vec![false; n];
    if let Some(t) = &r.tantrix {
        let mut count = vec![0u32; n];
        for s in scored {
            for tb in &s.tables {
                for x in tb.seats.iter().filter(|x| x.forfeit) {
                    count[field.index[&x.player]] += 1;
                }
            }
        }
        for i in 0..n {
            voided[i] = count[i] > t.max_forfeits;
            acc[i].forfeits = count[i];
        }
    }
    voided
}

/// Adds every counted game to its players: TP (weighted per round), relative score, wins,
/// game points, places and final-round places (seed 000), the previous game (seed 000, tie
/// break c), opponents and head-to-head TP (seed 003), and the bridge groups' TP (seed 001).
fn accumulate(
    r: &Ruleset,
    scored: &[RoundScore],
    rounds: &[&RoundInput],
    field: &Field,
    voided: &[bool],
    acc: &mut [Acc],
) {
    let index = &field.index;
    let two_player = matches!(r.format, Format::Tantrix | Format::Ashes);
    for (ri, (s, ro)) in scored.iter().zip(rounds).enumerate() {
        for (ti, t) in s.tables.iter().enumerate() {
            if t.seats.iter().any(|x| voided[index[&x.player]]) {
                continue;
            }
            for (si, x) in t.seats.iter().enumerate() {
                let i = index[&x.player];
                let a = &mut acc[i];
                a.tp += x.tp;
                a.tp_by_round[ri] = Some(a.tp_by_round[ri].unwrap_or_default() + x.tp);
                a.relative += x.relative_score;
                a.wins += x.win_share;
                a.games += 1;
                a.game_points += x.game_total;
                if two_player {
                    a.margins += x.relative_score.numer();
                } else {
                    let slot = (x.place as usize - 1) * 2 + usize::from(x.shared > 1);
                    if let Some(c) = a.placements.get_mut(slot) {
                        *c += 1;
                    }
                    if ro.kind == RoundKind::Final {
                        a.final_places.push((ro.number, x.place));
                    }
                    let raw = &ro.tables[ti].seats[si];
                    a.prev = Some((ro.number, raw.total(), raw.score - raw.penalty));
                }
                if two_player && t.seats.len() == 2 {
                    let o = index[&t.seats[1 - si].player];
                    acc[i].opponents.push(o);
                    *acc[i].h2h.entry(o).or_default() += x.tp;
                }
            }
        }
        for b in &s.bridge {
            let i = index[&b.player];
            let add = b.placement_tp + b.relative_tp;
            acc[i].tp += add;
            acc[i].tp_by_round[ri] = Some(acc[i].tp_by_round[ri].unwrap_or_default() + add);
        }
    }
}

/// Steps 1 and 2 of the module's order: the tier of every player (continued, stopped before a
/// voluntary round, withdrawn, voided) and the placement group of the first final round.
struct Tiers {
    withdrawn: Vec<bool>,
    stopped: Vec<Option<u32>>,
    voided: Vec<bool>,
    group: Vec<Option<u32>>,
}

impl Tiers {
    fn of(
        input: &StandingsInput,
        rounds: &[&RoundInput],
        field: &Field,
        after: u32,
        voided: Vec<bool>,
    ) -> Self {
        let n = field.ids.len();
        let mut withdrawn = vec![false; n];
        for w in &input.withdrawals {
            if let Some(&i) = field.index.get(&w.player) {
                if w.from_round <= after + 1 {
                    withdrawn[i] = true;
                }
            }
        }
        let mut stopped: Vec<Option<u32>> = vec![None; n];
        for o in &input.opt_outs {
            if let Some(&i) = field.index.get(&o.player) {
                if o.round <= after {
                    stopped[i] = Some(stopped[i].map_or(o.round, |s: u32| s.min(o.round)));
                }
            }
        }
        let mut group: Vec<Option<u32>> = vec![None; n];
        if let Some(fr) = rounds.iter().find(|x| x.kind == RoundKind::Final) {
            for (ti, t) in fr.tables.iter().enumerate() {
                for x in &t.seats {
                    group[field.index[&x.player]] = Some(ti as u32 + 1);
                }
            }
        }
        Tiers {
            withdrawn,
            stopped,
            voided,
            group,
        }
    }

    /// What orders players before any tie-break: tier, then later stops first, then group.
    fn prefix(&self, i: usize) -> (u8, i64, u32) {
        let tier = if self.voided[i] {
            3
        } else if self.withdrawn[i] {
            2
        } else if self.stopped[i].is_some() {
            1
        } else {
            0
        };
        (
            tier,
            -(self.stopped[i].unwrap_or(0) as i64),
            self.group[i].unwrap_or(u32::MAX),
        )
    }
}

/// Step 3's metric values that do not depend on who is tied (all but head-to-head).
struct Metrics<'a> {
    acc: &'a [Acc],
    /// Opponents' match-win percentage (seed 003, Tie-Breaks).
    omw: Vec<Points>,
    missing_place: Points,
    last_round: u32,
    /// The final rounds, latest first (seed 000: the final's places decide first).
    final_rounds: Vec<u32>,
}

impl<'a> Metrics<'a> {
    fn of(r: &Ruleset, acc: &'a [Acc], rounds: &[&RoundInput]) -> Self {
        let win_pts = r.ashes.as_ref().map_or(Points::int(3), |a| a.win);
        // Match-win percentage: points / (games x points for a win), at least 1/3 (byes count
        // as games for the player's own percentage; they are not opponents).
        let third = Points::new(1, 3).expect("constant");
        let per_win = Points::new(win_pts.denom(), win_pts.numer().max(1)).expect("positive");
        let mwp: Vec<Points> = acc
            .iter()
            .map(|a| {
                if a.games == 0 {
                    third
                } else {
                    (a.tp * per_win).div_int(a.games as i64).max(third)
                }
            })
            .collect();
        let omw = acc.iter().map(|a| mean_over(&a.opponents, &mwp)).collect();
        Metrics {
            acc,
            omw,
            missing_place: Points::int(r.players_per_table as i64 + 1),
            last_round: rounds.last().map_or(0, |x| x.number),
            final_rounds: rounds
                .iter()
                .filter(|x| x.kind == RoundKind::Final)
                .map(|x| x.number)
                .rev()
                .collect(),
        }
    }

    /// Every player's values of `keys`, by key name.
    fn values(&self, keys: &[TieBreakKey]) -> Vec<BTreeMap<String, TieBreakValue>> {
        (0..self.acc.len())
            .map(|i| {
                keys.iter()
                    .filter_map(|&k| self.value(k, i).map(|v| (k.key().to_string(), v)))
                    .collect()
            })
            .collect()
    }

    fn value(&self, k: TieBreakKey, i: usize) -> Option<TieBreakValue> {
        let a = &self.acc[i];
        let num = |p: Points| Some(TieBreakValue::Number(p));
        let previous = |f: fn(&(u32, i64, i64)) -> i64| {
            num(Points::int(
                a.prev
                    .filter(|p| p.0 == self.last_round)
                    .map_or(i32::MIN as i64, |p| f(&p)),
            ))
        };
        match k {
            TieBreakKey::Tp => num(a.tp),
            TieBreakKey::RelativeScore => num(a.relative),
            TieBreakKey::HighPlacements => Some(TieBreakValue::Sequence(
                a.placements
                    .iter()
                    .map(|&c| Points::int(c as i64))
                    .collect(),
            )),
            TieBreakKey::FinalRoundPlaces => Some(TieBreakValue::Sequence(
                self.final_rounds
                    .iter()
                    .map(|rn| {
                        a.final_places
                            .iter()
                            .find(|(n, _)| n == rn)
                            .map_or(self.missing_place, |(_, p)| Points::int(*p as i64))
                    })
                    .collect(),
            )),
            TieBreakKey::PrevGameTotal => previous(|p| p.1),
            TieBreakKey::PrevGameVp => previous(|p| p.2),
            TieBreakKey::Wins => num(a.wins),
            TieBreakKey::Margins => num(Points::int(a.margins)),
            TieBreakKey::GamePoints | TieBreakKey::SmallPoints => num(Points::int(a.game_points)),
            TieBreakKey::OpponentsMatchWinPct => num(self.omw[i]),
            TieBreakKey::OpponentsOpponentsMatchWinPct => num(mean_over(&a.opponents, &self.omw)),
            TieBreakKey::HeadToHead => None,
        }
    }
}

/// The mean of `values` over the players `of` (zero for nobody).
fn mean_over(of: &[usize], values: &[Points]) -> Points {
    if of.is_empty() {
        Points::ZERO
    } else {
        of.iter()
            .map(|&o| values[o])
            .sum::<Points>()
            .div_int(of.len() as i64)
    }
}

/// A block of players the keys could not separate, and whether a play-off must decide it.
type Block = (Vec<usize>, bool);

/// Steps 1-3: sorts by tier prefix, then refines each block of equal players key by key.
/// Head-to-head is computed among the players of the block it is applied to (seed 003). With a
/// play-off rule `(n, decisive)`, a block still tied after the first `n` keys that starts within
/// the first `decisive` places is left for a play-off instead of the lesser keys.
fn rank(
    keys: &[TieBreakKey],
    playoff: Option<(usize, u32)>,
    tiers: &Tiers,
    acc: &[Acc],
    values: &mut [BTreeMap<String, TieBreakValue>],
) -> Vec<Block> {
    let mut all: Vec<usize> = (0..acc.len()).collect();
    all.sort_by_key(|&i| tiers.prefix(i));
    let mut blocks: Vec<Vec<usize>> = Vec::new();
    for i in all {
        match blocks.last_mut() {
            Some(b) if tiers.prefix(b[0]) == tiers.prefix(i) => b.push(i),
            _ => blocks.push(vec![i]),
        }
    }
    let mut blocks: Vec<Block> = blocks.into_iter().map(|b| (b, false)).collect();
    for (ki, &k) in keys.iter().enumerate() {
        if let Some((_, decisive)) = playoff.filter(|(n, _)| *n == ki) {
            let mut start = 0u32;
            for (b, frozen) in blocks.iter_mut() {
                if b.len() > 1 && start < decisive {
                    *frozen = true;
                }
                start += b.len() as u32;
            }
        }
        let mut next = Vec::with_capacity(blocks.len());
        for (b, frozen) in blocks {
            if b.len() == 1 || frozen {
                next.push((b, frozen));
                continue;
            }
            next.extend(
                split_block(k, &b, acc, values)
                    .into_iter()
                    .map(|x| (x, false)),
            );
        }
        blocks = next;
    }
    blocks
}

/// Splits one block of tied players by key `k`, best first.
fn split_block(
    k: TieBreakKey,
    b: &[usize],
    acc: &[Acc],
    values: &mut [BTreeMap<String, TieBreakValue>],
) -> Vec<Vec<usize>> {
    let mut keyed: Vec<(TieBreakValue, usize)> = b
        .iter()
        .map(|&i| {
            let v = if k == TieBreakKey::HeadToHead {
                let set: HashSet<usize> = b.iter().copied().collect();
                let v = TieBreakValue::Number(
                    acc[i]
                        .h2h
                        .iter()
                        .filter(|(o, _)| set.contains(o))
                        .map(|(_, p)| *p)
                        .sum(),
                );
                values[i].insert(k.key().to_string(), v.clone());
                v
            } else {
                values[i][k.key()].clone()
            };
            (v, i)
        })
        .collect();
    if k.ascending() {
        keyed.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.cmp(&y.1)));
    } else {
        keyed.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    }
    let mut out = Vec::new();
    let mut cur: Vec<usize> = Vec::new();
    let mut cur_v: Option<TieBreakValue> = None;
    for (v, i) in keyed {
        if cur_v.as_ref() != Some(&v) && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur_v = Some(v);
        cur.push(i);
    }
    out.push(cur);
    out
}

/// Step 4: what remains tied after every key is placed equal, flagged for a play-off, or
/// decided by lot (a recorded `lot_order` first, else the caller's draw RNG, else flagged);
/// then the rows, places counted past shared places.
#[allow(clippy::too_many_arguments)]
fn place(
    input: &StandingsInput,
    unresolved: Unresolved,
    blocks: Vec<Block>,
    field: &Field,
    acc: &[Acc],
    tiers: &Tiers,
    mut values: Vec<BTreeMap<String, TieBreakValue>>,
    mut rng: Option<&mut DrawRng>,
) -> (Vec<StandingRow>, Vec<PlayerId>) {
    let ids = &field.ids;
    let lot_pos: Option<HashMap<PlayerId, usize>> = input
        .lot_order
        .as_ref()
        .map(|l| l.iter().enumerate().map(|(i, p)| (*p, i)).collect());
    let mut lot_drawn = Vec::new();
    let mut rows = Vec::with_capacity(ids.len());
    let mut place = 1u32;
    for (b, playoff) in blocks {
        let sub = if b.len() == 1 {
            vec![(b, None)]
        } else if playoff {
            vec![(b, Some(TieStatus::PlayoffNeeded))]
        } else {
            match unresolved {
                Unresolved::Equal => vec![(b, None)],
                Unresolved::Playoff => vec![(b, Some(TieStatus::PlayoffNeeded))],
                Unresolved::Lot => {
                    by_lot(b, ids, lot_pos.as_ref(), rng.as_deref_mut(), &mut lot_drawn)
                }
            }
        };
        for (members, tie) in sub {
            let len = members.len() as u32;
            for i in members {
                let a = &acc[i];
                rows.push(StandingRow {
                    player: ids[i],
                    place,
                    tp: a.tp,
                    tp_by_round: a.tp_by_round.clone(),
                    tie_breaks: std::mem::take(&mut values[i]),
                    placement_group: tiers.group[i],
                    withdrawn: tiers.withdrawn[i],
                    stopped_before_round: tiers.stopped[i],
                    voided: tiers.voided[i],
                    tie,
                });
            }
            place += len;
        }
    }
    (rows, lot_drawn)
}

/// A tied block decided by lot: the recorded lot order for the players it names; else a fresh
/// lot from the caller's RNG (recorded in `lot_drawn`); else left tied and flagged `lot`.
fn by_lot(
    b: Vec<usize>,
    ids: &[PlayerId],
    lot_pos: Option<&HashMap<PlayerId, usize>>,
    rng: Option<&mut DrawRng>,
    lot_drawn: &mut Vec<PlayerId>,
) -> Vec<(Vec<usize>, Option<TieStatus>)> {
    let mut sub = Vec::new();
    if let Some(pos) = lot_pos {
        let (mut known, unknown): (Vec<usize>, Vec<usize>) =
            b.into_iter().partition(|i| pos.contains_key(&ids[*i]));
        known.sort_by_key(|i| pos[&ids[*i]]);
        for i in known {
            sub.push((vec![i], Some(TieStatus::DecidedByLot)));
        }
        match unknown.len() {
            0 => {}
            1 => sub.push((unknown, Some(TieStatus::DecidedByLot))),
            _ => sub.push((unknown, Some(TieStatus::Lot))),
        }
    } else if let Some(g) = rng {
        let mut drawn = b;
        drawn.sort_by_key(|i| ids[*i]);
        g.shuffle(&mut drawn);
        for i in drawn {
            lot_drawn.push(ids[i]);
            sub.push((vec![i], Some(TieStatus::DecidedByLot)));
        }
    } else {
        sub.push((b, Some(TieStatus::Lot)));
    }
    sub
}

#[cfg(test)]
mod tests;
