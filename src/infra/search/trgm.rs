//! pg_trgm's word similarity, as PostgreSQL computes it: words are runs of letters and digits
//! (ASCII ones in a database whose character type is `C`; Unicode ones with `C.UTF-8`, the
//! embedded cluster's), each word padded with two blanks before and one after, and its
//! trigrams taken in order (pg_trgm compares a trigram of multibyte characters by a checksum
//! of its bytes; here by the characters).
//! `word_similarity(q, name)` is the greatest `shared / (|q| + |extent| - shared)` over the
//! continuous extents of the name's trigram sequence (unique trigrams counted), computed by
//! the very procedure of `contrib/pg_trgm/trgm_op.c` (`iterate_word_similarity`, plain, not
//! strict), in `f32` as PostgreSQL's `float4`, so that ranks and cursors agree bit for bit.

/// A trigram of three characters, packed (21 bits each).
pub type Trgm = u64;

/// `pg_trgm.word_similarity_threshold`'s default: `q <% name` when the similarity reaches it.
pub const THRESHOLD: f64 = 0.6;

fn pack(a: char, b: char, c: char) -> Trgm {
    (u64::from(a) << 42) | (u64::from(b) << 21) | u64::from(c)
}

/// What a word is made of: ASCII letters and digits (`LC_CTYPE` `C`), or every Unicode letter
/// and digit (`C.UTF-8` and other UTF-8 character types, `iswalnum`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Words {
    #[default]
    Ascii,
    Unicode,
}

impl Words {
    fn is_word(self, c: char) -> bool {
        match self {
            Words::Ascii => c.is_ascii_alphanumeric(),
            Words::Unicode => c.is_alphanumeric(),
        }
    }

    /// The words of `s` as pg_trgm sees them.
    fn of(self, s: &str) -> impl Iterator<Item = &str> {
        s.split(move |c: char| !self.is_word(c))
            .filter(|w| !w.is_empty())
    }
}

/// Lower case where it is one character (the folded names already are).
fn lower(c: char) -> char {
    let mut l = c.to_lowercase();
    match (l.next(), l.next()) {
        (Some(x), None) => x,
        _ => c,
    }
}

/// The trigrams of `s` in order (repeats kept), as `generate_trgm_only` makes them: each word
/// padded, "  word ".
pub fn sequence(s: &str, words: Words, out: &mut Vec<Trgm>) {
    out.clear();
    if s.is_ascii() {
        return ascii_sequence(s.as_bytes(), out);
    }
    general_sequence(s, words, out);
}

/// [`sequence`] of any text, character by character.
fn general_sequence(s: &str, words: Words, out: &mut Vec<Trgm>) {
    let mut padded: Vec<char> = Vec::new();
    for w in words.of(s) {
        padded.clear();
        padded.extend([' ', ' ']);
        padded.extend(w.chars().map(lower));
        padded.push(' ');
        out.extend(padded.windows(3).map(|t| pack(t[0], t[1], t[2])));
    }
}

/// [`sequence`] of an ASCII text, byte by byte and with no buffer of its own: an ASCII letter
/// or digit is a word's in both kinds of [`Words`], and its lower case is `to_ascii_lowercase`.
/// One pass, the trigram rolled on a character at a time (the last two characters shifted up,
/// the new one added: [`pack`]'s layout).
fn ascii_sequence(s: &[u8], out: &mut Vec<Trgm>) {
    const SPACE: u64 = b' ' as u64;
    const BITS: u64 = (1 << 63) - 1;
    let roll = |t: Trgm, c: u64| ((t << 21) | c) & BITS;
    // Two blanks before a word.
    let start = (SPACE << 21) | SPACE;
    let (mut t, mut in_word) = (start, false);
    // A trigram a character, and one a word's end.
    out.reserve(s.len() * 2);
    for &x in s {
        if x.is_ascii_alphanumeric() {
            t = roll(t, u64::from(x.to_ascii_lowercase()));
            out.push(t);
            in_word = true;
        } else if in_word {
            out.push(roll(t, SPACE));
            (t, in_word) = (start, false);
        }
    }
    if in_word {
        out.push(roll(t, SPACE));
    }
}

/// The distinct trigrams of `s`, sorted.
pub fn set(s: &str, words: Words) -> Vec<Trgm> {
    let mut v = Vec::new();
    sequence(s, words, &mut v);
    v.sort_unstable();
    v.dedup();
    v
}

/// Trigrams every name containing `s` holds (pg_trgm's for `LIKE '%s%'`): those inside the
/// words of `s`, and the padding where `s` shows a word's edge (a word of `s` after another
/// character of `s` starts a word of the name, "  a" and " ab"; one before another character
/// ends one, "yz "). Empty when `s` shows no three characters of a padded word.
pub fn inner(s: &str, words: Words) -> Vec<Trgm> {
    let chars: Vec<char> = s.chars().collect();
    let mut v: Vec<Trgm> = Vec::new();
    let mut padded: Vec<char> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !words.is_word(chars[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && words.is_word(chars[i]) {
            i += 1;
        }
        padded.clear();
        if start > 0 {
            padded.extend([' ', ' ']);
        }
        padded.extend(chars[start..i].iter().map(|&c| lower(c)));
        if i < chars.len() {
            padded.push(' ');
        }
        v.extend(padded.windows(3).map(|t| pack(t[0], t[1], t[2])));
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// A search text's distinct trigrams, sorted (it derefs to them), with a table that finds a
/// trigram's place among them in one read: a name's every trigram is looked for in them, and
/// a binary search's chain of comparisons was most of deciding a name (`tier`, `iterate`).
#[derive(Debug)]
pub struct Text {
    trigrams: Vec<Trgm>,
    /// Each trigram at the entry its multiplicative hash gives, with its place; no two of
    /// them at one entry (the multiplier and the size are chosen so). Other entries hold
    /// [`Text::EMPTY`]. Empty where no table up to [`Text::LARGEST`] entries would do (the
    /// trigrams are then searched for).
    table: Vec<(Trgm, u32)>,
    multiplier: u64,
    shift: u32,
}

impl Text {
    /// No trigram: three characters of 21 bits take 63.
    const EMPTY: Trgm = u64::MAX;
    /// The most entries a table is given (a search text's trigrams are a few dozen; the
    /// text is a stranger's, and the search must end whatever it is).
    const LARGEST: usize = 1 << 16;

    /// The text whose distinct sorted trigrams are `trigrams`.
    pub fn new(trigrams: Vec<Trgm>) -> Self {
        Self::with_largest(trigrams, Self::LARGEST)
    }

    /// [`Text::new`] with tables of at most `largest` entries.
    fn with_largest(trigrams: Vec<Trgm>, largest: usize) -> Self {
        // Four entries a trigram or more, and the first of some odd multipliers that puts no
        // two at one entry (at four entries a trigram about one in four does for 13
        // trigrams); the table doubles when none does.
        let mut size = (trigrams.len() * 4).next_power_of_two().max(64);
        let mut multiplier = 0x9E37_79B9_7F4A_7C15u64;
        while size <= largest {
            // One table a size, emptied for each multiplier tried.
            let mut table = vec![(Self::EMPTY, 0); size];
            let shift = 64 - size.trailing_zeros();
            for _ in 0..64 {
                let placed = trigrams.iter().enumerate().all(|(j, &t)| {
                    let i = Self::slot_of(t, multiplier, shift);
                    let free = table[i].0 == Self::EMPTY;
                    table[i] = (t, j as u32);
                    free
                });
                if placed {
                    return Self {
                        trigrams,
                        table,
                        multiplier,
                        shift,
                    };
                }
                table.fill((Self::EMPTY, 0));
                multiplier = multiplier.wrapping_mul(6364136223846793005).wrapping_add(2) | 1;
            }
            size *= 2;
        }
        Self {
            trigrams,
            table: Vec::new(),
            multiplier,
            shift: 0,
        }
    }

    #[inline]
    fn slot(&self, t: Trgm) -> usize {
        Self::slot_of(t, self.multiplier, self.shift)
    }

    /// The entry `t` takes in a table of `2^(64 - shift)` entries with `multiplier`.
    #[inline]
    fn slot_of(t: Trgm, multiplier: u64, shift: u32) -> usize {
        (t.wrapping_mul(multiplier) >> shift) as usize
    }

    /// The place of `t` among the trigrams, if it is one of them.
    #[inline]
    pub fn find(&self, t: Trgm) -> Option<usize> {
        if self.table.is_empty() {
            return self.trigrams.binary_search(&t).ok();
        }
        let (key, j) = self.table[self.slot(t)];
        (key == t).then_some(j as usize)
    }
}

/// A search text's trigrams as a name's are looked for among them: by the trigram (a
/// [`Text`]) or by its code (`codes::Coded`).
pub trait Finds {
    /// What a name's trigram is given as.
    type T: Copy + Eq + Into<u64>;
    /// Its place among the text's trigrams, if it is one of them.
    fn find(&self, t: Self::T) -> Option<usize>;
    /// How many trigrams the text has.
    fn k(&self) -> usize;
    /// The places of `name` holding one of the text's trigrams, as bits (bit `i`: place
    /// `i`), where it can say them without a branch a place (`None`: it cannot).
    #[inline]
    fn places(&self, _name: &[Self::T]) -> Option<u32> {
        None
    }
}

impl Finds for Text {
    type T = Trgm;

    #[inline]
    fn find(&self, t: Trgm) -> Option<usize> {
        Text::find(self, t)
    }

    #[inline]
    fn k(&self) -> usize {
        self.trigrams.len()
    }
}

impl std::ops::Deref for Text {
    type Target = [Trgm];

    fn deref(&self) -> &[Trgm] {
        &self.trigrams
    }
}

fn calcsml(count: i32, len1: i32, len2: i32) -> f32 {
    count as f32 / (len1 + len2 - count) as f32
}

/// `word_similarity(q, name)` for the distinct sorted trigrams `q` of the search text and the
/// trigram sequence `name`; `scratch` is reused between calls.
pub fn word_similarity<F: Finds>(q: &F, name: &[F::T], scratch: &mut Scratch) -> f32 {
    iterate(q, name, scratch, false)
}

/// Whether `q <% name`: [`word_similarity`] passes the threshold. As pg_trgm's operator does
/// (`WORD_SIMILARITY_CHECK_ONLY`), the loop stops at the first extent that passes: up to it the
/// loop is the same, and the maximum is at least that extent's.
pub fn word_passes<F: Finds>(q: &F, name: &[F::T], scratch: &mut Scratch) -> bool {
    passes(iterate(q, name, scratch, true))
}

/// How a name's tier (how many of the search's `q` trigrams it holds) decides its similarity
/// without pg_trgm's loop, where the trigrams' places tell:
/// - the name shows them once each, one after another: `held / |q|` (that extent shares
///   `held` of `held`, the greatest similarity a name holding `held` can have, and the loop
///   reaches it);
/// - an extent within a run of them shares at most the run's length (`run / |q|`), and one
///   across two runs holds another trigram too (`held / (|q| + 1)` at most): when neither
///   passes, no extent does. The loop's similarity is one of an extent's, so it does not pass
///   (a `float4` quotient rounds no higher than a greater one).
enum Tier {
    Exact(f32),
    Fails,
    Loop,
}

fn tier<F: Finds>(q: &F, name: &[F::T], held: usize) -> Tier {
    let runs = Runs::of(q, name);
    let k = q.k();
    // Once each, one after another: one run of `held`.
    if runs.count == 1 && runs.found == held {
        let held = held as i32;
        return Tier::Exact(calcsml(held, k as i32, held));
    }
    let within = runs.longest.min(held) as f32 / k as f32;
    let across = held as f32 / (k + 1) as f32;
    if !passes(within) && (runs.count < 2 || !passes(across) || !runs.spans_may_pass(name, held, k))
    {
        return Tier::Fails;
    }
    Tier::Loop
}

/// The runs of a name's trigrams of the text (their places one after another), as [`tier`]
/// meets them: how many places and runs, the longest, and the first 16 runs (start, length).
#[derive(Default)]
struct Runs {
    found: usize,
    count: usize,
    /// The run under way: its length, and the place last found.
    run: usize,
    last: usize,
    longest: usize,
    at: [(usize, usize); 16],
}

impl Runs {
    /// The runs of `name`'s trigrams of `q` (sorted).
    fn of<F: Finds>(q: &F, name: &[F::T]) -> Self {
        if let Some(places) = q.places(name) {
            return Self::of_places(places);
        }
        let mut runs = Self::default();
        for (i, t) in name.iter().enumerate() {
            if q.find(*t).is_some() {
                runs.found(i);
            }
        }
        runs
    }

    /// The runs of the places whose bits are set in `places` (as [`Runs::of`] meets them:
    /// the runs of set bits, lowest first).
    fn of_places(places: u32) -> Self {
        let mut runs = Self {
            found: places.count_ones() as usize,
            ..Self::default()
        };
        let mut rest = u64::from(places);
        while rest != 0 {
            let start = rest.trailing_zeros();
            let len = (rest >> start).trailing_ones();
            if let Some(r) = runs.at.get_mut(runs.count) {
                *r = (start as usize, len as usize);
            }
            runs.count += 1;
            runs.longest = runs.longest.max(len as usize);
            rest &= !(((1u64 << len) - 1) << start);
        }
        runs
    }

    /// Place `i` holds a trigram of the text (places met in order).
    fn found(&mut self, i: usize) {
        if self.found > 0 && self.last + 1 == i {
            self.run += 1;
        } else {
            self.count += 1;
            self.run = 1;
        }
        if let Some(r) = self.at.get_mut(self.count - 1) {
            *r = (i + 1 - self.run, self.run);
        }
        self.longest = self.longest.max(self.run);
        self.last = i;
        self.found += 1;
    }

    /// Whether an extent across two runs or more may pass: it shares at most the runs'
    /// trigrams (and `held`), and holds at least the distinct trigrams of every gap between
    /// them (`count / (|q| + others)`). Past 16 runs: it may.
    fn spans_may_pass<T: Eq>(&self, name: &[T], held: usize, k: usize) -> bool {
        if self.count > 16 {
            return true;
        }
        let runs = &self.at[..self.count];
        // The distinct trigrams of each gap.
        let mut gaps = [0usize; 16];
        for (g, w) in runs.windows(2).enumerate() {
            let gap = &name[w[0].0 + w[0].1..w[1].0];
            gaps[g] = (0..gap.len())
                .filter(|&i| !gap[..i].contains(&gap[i]))
                .count();
        }
        for i in 0..runs.len() {
            let (mut shared, mut others) = (runs[i].1, 0);
            for j in i + 1..runs.len() {
                shared += runs[j].1;
                others = others.max(gaps[j - 1]);
                if passes(shared.min(held) as f32 / (k + others) as f32) {
                    return true;
                }
            }
        }
        false
    }
}

/// [`word_similarity`] of a name known to hold `held` of the trigrams of `q` (its tier), or
/// `None` where it cannot reach the threshold, found without pg_trgm's loop where the
/// trigrams' places tell (see [`Tier`]).
pub fn tier_similarity<F: Finds>(
    q: &F,
    name: &[F::T],
    held: usize,
    scratch: &mut Scratch,
) -> Option<f32> {
    match tier(q, name, held) {
        Tier::Exact(s) => Some(s),
        Tier::Fails => None,
        Tier::Loop => Some(word_similarity(q, name, scratch)),
    }
}

/// Whether `q <% name` for a name holding `held` of the trigrams of `q`: [`tier_similarity`]
/// passes, with the loop stopped at the first extent that passes ([`word_passes`]).
pub fn tier_passes<F: Finds>(q: &F, name: &[F::T], held: usize, scratch: &mut Scratch) -> bool {
    match tier(q, name, held) {
        Tier::Exact(s) => passes(s),
        Tier::Fails => false,
        Tier::Loop => word_passes(q, name, scratch),
    }
}

/// `iterate_word_similarity` (plain word similarity, the maximum; with `check`, stopped at the
/// first extent that passes, as `WORD_SIMILARITY_CHECK_ONLY`). Each trigram of the name is
/// numbered as the loop reaches it: the query's by their place in `q`, the others after them,
/// equal trigrams alike.
fn iterate<F: Finds>(q: &F, name: &[F::T], scratch: &mut Scratch, check: bool) -> f32 {
    let ulen1 = q.k() as i32;
    if q.k() == 0 || name.is_empty() {
        return 0.0;
    }
    let Scratch {
        index,
        others,
        lastpos,
    } = scratch;
    index.clear();
    others.clear();
    lastpos.clear();
    lastpos.resize(q.k(), -1);
    let k = q.k();
    let found = |i: usize| i < k;
    let (mut ulen2, mut count, mut lower) = (0i32, 0i32, -1i32);
    let mut smlr_max = 0f32;
    for (i, t) in name.iter().enumerate() {
        let t = match q.find(*t) {
            Some(j) => j,
            // Before the first trigram of `q`, another one is never read again.
            None if lower < 0 => {
                index.push(usize::MAX);
                continue;
            }
            None => match others.iter().position(|&o| o == (*t).into()) {
                Some(j) => k + j,
                None => {
                    others.push((*t).into());
                    lastpos.push(-1);
                    k + others.len() - 1
                }
            },
        };
        index.push(t);
        let i = i as i32;
        if lower >= 0 || found(t) {
            if lastpos[t] < 0 {
                ulen2 += 1;
                if found(t) {
                    count += 1;
                }
            }
            lastpos[t] = i;
        }
        if !found(t) {
            continue;
        }
        let upper = i;
        if lower == -1 {
            lower = i;
            ulen2 = 1;
        }
        let mut smlr_cur = calcsml(count, ulen1, ulen2);
        if check && passes(smlr_cur) {
            return smlr_cur;
        }
        let (mut tmp_count, mut tmp_ulen2, prev_lower) = (count, ulen2, lower);
        // The bounds as they were when the loop began (the C loop reads `upper` only).
        let from = lower;
        for tmp_lower in from..=upper {
            let smlr_tmp = calcsml(tmp_count, ulen1, tmp_ulen2);
            if smlr_tmp > smlr_cur {
                smlr_cur = smlr_tmp;
                if check && passes(smlr_cur) {
                    return smlr_cur;
                }
                ulen2 = tmp_ulen2;
                lower = tmp_lower;
                count = tmp_count;
            }
            let tt = index[tmp_lower as usize];
            if lastpos[tt] == tmp_lower {
                tmp_ulen2 -= 1;
                if found(tt) {
                    tmp_count -= 1;
                }
            }
        }
        smlr_max = smlr_max.max(smlr_cur);
        for tmp_lower in prev_lower..lower {
            let tt = index[tmp_lower as usize];
            if lastpos[tt] == tmp_lower {
                lastpos[tt] = -1;
            }
        }
    }
    smlr_max
}

/// Buffers [`word_similarity`] reuses.
#[derive(Default)]
pub struct Scratch {
    index: Vec<usize>,
    others: Vec<Trgm>,
    lastpos: Vec<i32>,
}

/// Whether `q <% name` (`word_similarity >= threshold`, compared as PostgreSQL compares the
/// `float4` with the `float8` setting).
pub fn passes(similarity: f32) -> bool {
    f64::from(similarity) >= THRESHOLD
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws(q: &str, name: &str) -> f32 {
        let mut seq = Vec::new();
        sequence(name, Words::Ascii, &mut seq);
        word_similarity(
            &Text::new(set(q, Words::Ascii)),
            &seq,
            &mut Scratch::default(),
        )
    }

    /// Figures PostgreSQL 15 gives (`SELECT word_similarity(a, b)`), `docs/decisions/ranked-search.md`
    /// among them.
    #[test]
    fn agrees_with_pg_trgm() {
        assert_eq!(ws("stad", "anne stadheim 17"), 0.8);
        assert_eq!(ws("word", "two words"), 0.8);
        assert_eq!(ws("kari", "kari nordmann"), 1.0);
        assert_eq!(ws("zzzq", "kari nordmann"), 0.0);
        assert_eq!(ws("", "kari"), 0.0);
        // `lukasz wisniewska` against a name sharing only the surname: 0.61 (over 0.6).
        let s = ws("lukasz wisniewska", "anna wisniewska 3");
        assert!(passes(s) && s < 0.62, "{s}");
        // A typo of a word is a near match.
        assert!(passes(ws("oysten", "oystein odegard")));
        // Non-ASCII letters separate words in a `C` database, and are letters in `C.UTF-8`.
        assert_eq!(set("ə", Words::Ascii), Vec::<Trgm>::new());
        assert_eq!(set("ə", Words::Unicode).len(), 2);
        assert_eq!(set("a", Words::Ascii).len(), 2);
        assert_eq!(set("сергей", Words::Unicode), set("Сергей", Words::Unicode));
    }

    /// What `inner` takes of a search text: every trigram inside its words, and the padding
    /// where the text shows a word's start or end; and each of them is a trigram of every name
    /// holding the text.
    #[test]
    fn inner_takes_the_edges_the_text_shows() {
        let t = |s: &str| set(s, Words::Ascii);
        let inner = |s: &str| inner(s, Words::Ascii);
        assert_eq!(inner("kar"), vec![pack('k', 'a', 'r')]);
        assert!(inner("ka").is_empty());
        // A word's end before a blank, a start after one; neither at the text's own edges.
        assert_eq!(
            inner("oo s"),
            vec![pack(' ', ' ', 's'), pack('o', 'o', ' ')]
        );
        assert_eq!(inner("s"), Vec::<Trgm>::new());
        assert_eq!(inner(" s "), t("s"));
        assert_eq!(
            inner("karo "),
            vec![
                pack('a', 'r', 'o'),
                pack('k', 'a', 'r'),
                pack('r', 'o', ' ')
            ]
        );
        assert_eq!(
            inner("x.st"),
            vec![pack(' ', ' ', 's'), pack(' ', 's', 't')]
        );
        for (q, name) in [
            ("oo s", "karoo stenma 1"),
            ("o ste", "lo stenma"),
            ("a-b", "xa-by"),
            ("karo st", "karo stenma 17"),
            (" 17", "karo stenma 17"),
            ("ma 1", "karo stenma 17"),
        ] {
            assert!(name.contains(q));
            let held = t(name);
            for x in inner(q) {
                assert!(held.contains(&x), "{q:?} in {name:?}");
            }
        }
    }

    /// The runs read from a name's places as bits are those met place by place, for every
    /// length a line of codes holds and as many runs as 32 places hold.
    #[test]
    fn runs_of_places_are_those_met_one_by_one() {
        let mut x = 88172645463325252u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 33) as usize;
            let mut mask = ((x >> 8) as u32) & u32::MAX.checked_shr(32 - len as u32).unwrap_or(0);
            if x % 7 == 0 {
                // Every other place: 16 runs.
                mask &= 0x5555_5555;
            }
            let mut one = Runs::default();
            (0..len)
                .filter(|i| (mask >> i) & 1 == 1)
                .for_each(|i| one.found(i));
            let bits = Runs::of_places(mask);
            let fields = |r: &Runs| (r.found, r.count, r.longest, r.at);
            assert_eq!(fields(&bits), fields(&one), "{mask:b}");
        }
    }

    /// A name's tier (how many of the search's trigrams it holds) shortens the loop only where
    /// the answer is the same: the similarity bit for bit, or none where the loop's does not
    /// pass. Searches of one to four words against names of repeated syllables; each shortcut
    /// taken in a good share of them.
    #[test]
    fn the_tier_shortcuts_give_the_loops_answer() {
        let syllables = [
            "ka", "r", "kar", "a", "ste", "n", "ma", "lu", "o", "9", "ber", "g",
        ];
        let mut x = 88172645463325252u64;
        let mut below = move |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        let mut text = |words: usize| {
            let mut t = String::new();
            for w in 0..words {
                if w > 0 {
                    t.push(' ');
                }
                for _ in 0..1 + below(4) {
                    t.push_str(syllables[below(syllables.len())]);
                }
            }
            t
        };
        let (mut seq, mut scratch) = (Vec::new(), Scratch::default());
        let (mut whole, mut under, mut passed, mut spanned) = (0, 0, 0, 0);
        for i in 0..60_000 {
            let q = Text::new(set(&text(1 + i % 4), Words::Ascii));
            sequence(&text(1 + (i / 4) % 5), Words::Ascii, &mut seq);
            let held = q.iter().filter(|t| seq.contains(t)).count();
            let full = word_similarity(&q, &seq, &mut scratch);
            // pg_trgm's `<%` stops at the first extent that passes: it passes exactly when the
            // maximum does.
            assert_eq!(word_passes(&q, &seq, &mut scratch), passes(full));
            assert_eq!(tier_passes(&q, &seq, held, &mut scratch), passes(full));
            match tier_similarity(&q, &seq, held, &mut scratch) {
                Some(tier) => assert_eq!(tier.to_bits(), full.to_bits(), "{q:?} {seq:?}"),
                None => {
                    assert!(!passes(full), "{q:?} {seq:?}");
                    under += 1;
                    // Decided by the gaps between the runs of `q`'s trigrams.
                    let across = held as f32 / (q.len() + 1) as f32;
                    let spans = Runs::of(&q, &seq).spans_may_pass(&seq, held, q.len());
                    spanned += usize::from(passes(across) && !spans);
                }
            }
            if held > 0 && full == held as f32 / q.len() as f32 {
                whole += 1;
            }
            passed += usize::from(passes(full));
        }
        assert!(
            whole > 1_000 && under > 1_000 && passed > 100 && spanned > 100,
            "{whole} {under} {passed} {spanned}"
        );
    }

    /// A text's table finds each of its trigrams at its place and no other trigram, for texts
    /// of up to 300 trigrams (tables that had to try several multipliers or double), among
    /// them trigrams equal but in one character; and so does a text given no table.
    #[test]
    fn a_text_finds_its_trigrams_and_no_other() {
        let mut x = 0x2545F4914F6CDD1Du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let c = |x: u64| char::from_u32(0x20 + (x % 0x3000) as u32).unwrap_or('a');
        for len in (0..300).step_by(7) {
            let mut t: Vec<Trgm> = (0..len)
                .map(|i| {
                    let (a, b) = (c(next()), c(next()));
                    // Every other one differs from the one before in its last character.
                    if i % 2 == 1 {
                        pack(a, b, 'x')
                    } else {
                        pack(a, b, 'y')
                    }
                })
                .collect();
            t.sort_unstable();
            t.dedup();
            // With a table, and with none (no table small enough would do).
            for text in [Text::new(t.clone()), Text::with_largest(t.clone(), 0)] {
                for (j, &x) in t.iter().enumerate() {
                    assert_eq!(text.find(x), Some(j));
                }
                for _ in 0..1000 {
                    let other = pack(c(next()), c(next()), c(next()));
                    assert_eq!(text.find(other), t.binary_search(&other).ok());
                }
                assert_eq!(&text[..], &t[..]);
            }
            assert!(!Text::new(t.clone()).table.is_empty());
        }
    }

    /// The trigrams of an ASCII text, taken byte by byte, are those of the general path (which
    /// a text with one non-ASCII character takes): words, padding, order, case and repeats.
    #[test]
    fn an_ascii_text_has_the_trigrams_of_the_general_path() {
        let general = |s: &str, words: Words| {
            let mut out = Vec::new();
            general_sequence(s, words, &mut out);
            out
        };
        for s in [
            "",
            " ",
            "a",
            "ab",
            "Kari Nordmann",
            "anne  stadheim-17",
            "x9 Y",
            "..lu..ma..",
            "kaszga nimao 57607",
            "aaa aaa",
            "O'Neil, A.",
        ] {
            for words in [Words::Ascii, Words::Unicode] {
                let mut fast = vec![7];
                sequence(s, words, &mut fast);
                assert_eq!(fast, general(s, words), "{s:?} {words:?}");
            }
        }
    }
}
