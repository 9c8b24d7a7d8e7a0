//! How many of a search's trigrams each slot holds (`Counts`, in bytes or bit planes), a
//! trigram's posting list as a search asks it (`List`), and slots put in order: the counting
//! under `walk`.

/// How many trigrams of the search each slot holds (among the lists counted): a byte a slot
/// (lists counted slot by slot), or bit planes (bit `p` of every slot's count, 64 slots a
/// word, one plane after another, so that a dense trigram's bitmap adds to every slot at
/// once, a plane at a time).
#[derive(Default)]
pub(super) struct Counts {
    marks: Vec<u8>,
    planes: Vec<u64>,
    /// How many planes (0: counted in bytes), and the words of each.
    depth: usize,
    width: usize,
    /// Carries on their way up the planes, and bitmaps made of lists (`count_planes`).
    carries: Vec<Vec<u64>>,
    made: Vec<Vec<u64>>,
    /// Where slots stand against a count, plane by plane (`words_at_least`).
    above: Vec<u64>,
    equal: Vec<u64>,
    /// The planes' words of each word `words_at_least` gave, one after another (a tier read
    /// from them reads them in order, not a word of every plane a megabyte apart).
    gathered: Vec<u64>,
}

impl Counts {
    /// A new search over `n` slots counted in bytes: every count is 0 (a megabyte cleared for a
    /// million names, cheaper than walking the lists again to clear what was counted).
    pub(super) fn bytes(&mut self, n: usize) {
        self.depth = 0;
        self.marks.clear();
        self.marks.resize(n, 0);
    }

    /// A new search over `n` slots counted in planes, for counts up to `k`, with `lists`
    /// counted: the short lists of slots slot by slot (`bitmaps_of`), then the bitmaps (and
    /// those made of the other lists) as Harley and Seal's vertical counter adds them: two
    /// bitmaps and the plane of their weight give, through carry-save adders (5 operations a
    /// word, over whole planes, which the compiler makes vector operations), that plane and
    /// the carries of the next weight; a bitmap or carries left alone at a weight are added
    /// at the end. The words holding a slot counted `need` or more
    /// go into `words` (their index and those slots' bits, ascending).
    pub(super) fn count_planes(
        &mut self,
        (n, k): (usize, usize),
        lists: &[List],
        need: usize,
        words: &mut Vec<(u32, u64)>,
    ) {
        let (depth, width) = ((usize::BITS - k.leading_zeros()) as usize, n.div_ceil(64));
        (self.depth, self.width) = (depth, width);
        // The planes are written before they are read (`sum_maps`): the buffer keeps what the
        // search before left in it, and is only ever lengthened.
        if self.planes.len() < width * depth {
            self.planes.resize(width * depth, 0);
        }
        if width == 0 {
            // No slot: nothing to count (and no plane to count in).
            return;
        }
        let made = self.bitmaps_of(lists);
        let mut maps: Vec<&[u64]> = lists
            .iter()
            .filter_map(|l| l.bitmap.filter(|b| b.len() >= width))
            .map(|b| &b[..width])
            .collect();
        maps.extend(self.made[..made].iter().map(Vec::as_slice));
        self.carries.resize_with(depth, Vec::new);
        let planes = &mut self.planes[..width * depth];
        sum_maps(planes, &mut self.carries, &maps, width);
        // The short lists, slot by slot, once the planes hold the rest.
        for l in lists.iter().filter(|l| l.slot_by_slot(width)) {
            for &s in l.slots {
                self.add_word(s as usize / 64, 1 << (s % 64));
            }
        }
        debug_assert!(depth <= 8, "{k} trigrams");
        self.words_at_least(need, words);
    }

    /// The words holding a slot counted `c` or more (their index and those slots' bits,
    /// ascending), into `words`: compared with `c` a whole plane at a time, from the highest
    /// (which the compiler makes vector operations; word by word, gathering a word of every
    /// plane, cost as much as adding the bitmaps).
    fn words_at_least(&mut self, c: usize, words: &mut Vec<(u32, u64)>) {
        let width = self.width;
        // Slots above `c` in the planes compared so far, and equal to it there.
        let (gt, eq) = (&mut self.above, &mut self.equal);
        let planes = &self.planes[..width * self.depth];
        let mut down = planes.chunks_exact(width).enumerate().rev();
        // The highest plane compared first writes them (above none, equal all before it).
        gt.clear();
        eq.clear();
        if let Some((p, plane)) = down.next() {
            let one = bit_of(c, p);
            gt.extend(plane.iter().map(|&x| x & !one));
            eq.extend(plane.iter().map(|&x| !(x ^ one)));
        }
        for (p, plane) in down {
            let one = bit_of(c, p);
            for ((g, e), &x) in gt.iter_mut().zip(eq.iter_mut()).zip(plane) {
                compare(g, e, x, one);
            }
        }
        self.gathered.clear();
        for (w, (&g, &e)) in gt.iter().zip(eq.iter()).enumerate() {
            if g | e != 0 {
                words.push((w as u32, g | e));
                let planes = self.planes[w..].iter().step_by(width).take(self.depth);
                self.gathered.extend(planes);
            }
        }
    }

    /// Makes a bitmap as long as the planes (`self.made`) of each list of slots not added
    /// slot by slot (`List::slot_by_slot`: a few slots a word, where a bitmap is cheaper than
    /// a slot's carry through the planes, each in a line of its own) and of each bitmap that
    /// ends early (fresh slots past its end do not hold its trigram). Returns how many it
    /// made.
    fn bitmaps_of(&mut self, lists: &[List]) -> usize {
        let width = self.width;
        let mut made = 0;
        for l in lists {
            match l.bitmap {
                Some(b) if b.len() >= width => continue,
                // Added slot by slot (`count_planes`).
                None if l.slot_by_slot(width) => continue,
                _ => {}
            }
            if self.made.len() == made {
                self.made.push(Vec::new());
            }
            let b = &mut self.made[made];
            b.clear();
            match l.bitmap {
                Some(bits) => b.extend_from_slice(bits),
                None => {
                    b.resize(width, 0);
                    l.slots
                        .iter()
                        .for_each(|&s| b[s as usize / 64] |= 1 << (s % 64));
                }
            }
            b.resize(width, 0);
            made += 1;
        }
        made
    }

    /// Counts one more trigram for `slot` (in bytes); its count now.
    #[inline]
    pub(super) fn add(&mut self, slot: u32) -> u8 {
        let m = &mut self.marks[slot as usize];
        *m = m.wrapping_add(1);
        *m
    }

    /// Counts one more trigram for the slots of word `w` whose bits are set (in planes).
    #[inline]
    fn add_word(&mut self, w: usize, bits: u64) {
        let mut carry = bits;
        for p in 0..self.depth {
            let x = &mut self.planes[p * self.width + w];
            let was = *x;
            *x = was ^ carry;
            carry &= was;
            if carry == 0 {
                break;
            }
        }
    }

    /// The slots of the `i`-th word `count_planes` gave whose count is exactly `c` (of `k`).
    #[inline]
    pub(super) fn exactly(&self, i: usize, c: usize, k: usize) -> u64 {
        let planes = &self.gathered[i * self.depth..(i + 1) * self.depth];
        let at = at_least(planes, c);
        if c < k {
            at & !at_least(planes, c + 1)
        } else {
            at
        }
    }

    #[inline]
    pub(super) fn get(&self, slot: usize) -> u8 {
        if self.depth == 0 {
            return self.marks[slot];
        }
        let (w, i) = (slot / 64, slot % 64);
        (0..self.depth).fold(0, |c, p| {
            c | (((self.planes[p * self.width + w] >> i) & 1) as u8) << p
        })
    }
}

/// Adds the bitmaps `maps` (`width` words each) to the planes (`width` words each, as many as
/// `carries`): a carry-save adder for every two inputs of one weight, the carries it gives
/// going up as an input of the next weight (`carries[j]`, waiting at weight `j`; `carries[0]`
/// on their way up); an input left alone at a weight is added at the end.
/// The planes need not be cleared: each is written whole before it is read (`fresh`: the
/// planes not written yet), and those no bitmap reached are cleared at the end.
fn sum_maps(planes: &mut [u64], carries: &mut [Vec<u64>], maps: &[&[u64]], width: usize) {
    let depth = carries.len();
    let mut fresh = [true; 9];
    // Every carry is written before it is read: the buffers need only their length.
    for c in carries.iter_mut() {
        c.resize(width, 0);
    }
    // At most 8 planes (`count_planes`).
    let mut waiting = [false; 9];
    let mut first: Option<&[u64]> = None;
    for &x in maps {
        let Some(y) = first.take() else {
            first = Some(x);
            continue;
        };
        let (up, rest) = carries.split_at_mut(1);
        if std::mem::take(&mut fresh[0]) {
            half(&mut planes[..width], x, y, &mut up[0]);
        } else {
            csa(&mut planes[..width], x, y, &mut up[0]);
        }
        // A carry past the top plane is 0: no count exceeds `k`.
        for j in 1..depth {
            if !waiting[j] {
                std::mem::swap(&mut up[0], &mut rest[j - 1]);
                waiting[j] = true;
                break;
            }
            waiting[j] = false;
            let plane = &mut planes[j * width..(j + 1) * width];
            if std::mem::take(&mut fresh[j]) {
                half_in_place(plane, &mut up[0], &rest[j - 1]);
            } else {
                csa_in_place(plane, &mut up[0], &rest[j - 1]);
            }
        }
    }
    if let Some(x) = first {
        carry_up(planes, width, (0, &mut fresh), x, &mut carries[0]);
    }
    for j in 1..depth {
        if waiting[j] {
            let (up, rest) = carries.split_at_mut(1);
            carry_up(planes, width, (j, &mut fresh), &rest[j - 1], &mut up[0]);
        }
    }
    for (plane, _) in planes
        .chunks_exact_mut(width)
        .zip(fresh)
        .filter(|&(_, fresh)| fresh)
    {
        plane.fill(0);
    }
}

/// [`csa`] of a plane not written yet (0): a half adder of the two bitmaps.
fn half(plane: &mut [u64], x: &[u64], y: &[u64], carry: &mut [u64]) {
    for (((a, &x), &y), c) in plane.iter_mut().zip(x).zip(y).zip(carry.iter_mut()) {
        *c = x & y;
        *a = x ^ y;
    }
}

/// [`csa_in_place`] of a plane not written yet (0).
fn half_in_place(plane: &mut [u64], x: &mut [u64], y: &[u64]) {
    for ((a, x), &y) in plane.iter_mut().zip(x.iter_mut()).zip(y) {
        *a = *x ^ y;
        *x &= y;
    }
}

/// One plane plus two bitmaps of its weight: the plane their sum's bit, `carry` the carries to
/// the next weight (a carry-save adder, word by word).
fn csa(plane: &mut [u64], x: &[u64], y: &[u64], carry: &mut [u64]) {
    for (((a, &x), &y), c) in plane.iter_mut().zip(x).zip(y).zip(carry.iter_mut()) {
        let u = *a ^ x;
        *c = (*a & x) | (u & y);
        *a = u ^ y;
    }
}

/// [`csa`] with the carries coming in as `x` and going out in its place.
fn csa_in_place(plane: &mut [u64], x: &mut [u64], y: &[u64]) {
    for ((a, x), &y) in plane.iter_mut().zip(x.iter_mut()).zip(y) {
        let u = *a ^ *x;
        *x = (*a & *x) | (u & y);
        *a = u ^ y;
    }
}

/// Adds the bitmap `x` at weight `from` to the planes (`width` words each), carrying up
/// through `carry`; a plane not written yet (`fresh`) takes the carry as it is, and nothing
/// goes on up from it.
fn carry_up(
    planes: &mut [u64],
    width: usize,
    (from, fresh): (usize, &mut [bool; 9]),
    x: &[u64],
    carry: &mut [u64],
) {
    carry.copy_from_slice(x);
    for (p, plane) in planes.chunks_exact_mut(width).enumerate().skip(from) {
        if std::mem::take(&mut fresh[p]) {
            plane.copy_from_slice(carry);
            return;
        }
        for (a, c) in plane.iter_mut().zip(carry.iter_mut()) {
            let t = *a & *c;
            *a ^= *c;
            *c = t;
        }
    }
}

/// The slots of one word whose count (bit `p` of each in `planes[p]`) is at least `c`.
fn at_least(planes: &[u64], c: usize) -> u64 {
    let (mut gt, mut eq) = (0u64, !0u64);
    for (p, &x) in planes.iter().enumerate().rev() {
        compare(&mut gt, &mut eq, x, bit_of(c, p));
    }
    gt | eq
}

/// Bit `p` of `c` as a word: all ones or none.
#[inline]
fn bit_of(c: usize, p: usize) -> u64 {
    if (c >> p) & 1 == 1 {
        !0
    } else {
        0
    }
}

/// One plane of comparing 64 counts with a number, from the highest plane down: `x` the
/// counts' bits in this plane, `one` the number's (all ones or none); `gt` the counts above
/// it in the planes compared so far, `eq` those equal to it there.
#[inline]
fn compare(gt: &mut u64, eq: &mut u64, x: u64, one: u64) {
    *gt |= *eq & x & !one;
    *eq &= !(x ^ one);
}

/// A trigram's slots, and its bitmap when it is dense.
#[derive(Clone, Copy)]
pub(super) struct List<'a> {
    pub(super) slots: &'a [u32],
    pub(super) bitmap: Option<&'a [u64]>,
}

impl List<'_> {
    /// Whether planes `width` words wide add it slot by slot: a list of slots shorter than a
    /// slot in eight words (longer ones, and bitmaps, are added whole).
    #[inline]
    pub(super) fn slot_by_slot(&self, width: usize) -> bool {
        self.bitmap.is_none() && self.slots.len() * 8 < width
    }

    /// Whether the list holds `slot`, asked in ascending order (`at` kept between asks): a bit
    /// of the bitmap, or a gallop through the slots.
    #[inline]
    pub(super) fn holds(&self, at: &mut usize, slot: u32) -> bool {
        match self.bitmap {
            Some(b) => b
                .get(slot as usize / 64)
                .is_some_and(|w| (w >> (slot % 64)) & 1 == 1),
            None => gallop(self.slots, at, slot),
        }
    }

    /// What asking it for one slot costs, in slots counted: a bit of the bitmap, or about 16
    /// for a gallop.
    pub(super) fn look_up_cost(&self) -> usize {
        if self.bitmap.is_some() {
            1
        } else {
            16
        }
    }

    /// What counting it in bit planes costs, in slots counted: its bitmap a word at a time
    /// (about two slots' worth a word), or its slots.
    pub(super) fn planes_cost(&self, n: usize) -> usize {
        match self.bitmap {
            Some(_) => n.div_ceil(64) * 2,
            None => self.slots.len(),
        }
    }
}

/// Sorts the distinct `slots` (each below `n`): many of them through a bitmap of the `n` slots
/// (`bits`, reused), which reads them back in order at a word's cost for 64 slots, few of
/// them by sorting.
pub(super) fn ascending(slots: &mut Vec<u32>, n: usize, bits: &mut Vec<u64>) {
    let words = n.div_ceil(64);
    if slots.len() * 8 < words {
        slots.sort_unstable();
        return;
    }
    bits.clear();
    bits.resize(words, 0);
    for &x in slots.iter() {
        bits[x as usize / 64] |= 1 << (x % 64);
    }
    slots.clear();
    for (w, &b) in bits.iter().enumerate() {
        let mut b = b;
        while b != 0 {
            slots.push(w as u32 * 64 + b.trailing_zeros());
            b &= b - 1;
        }
    }
}

/// Whether the ascending `list` holds `x`, looking from `*at` on (left at the first element
/// not below `x`): exponential steps, then a binary search.
fn gallop(list: &[u32], at: &mut usize, x: u32) -> bool {
    let (mut lo, mut step) = (*at, 1usize);
    let mut hi = lo;
    while hi < list.len() && list[hi] < x {
        lo = hi + 1;
        hi = lo + step;
        step <<= 1;
    }
    let hi = hi.min(list.len());
    *at = lo + list[lo..hi].partition_point(|&y| y < x);
    list.get(*at) == Some(&x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list with no slot counts nothing, whatever the search's trigrams.
    #[test]
    fn no_slot_counts_nothing() {
        let (mut counts, mut words) = (Counts::default(), Vec::new());
        let empty = [List {
            slots: &[],
            bitmap: None,
        }; 3];
        counts.count_planes((0, 3), &empty, 2, &mut words);
        assert!(words.is_empty());
    }

    /// The planes count what counting each list slot by slot counts, for every depth the
    /// searches take, with bitmaps ending before the slots do and lists of slots among them;
    /// and the words listed are those holding a slot counted `need` or more. One `Counts`
    /// counts them all in turn, as a thread's does: what a search before left in its planes
    /// counts for nothing.
    #[test]
    fn the_planes_count_every_list() {
        let mut x = 2463534242u64;
        let mut below = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let n = 1000;
        let mut counts = Counts::default();
        for k in [1, 2, 3, 5, 8, 13, 21, 40, 100, 200, 13, 2, 8] {
            let mut slots: Vec<Vec<u32>> = Vec::new();
            let mut maps: Vec<Option<Vec<u64>>> = Vec::new();
            for i in 0..k {
                let mut l: Vec<u32> = (0..n as u32).filter(|_| below(3) == 0).collect();
                let dense = i % 3 != 2;
                // Some bitmaps end early: their later slots are not held.
                let end = if dense && below(4) == 0 { 600 } else { n };
                l.retain(|&s| (s as usize) < end);
                // Some lists of slots are short enough to be counted slot by slot.
                if !dense && i % 2 == 0 {
                    l.truncate(1);
                }
                maps.push(dense.then(|| {
                    let mut b = vec![0u64; end.div_ceil(64)];
                    l.iter().for_each(|&s| b[s as usize / 64] |= 1 << (s % 64));
                    b
                }));
                slots.push(l);
            }
            let lists: Vec<List> = slots
                .iter()
                .zip(&maps)
                .map(|(s, m)| List {
                    slots: s,
                    bitmap: m.as_deref(),
                })
                .collect();
            let mut expected = vec![0usize; n];
            slots
                .iter()
                .flatten()
                .for_each(|&s| expected[s as usize] += 1);
            let need = 1 + below(k as u64) as usize;
            let mut words = Vec::new();
            counts.count_planes((n, k), &lists, need, &mut words);
            for (slot, &e) in expected.iter().enumerate() {
                assert_eq!(usize::from(counts.get(slot)), e, "k {k}, slot {slot}");
            }
            let listed: Vec<(u32, u64)> = (0..n.div_ceil(64))
                .map(|w| {
                    let bits = (0..64)
                        .filter(|i| expected.get(w * 64 + i).is_some_and(|&c| c >= need))
                        .fold(0u64, |b, i| b | 1 << i);
                    (w as u32, bits)
                })
                .filter(|&(_, b)| b != 0)
                .collect();
            assert_eq!(words, listed, "k {k}, need {need}");
        }
    }
}
