//! How many of a search's trigrams each slot holds (`Counts`, in bytes or bit planes), a
//! trigram's posting list as a search asks it (`List`), and slots put in order: the counting
//! under `walk`.

/// How many trigrams of the search each slot holds (among the lists counted): a byte a slot
/// (lists counted slot by slot), or bit planes (the count's bits of 64 slots a word each, so
/// that a dense trigram's bitmap adds to 64 slots at once).
#[derive(Default)]
pub(super) struct Counts {
    marks: Vec<u8>,
    planes: Vec<u64>,
    /// How many planes (0: counted in bytes).
    depth: usize,
}

impl Counts {
    /// A new search over `n` slots counted in bytes: every count is 0 (a megabyte cleared for a
    /// million names, cheaper than walking the lists again to clear what was counted).
    pub(super) fn bytes(&mut self, n: usize) {
        self.depth = 0;
        self.marks.clear();
        self.marks.resize(n, 0);
    }

    /// A new search over `n` slots counted in planes, for counts up to `k`.
    pub(super) fn planes(&mut self, n: usize, k: usize) {
        self.depth = (usize::BITS - k.leading_zeros()) as usize;
        self.planes.clear();
        self.planes.resize(n.div_ceil(64) * self.depth, 0);
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
        let planes = &mut self.planes[w * self.depth..(w + 1) * self.depth];
        let mut carry = bits;
        for p in planes {
            let x = *p;
            *p = x ^ carry;
            carry &= x;
            if carry == 0 {
                break;
            }
        }
    }

    /// Counts a list (in planes): a bitmap a word at a time, a list of slots slot by slot.
    pub(super) fn add_list(&mut self, list: List) {
        match list.bitmap {
            Some(b) => {
                for (w, &bits) in b.iter().enumerate() {
                    if bits != 0 {
                        self.add_word(w, bits);
                    }
                }
            }
            None => {
                for &s in list.slots {
                    self.add_word(s as usize / 64, 1 << (s % 64));
                }
            }
        }
    }

    /// The slots of word `w` whose count is at least `c` (in planes).
    pub(super) fn at_least(&self, w: usize, c: usize) -> u64 {
        let planes = &self.planes[w * self.depth..(w + 1) * self.depth];
        let (mut gt, mut eq) = (0u64, !0u64);
        for (p, &x) in planes.iter().enumerate().rev() {
            if (c >> p) & 1 == 1 {
                eq &= x;
            } else {
                gt |= eq & x;
                eq &= !x;
            }
        }
        gt | eq
    }

    #[inline]
    pub(super) fn get(&self, slot: usize) -> u8 {
        if self.depth == 0 {
            return self.marks[slot];
        }
        let (planes, i) = (&self.planes[(slot / 64) * self.depth..], slot % 64);
        (0..self.depth).fold(0, |c, p| c | (((planes[p] >> i) & 1) as u8) << p)
    }
}

/// A trigram's slots, and its bitmap when it is dense.
#[derive(Clone, Copy)]
pub(super) struct List<'a> {
    pub(super) slots: &'a [u32],
    pub(super) bitmap: Option<&'a [u64]>,
}

impl List<'_> {
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
