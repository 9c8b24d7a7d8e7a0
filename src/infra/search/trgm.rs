//! pg_trgm's word similarity, as PostgreSQL computes it in a database whose character type is
//! `C` (the embedded cluster's `initdb --locale=C`): words are runs of ASCII letters and
//! digits (every other byte, every non-ASCII character too, separates words), each word
//! padded with two blanks before and one after, and its trigrams taken in order.
//! `word_similarity(q, name)` is the greatest `shared / (|q| + |extent| - shared)` over the
//! continuous extents of the name's trigram sequence (unique trigrams counted), computed by
//! the very procedure of `contrib/pg_trgm/trgm_op.c` (`iterate_word_similarity`, plain, not
//! strict), in `f32` as PostgreSQL's `float4`, so that ranks and cursors agree bit for bit.

/// A trigram of ASCII bytes, packed.
pub type Trgm = u32;

/// `pg_trgm.word_similarity_threshold`'s default: `q <% name` when the similarity reaches it.
pub const THRESHOLD: f64 = 0.6;

fn pack(a: u8, b: u8, c: u8) -> Trgm {
    (u32::from(a) << 16) | (u32::from(b) << 8) | u32::from(c)
}

/// The words of `s` as pg_trgm sees them in a `C` database, lowered.
fn words(s: &str) -> impl Iterator<Item = &[u8]> {
    s.as_bytes()
        .split(|b| !b.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// The trigrams of `s` in order (repeats kept), as `generate_trgm_only` makes them.
pub fn sequence(s: &str, out: &mut Vec<Trgm>) {
    out.clear();
    for w in words(s) {
        let padded: Vec<u8> = [b' ', b' ']
            .into_iter()
            .chain(w.iter().map(u8::to_ascii_lowercase))
            .chain([b' '])
            .collect();
        out.extend(padded.windows(3).map(|t| pack(t[0], t[1], t[2])));
    }
}

/// The distinct trigrams of `s`, sorted.
pub fn set(s: &str) -> Vec<Trgm> {
    let mut v = Vec::new();
    sequence(s, &mut v);
    v.sort_unstable();
    v.dedup();
    v
}

/// The trigrams inside the runs of three or more letters and digits of `s` (no padding): a
/// name that contains `s` has each of them among its own trigrams.
pub fn inner(s: &str) -> Vec<Trgm> {
    let mut v: Vec<Trgm> = words(s)
        .flat_map(|w| {
            w.windows(3).map(|t| {
                pack(
                    t[0].to_ascii_lowercase(),
                    t[1].to_ascii_lowercase(),
                    t[2].to_ascii_lowercase(),
                )
            })
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn calcsml(count: i32, len1: i32, len2: i32) -> f32 {
    count as f32 / (len1 + len2 - count) as f32
}

/// `word_similarity(q, name)` for the distinct sorted trigrams `q` of the search text and the
/// trigram sequence `name`; `scratch` is reused between calls.
pub fn word_similarity(q: &[Trgm], name: &[Trgm], scratch: &mut Scratch) -> f32 {
    let ulen1 = q.len() as i32;
    if q.is_empty() || name.is_empty() {
        return 0.0;
    }
    // Each trigram of the name, numbered: the query's by their place in `q`, the others after
    // them, equal trigrams alike.
    let Scratch {
        index,
        others,
        lastpos,
    } = scratch;
    index.clear();
    others.clear();
    for t in name {
        let i = match q.binary_search(t) {
            Ok(i) => i,
            Err(_) => match others.iter().position(|o| o == t) {
                Some(k) => q.len() + k,
                None => {
                    others.push(*t);
                    q.len() + others.len() - 1
                }
            },
        };
        index.push(i);
    }
    let found = |i: usize| i < q.len();
    lastpos.clear();
    lastpos.resize(q.len() + others.len(), -1);
    iterate(index, lastpos, found, ulen1)
}

/// `iterate_word_similarity` (plain word similarity, the maximum).
fn iterate(index: &[usize], lastpos: &mut [i32], found: impl Fn(usize) -> bool, ulen1: i32) -> f32 {
    let (mut ulen2, mut count, mut lower) = (0i32, 0i32, -1i32);
    let mut smlr_max = 0f32;
    for (i, &t) in index.iter().enumerate() {
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
        let (mut tmp_count, mut tmp_ulen2, prev_lower) = (count, ulen2, lower);
        for tmp_lower in lower..=upper {
            let smlr_tmp = calcsml(tmp_count, ulen1, tmp_ulen2);
            if smlr_tmp > smlr_cur {
                smlr_cur = smlr_tmp;
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
        sequence(name, &mut seq);
        word_similarity(&set(q), &seq, &mut Scratch::default())
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
        // Non-ASCII letters separate words in a `C` database.
        assert_eq!(set("ə"), Vec::<Trgm>::new());
        assert_eq!(set("a").len(), 2);
    }
}
