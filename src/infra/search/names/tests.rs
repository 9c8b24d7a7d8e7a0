use super::*;
use crate::infra::search::trgm::Scratch;

fn row(id: i64, name: &str) -> NameRow {
    NameRow {
        id,
        name: name.into(),
        folded: name.to_lowercase(),
        tag: None,
        shown: None,
    }
}

fn query(folded: &str, order: Order) -> Query<'_> {
    Query::first(folded, order, usize::MAX / 2, 1001)
}

fn ids(n: &Names, q: &str) -> Vec<i64> {
    n.search(&query(q, Order::Ranked))
        .0
        .iter()
        .map(|h| h.id)
        .collect()
}

#[test]
fn prefixes_near_matches_order_and_changes() {
    let mut n = Names::build([
        row(1, "Kari Nordmann"),
        row(2, "Karin Nilsen"),
        row(3, "Ola Nordmann"),
        row(4, "Oystein Odegard"),
    ]);
    // Prefixes as people type: any part of the name, across words.
    assert_eq!(ids(&n, "kar"), vec![1, 2]);
    // `kari n` is in Kari Nordmann; Karin Nilsen is no near match (0.56, under 0.6).
    assert_eq!(ids(&n, "kari n"), vec![1]);
    assert_eq!(ids(&n, "k"), vec![1, 2]);
    // A near match of a word (a typo) and the best match first.
    assert_eq!(ids(&n, "oysten"), vec![4]);
    assert_eq!(ids(&n, "nordman"), vec![1, 3]);
    // Renamed, removed, added.
    n.upsert(row(3, "Ola Berg"));
    assert_eq!(ids(&n, "nordman"), vec![1]);
    n.remove(1);
    assert_eq!(ids(&n, "nordman"), Vec::<i64>::new());
    n.upsert(row(9, "Nora Nordmann"));
    assert_eq!(ids(&n, "nordmann"), vec![9]);
    assert_eq!(n.len(), 4);
    // Ordered again: the same answers.
    let again = n.ordered_again();
    assert_eq!(ids(&again, "nordmann"), vec![9]);
    assert_eq!(ids(&again, "kar"), vec![2]);
    assert_eq!(again.ids(), n.ids());
}

#[test]
fn pages_follow_the_keys_of_the_page_before() {
    let n = Names::build((1..=30).map(|i| row(i, &format!("Name {:02}", 31 - i))));
    let page = |after, skip| {
        n.search(&Query {
            after,
            skip,
            take: 10,
            ..query("name", Order::Ranked)
        })
    };
    let (first, total) = page(None, 0);
    assert_eq!(total, 30);
    assert_eq!(first[0].name, "Name 01");
    let last = first.last().unwrap();
    let (next, _) = page(Some((-last.score, &last.name, last.id)), 0);
    assert_eq!(next[0].name, "Name 11");
    let (by_offset, _) = page(None, 10);
    assert_eq!(by_offset, next);
    // A tag narrows.
    let t = Names::build([
        NameRow {
            tag: Some("SE".into()),
            ..row(1, "Anna")
        },
        row(2, "Anna"),
    ]);
    let tagged = Query {
        tag: Some(tag(Some("SE"))),
        ..query("anna", Order::Ranked)
    };
    assert_eq!(t.search(&tagged).1, 1);
    assert_eq!(t.search(&query("anna", Order::Ranked)).1, 2);
}

/// A small deterministic generator (the test needs no crate for it).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const SYLLABLES: [&str; 12] = [
    "kar", "o", "sten", "ma", "lu", "kasz", "ber", "ni", "ri", "ta", "vik", "ha",
];

fn name(r: &mut Lcg) -> String {
    let mut word = |n: usize| -> String { (0..n).map(|_| SYLLABLES[r.below(12)]).collect() };
    let (a, b, c) = (word(2), word(3), word(1));
    match r.below(6) {
        0 => format!("{a} {b}-{c}"),
        1 => format!("{a} {b}"),
        2 => format!("{a} {}. {b}", &b[..1]),
        _ => format!("{a} {b} {}", r.below(400)),
    }
}

/// What PostgreSQL answers: every live name scored, matched, sorted, counted, paged.
fn every_match(rows: &[NameRow], q: &Query) -> (Vec<Hit>, usize) {
    let set = trgm::Text::new(trgm::set(q.folded, Words::Ascii));
    let (mut seq, mut scratch) = (Vec::new(), Scratch::default());
    let mut all: Vec<Hit> = Vec::new();
    for r in rows {
        if q.tag.is_some_and(|t| t != tag(r.tag.as_deref())) {
            continue;
        }
        trgm::sequence(&r.folded, Words::Ascii, &mut seq);
        let score = trgm::word_similarity(&set, &seq, &mut scratch);
        if r.folded.contains(q.folded) || trgm::passes(score) {
            all.push(Hit {
                id: r.id,
                name: r.name.clone(),
                score,
            });
        }
    }
    let key = |h: &Hit| match q.order {
        Order::Ranked => -h.score,
        Order::Named => 0.0,
    };
    all.sort_by(|a, b| {
        key(a)
            .total_cmp(&key(b))
            .then(a.name.as_bytes().cmp(b.name.as_bytes()))
            .then(a.id.cmp(&b.id))
    });
    let count = all.len().min(q.count_to);
    let page = all
        .into_iter()
        .filter(|h| match q.after {
            None => true,
            Some((neg, name, id)) => {
                let by_name = (h.name.as_bytes(), h.id).cmp(&(name.as_bytes(), id));
                match q.order {
                    Order::Ranked => (-h.score).total_cmp(&neg).then(by_name).is_gt(),
                    Order::Named => by_name.is_gt(),
                }
            }
        })
        .skip(q.skip)
        .take(q.take)
        .collect();
    (page, count)
}

/// Texts people type: prefixes, whole names, a name with a typo, a first name and an
/// initial, single letters, a syllable inside a word, punctuation, a piece of a name across
/// its words' edges, nothing of the list.
fn typed(r: &mut Lcg, rows: &[NameRow]) -> String {
    let n = &rows[r.below(rows.len())].folded;
    let cut = |k: usize| n.chars().take(k).collect::<String>();
    match r.below(10) {
        0 => cut(1 + r.below(8)),
        1 => n.clone(),
        2 => {
            let mut s: Vec<char> = n.chars().collect();
            let at = r.below(s.len());
            s.remove(at);
            s.into_iter().collect()
        }
        3 => {
            let w: Vec<&str> = n.split(' ').collect();
            format!("{} {}", w[0], &w[1][..1])
        }
        4 => SYLLABLES[r.below(12)].to_string(),
        5 => ["-", ".", "o", "zq", "a b", "9"][r.below(6)].to_string(),
        6 => n.split(' ').nth(1).unwrap_or("x").to_string(),
        7 => format!("{} {}", SYLLABLES[r.below(12)], SYLLABLES[r.below(12)]),
        8 => {
            let at = r.below(n.len());
            n.chars().skip(at).take(2 + r.below(5)).collect()
        }
        _ => cut(3),
    }
}

fn compare(names: &Names, rows: &[NameRow], r: &mut Lcg, rounds: usize) {
    let tags = [None, Some(tag(Some("SE"))), Some(tag(Some("NO")))];
    for _ in 0..rounds {
        // One in eight with no text: the list in its order (`Names::plain` by name).
        let text = match r.below(8) {
            0 => String::new(),
            _ => typed(r, rows),
        };
        let order = [Order::Ranked, Order::Named][r.below(2)];
        let mut q = Query {
            folded: &text,
            tag: tags[r.below(3)],
            order,
            after: None,
            skip: [0, 0, 3][r.below(3)],
            take: [1, 5, 21, 400][r.below(4)],
            count_to: [0, 5, 1001][r.below(3)],
        };
        let expected = every_match(rows, &q);
        assert_eq!(names.search(&q), expected, "{q:?}");
        // The page after the first few rows of the whole list.
        let whole = every_match(
            rows,
            &Query {
                skip: 0,
                take: 50,
                ..q
            },
        );
        if let Some(last) = whole.0.get(r.below(whole.0.len().max(1))) {
            let name = last.name.clone();
            q.after = Some((-last.score, &name, last.id));
            assert_eq!(names.search(&q), every_match(rows, &q), "{q:?}");
        }
    }
}

/// The search answers as every match scored and sorted would, for texts people type, both
/// orders, tags, offsets, cursors and counts, before and after names are added, renamed and
/// removed (fresh and dead slots) and after the list is ordered again.
#[test]
fn answers_as_scoring_every_name_would() {
    let mut r = Lcg(42);
    let tags = [None, Some("SE".to_string()), Some("NO".to_string())];
    let mut rows: Vec<NameRow> = (1..=600)
        .map(|id| NameRow {
            id,
            name: name(&mut r),
            folded: String::new(),
            tag: tags[r.below(3)].clone(),
            shown: None,
        })
        .map(|mut x| {
            x.folded = x.name.to_lowercase();
            x
        })
        .collect();
    // Equal names, told apart by id.
    for id in 601..=610 {
        rows.push(NameRow {
            id,
            ..rows[0].clone()
        });
    }
    let mut names = Names::build(rows.clone());
    compare(&names, &rows, &mut r, 600);
    // Renames, new names and removals, in fresh and dead slots.
    for _ in 0..120 {
        let at = r.below(rows.len());
        match r.below(3) {
            0 => {
                rows[at].name = name(&mut r);
                rows[at].folded = rows[at].name.to_lowercase();
                names.upsert(rows[at].clone());
            }
            1 => {
                let gone = rows.swap_remove(at);
                names.remove(gone.id);
            }
            _ => {
                let id = 1000 + r.below(100_000) as i64;
                if rows.iter().all(|x| x.id != id) {
                    let n = name(&mut r);
                    let x = NameRow {
                        id,
                        folded: n.to_lowercase(),
                        name: n,
                        tag: None,
                        shown: None,
                    };
                    rows.push(x.clone());
                    names.upsert(x);
                }
            }
        }
    }
    assert!(names.slots.len() > names.ordered as usize);
    compare(&names, &rows, &mut r, 600);
    let again = names.ordered_again();
    assert_eq!(again.ordered as usize, again.len());
    compare(&again, &rows, &mut r, 300);
}

/// `short` names of syllables, then `long` of three such names each (too long for a line of
/// codes), ids from 1.
fn with_long_names(r: &mut Lcg, short: i64, long: i64) -> Vec<NameRow> {
    let mut rows: Vec<NameRow> = (1..=short).map(|id| row(id, &name(r))).collect();
    for id in short + 1..=short + long {
        rows.push(row(id, &format!("{} {} {}", name(r), name(r), name(r))));
    }
    rows
}

/// The limits of codes a test builds `rows` with: none given, half the trigrams the names
/// hold (some names coded whole, others not), every one.
fn code_limits(rows: &[NameRow]) -> [usize; 3] {
    let half = Names::coded_to(rows.to_vec(), Codes::LIMIT).codes.len() / 2;
    [0, half, Codes::LIMIT]
}

/// Names decided from their folded text answer as those decided by their codes: names
/// holding a trigram met once every code was given (none given at all, some, all), and
/// names too long for a line of codes; before and after the list is ordered again.
#[test]
fn names_without_codes_answer_alike() {
    let mut r = Lcg(7);
    let rows = with_long_names(&mut r, 300, 40);
    for limit in code_limits(&rows) {
        let names = Names::coded_to(rows.clone(), limit);
        let coded = (0..names.slots.len())
            .filter(|&s| names.codes.get(s).is_some())
            .count();
        match limit {
            0 => assert_eq!(coded, 0),
            _ => assert!(coded > 0 && coded < rows.len(), "{limit}: {coded}"),
        }
        compare(&names, &rows, &mut r, 200);
        let again = names.ordered_again();
        assert_eq!(again.codes.limit(), limit.min(Codes::LIMIT));
        compare(&again, &rows, &mut r, 100);
    }
}

/// Rows read in batches (as a build at start reads them) index as the same rows read at
/// once: the same slots in the same order, the later row of an id read twice kept, and the
/// answers of every name scored.
#[test]
fn rows_read_in_batches_index_as_rows_read_at_once() {
    let mut r = Lcg(11);
    let mut rows: Vec<NameRow> = (1..=500).map(|id| row(id, &name(&mut r))).collect();
    // Renamed between two batches: read twice, the later row kept.
    rows.push(row(17, "renamed later"));
    let whole = Names::of(rows.clone(), Words::Ascii);
    let (mut batches, mut rest) = (Vec::new(), rows.clone());
    while !rest.is_empty() {
        let at = rest.len().saturating_sub(1 + r.below(120));
        batches.insert(0, rest.split_off(at));
    }
    assert!(batches.len() > 4, "{} batches", batches.len());
    let batched = Names::of_batches(batches, Words::Ascii);
    assert_eq!(batched.len(), 500);
    assert_eq!(batched.ids(), whole.ids());
    assert_eq!(ids(&batched, "renamed later")[0], 17);
    let kept: Vec<NameRow> = rows[..16].iter().chain(&rows[17..]).cloned().collect();
    compare(&batched, &kept, &mut r, 100);
}

/// A list built whole makes its postings at their length, by code (`postings_of_all`): the
/// same lists as adding its names one by one in the same order, whether every name has its
/// codes, some do, or none (all read from their folded names), long names among them.
#[test]
fn postings_built_whole_are_those_added_name_by_name() {
    let mut r = Lcg(5);
    let rows = with_long_names(&mut r, 400, 20);
    for limit in code_limits(&rows) {
        let whole = Names::coded_to(rows.clone(), limit);
        let mut one_by_one = Names::new(Words::Ascii);
        one_by_one.codes = Codes::with_limit(limit);
        let mut sorted = rows.clone();
        sorted.sort_by(|a, b| (a.name.as_bytes(), a.id).cmp(&(b.name.as_bytes(), b.id)));
        sorted.into_iter().for_each(|x| one_by_one.upsert(x));
        assert_eq!(whole.ids(), one_by_one.ids(), "limit {limit}");
        assert!(whole.postings.len() > 100, "limit {limit}");
        assert_eq!(whole.postings, one_by_one.postings, "limit {limit}");
    }
}

#[test]
fn ordering_again_is_wanted_past_a_share_of_fresh_and_dead_slots() {
    let mut n = Names::build((0..40_000).map(|i| row(i, &format!("p{i}"))));
    assert!(!n.wants_ordering());
    // Each rename leaves a dead slot and a fresh one.
    for i in 0..2_000 {
        n.upsert(row(i, &format!("q{i}")));
    }
    assert!(!n.wants_ordering(), "4,000 of 40,000");
    for i in 4_000..5_001 {
        n.remove(i);
    }
    assert!(n.wants_ordering(), "5,001 of 38,999");
    assert!(!n.ordered_again().wants_ordering());
}

#[test]
fn a_row_is_held_whole_only_when_its_code_comes_back_as_it_was() {
    let at = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
    let shown = Shown {
        club: Some("Oslo BK".into()),
        user_id: Some(7),
        created_at: at,
        updated_at: at,
    };
    let held = |tag: Option<&str>, r: NameRow| NameRow {
        tag: tag.map(str::to_string),
        shown: Some(shown.clone()),
        ..r
    };
    let mut n = Names::build([
        held(Some("NO"), row(1, "Kari")),
        held(None, row(2, "Ola")),
        held(Some("Norway"), row(3, "Per")),
        row(4, "Anna"),
    ]);
    assert_eq!(
        n.row(1),
        Some(("Kari", (Some("NO".to_string()), shown.clone())))
    );
    assert_eq!(n.row(2), Some(("Ola", (None, shown.clone()))));
    // A code its tag cannot give back, a row read without the rest, a row not held.
    assert_eq!(n.row(3), None);
    assert_eq!(n.row(4), None);
    assert_eq!(n.row(5), None);
    // Changed: the new row; removed: gone; ordered again: as it was.
    let moved = Shown {
        club: None,
        ..shown.clone()
    };
    n.upsert(NameRow {
        shown: Some(moved.clone()),
        ..row(1, "Kari")
    });
    assert_eq!(n.row(1), Some(("Kari", (None, moved.clone()))));
    n.remove(2);
    assert_eq!(n.row(2), None);
    assert_eq!(
        n.ordered_again().row(1),
        Some(("Kari", (None, moved.clone())))
    );
    // A search's hits carry what `row` gives for their ids (read by slot), in a fresh slot
    // (1) as in ordered ones, and for rows the index does not hold whole (3, 4).
    n.upsert(held(None, row(5, "Kari Per")));
    for index in [&n, &n.ordered_again()] {
        for q in ["kari", "per", "a"] {
            let (hits, count) = index
                .search_shown(&Query::first(q, Order::Named, 10, 100))
                .unwrap();
            assert_eq!(hits.len(), count, "{q}");
            assert!(!hits.is_empty(), "{q}");
            let plain = index.search(&Query::first(q, Order::Named, 10, 100)).0;
            for ((hit, shown), same) in hits.into_iter().zip(plain) {
                let row = index.row(hit.id);
                assert_eq!(shown, row.clone().map(|r| r.1), "{q} {}", hit.id);
                assert!(row.is_none_or(|r| r.0 == hit.name), "{q} {}", hit.id);
                assert_eq!(hit, same);
            }
        }
    }
}

/// The list with no text, read page by page after every row as a cursor: equal names told
/// apart by id in ordered, dead and fresh slots, and a tag; each page as every match sorted.
#[test]
fn a_list_without_text_pages_from_every_row_of_equal_names() {
    let tags = [None, Some("SE".to_string())];
    let mut rows: Vec<NameRow> = (1..=40)
        .map(|id| NameRow {
            tag: tags[id as usize % 2].clone(),
            ..row(id, ["Ann", "Bo", "Bo", "Bo", "Cy"][id as usize % 5])
        })
        .collect();
    let mut names = Names::build(rows.clone());
    // A removed Bo (a dead slot among equal names), Bo and Ann added (fresh slots).
    names.remove(7);
    rows.retain(|r| r.id != 7);
    for (id, name) in [(50, "Bo"), (3, "Bo"), (51, "Ann"), (52, "Bz")] {
        rows.retain(|r| r.id != id);
        rows.push(row(id, name));
        names.upsert(row(id, name));
    }
    assert!(names.slots.len() > names.ordered as usize);
    let se = tag(Some("SE"));
    assert_eq!(
        names.tagged(se),
        rows.iter().filter(|r| r.tag.is_some()).count()
    );
    for tag in [None, Some(se)] {
        for take in [1, 3] {
            let first = Query {
                tag,
                ..Query::first("", Order::Named, take, 1001)
            };
            let whole = every_match(&rows, &Query { take: 100, ..first });
            assert_eq!(names.search(&first), every_match(&rows, &first));
            for h in &whole.0 {
                let q = Query {
                    after: Some((0.0, &h.name, h.id)),
                    ..first
                };
                assert_eq!(names.search(&q), every_match(&rows, &q), "{q:?}");
            }
        }
    }
}

/// A list without a search text is cheap while few slots are fresh: past 4,096 of them
/// (until the list is ordered again) PostgreSQL answers it.
#[test]
fn a_list_without_text_is_left_to_postgresql_past_a_number_of_fresh_slots() {
    let mut n = Names::build((0..100).map(|i| row(i, &format!("p{i}"))));
    assert!(n.plain_is_cheap());
    for i in 0..4096 {
        n.upsert(row(1000 + i, "fresh"));
    }
    assert!(n.plain_is_cheap());
    n.upsert(row(9999, "one more"));
    assert!(!n.plain_is_cheap());
    // The held answer declines it (PostgreSQL answers); a search still answers.
    assert!(n.search_shown(&query("", Order::Named)).is_none());
    assert!(n.search_shown(&query("fresh", Order::Named)).is_some());
    assert!(n.ordered_again().plain_is_cheap());
}
