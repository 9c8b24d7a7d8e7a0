//! Public reads kept per instance (issue 16): the rendered body of a public read (a tournament,
//! a round's draw, the standings) is kept with the *generation* of its tournament seen when the
//! read began. Every committed change to a tournament's inputs announces the tournament on
//! `tourney_changes` (migration `change_notify`); the instance's listener (`infra::live`)
//! moves that tournament's generation on. A kept body whose generation is still current is
//! served without a database connection; while the listener is not connected there is no
//! current generation and nothing is served from here.
//!
//! Staleness: a change is seen once its notification reaches the listener, which reads its
//! socket every 20 ms; shared caches may add their `max-age=5`. Staff reads (signed in) do not
//! come here: they stay exact (`infra::standings_cache`).
//!
//! Misses are rebuilt one per key at a time (single-flight: 64 clients missing at once cause one
//! rebuild, the others then find it kept) and at most [`REBUILDS`] at once per instance, so a
//! rush of public reads leaves the rest of the pool to writes. Searches the instance's search
//! index answers (issue 42: the index ranks, one short read by primary key fetches the page's
//! rows) hold their connection for a fraction of a millisecond: they take one of [`SEARCHES`]
//! slots of their own rather than queueing behind the heavier rebuilds. A search answered in
//! memory (no connection at all) is kept only once its key missed twice lately
//! (`KeptReads::keep_if_asked_again`): most typed names are read once, and two inserts into
//! the caches cost a tenth of answering one; the last few such answers stay in a small ring
//! for the readers of a cold search who arrive just after its first.
//!
//! Bounded by bytes (issue 33): the kept bodies weigh their bytes (body, key, ETag, `Link`, and
//! [`ENTRY_OVERHEAD`]) against a budget (`KEPT_BODIES_MAX_BYTES`, default
//! [`DEFAULT_MAX_BYTES`]); past it, bodies leave one at a time by moka's TinyLFU policy (a body
//! read often stays, a body read once does not push it out). Bodies of an older generation are
//! never served; they wait there until replaced or evicted. Evictions count in
//! `tourney_cache_evictions_total{cache="public"}`, what is kept in `tourney_cache_bytes`.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use moka::notification::RemovalCause;
use moka::policy::EvictionPolicy;
use moka::sync::Cache;
use tokio::sync::{Mutex as AsyncMutex, OwnedSemaphorePermit, Semaphore};

use crate::infra::live::Generation;
use crate::infra::metrics::{CacheMeter, CacheSample};

/// The default budget of the kept public bodies: 64 MiB (10,000 small events' three public
/// reads take about 60 MB).
pub const DEFAULT_MAX_BYTES: u64 = 64 * 1024 * 1024;
/// What one kept entry weighs beyond its bytes (the cache's node, the entry, the `Arc`s).
pub const ENTRY_OVERHEAD: usize = 160;
/// Public rebuilds running at once per instance (each holds a pooled connection).
pub const REBUILDS: usize = 3;
/// Searches answered by the search index running at once per instance (each holds a pooled
/// connection for one read by primary key), beside the [`REBUILDS`].
pub const SEARCHES: usize = 4;
/// How long a body read on the read replica is served: the replica may not yet have replayed the
/// change that moved the generation it is kept at, so such a body is read again this often
/// while its subject is quiet (a stale answer lasts the replica's lag and this at most).
pub const KEEP_LAGGING: Duration = Duration::from_secs(1);
/// Locks for single-flight, shared by keys with the same hash (bounded, whatever the keys).
const FLIGHTS: usize = 256;

/// How many keys' misses [`Asked`] counts apart (by their hash), and after how many misses
/// it forgets them all: a quarter of its counters, so that a key missed once shares its
/// counter with another key missed in the same period about one time in eight on average.
const ASKED: usize = 1 << 16;
const ASKED_PERIOD: u32 = 1 << 14;

/// How many bodies kept only until others replace them [`Recent`] holds.
const RECENT: usize = 64;

/// The last [`RECENT`] bodies answered in memory and not (yet) kept in the caches: readers of a
/// cold search who arrive after its first reader answered it find it here (and count a second
/// miss, so the next reader keeps it), while a name typed once costs one place in a ring
/// instead of two inserts into the caches.
#[derive(Default)]
struct Recent {
    next: usize,
    held: Vec<(u64, String, Arc<Entry>)>,
}

impl Recent {
    fn get(&self, hash: u64, key: &str) -> Option<&Arc<Entry>> {
        self.held
            .iter()
            .find(|(h, k, _)| *h == hash && k == key)
            .map(|(_, _, e)| e)
    }

    fn put(&mut self, hash: u64, key: String, entry: Arc<Entry>) {
        if self.held.len() < RECENT {
            self.held.push((hash, key, entry));
        } else {
            self.held[self.next] = (hash, key, entry);
        }
        self.next = (self.next + 1) % RECENT;
    }
}

fn hash_of(key: &str) -> u64 {
    let mut h = DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

/// The misses of the bodies kept only when asked again (a search the search index answers in
/// memory: remaking one costs less than keeping it, and most typed names are read once), by
/// a counter of their key's hash, all forgotten every [`ASKED_PERIOD`] misses. A body is kept
/// once its key missed twice in a period: a second reader waiting for the same rebuild, or
/// the same search read again. Keys sharing a counter are kept as if asked twice (as every
/// body was before); one asked twice across a reset is kept at its next miss.
struct Asked {
    counts: Box<[AtomicU8]>,
    misses: AtomicU32,
}

impl Default for Asked {
    fn default() -> Self {
        Self {
            counts: (0..ASKED).map(|_| AtomicU8::new(0)).collect(),
            misses: AtomicU32::new(0),
        }
    }
}

impl Asked {
    /// The counter of the key whose hash is `hash`.
    fn counter(&self, hash: u64) -> &AtomicU8 {
        &self.counts[(hash as usize) % ASKED]
    }

    /// Counts a miss of the key whose hash is `hash`.
    fn missed(&self, hash: u64) {
        if self.misses.fetch_add(1, Ordering::Relaxed) + 1 >= ASKED_PERIOD {
            self.misses.store(0, Ordering::Relaxed);
            self.counts
                .iter()
                .for_each(|c| c.store(0, Ordering::Relaxed));
        }
        let c = self.counter(hash);
        // Saturating: only "more than once" is read.
        let _ = c.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_add(1));
    }

    /// Whether the key whose hash is `hash` missed more than once in this period.
    fn again(&self, hash: u64) -> bool {
        self.counter(hash).load(Ordering::Relaxed) >= 2
    }
}

/// Which slots a rebuild takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slots {
    /// One of the [`REBUILDS`]: a read that may scan (lists, pages, standings).
    Rebuild,
    /// One of the [`SEARCHES`]: a search the instance's search index answers.
    Search,
    /// None: a search answered in memory on the worker's own thread (no connection, no
    /// blocking thread); one that falls back to the database then takes a search slot
    /// ([`KeptReads::slot`]).
    Held,
}

/// A rendered public read.
#[derive(Clone)]
pub struct KeptBody {
    pub etag: String,
    pub content_type: &'static str,
    pub body: Arc<[u8]>,
    /// The `Link` header of a page.
    pub link: Option<String>,
}

struct Entry {
    generation: Generation,
    /// Served until then at most (a body read on a replica, which may lag behind the
    /// generation it is kept at: `KEEP_LAGGING`).
    until: Option<Instant>,
    kept: KeptBody,
}

impl Entry {
    /// The entry of `body` read at `generation`, served until `until` at most; `None` with no
    /// generation (the listener not connected: nothing is kept).
    fn of(
        generation: Option<Generation>,
        body: KeptBody,
        until: Option<Instant>,
    ) -> Option<Arc<Self>> {
        Some(Arc::new(Self {
            generation: generation?,
            until,
            kept: body,
        }))
    }
}

/// A byte-weighted cache that counts what its policy evicts into `meter` (shared by
/// [`KeptReads`] and `infra::standings_cache`).
pub fn weighted_cache<V: Clone + Send + Sync + 'static>(
    max_bytes: u64,
    meter: &CacheMeter,
    weight: fn(&V) -> usize,
) -> Cache<String, V> {
    weighted_cache_with(max_bytes, meter, weight, EvictionPolicy::tiny_lfu())
}

/// [`weighted_cache`] with another eviction policy.
fn weighted_cache_with<V: Clone + Send + Sync + 'static>(
    max_bytes: u64,
    meter: &CacheMeter,
    weight: fn(&V) -> usize,
    policy: EvictionPolicy,
) -> Cache<String, V> {
    let evictions = meter.evictions.clone();
    Cache::builder()
        .max_capacity(max_bytes)
        .eviction_policy(policy)
        .weigher(move |key: &String, value: &V| {
            u32::try_from(key.len() + weight(value) + ENTRY_OVERHEAD).unwrap_or(u32::MAX)
        })
        .eviction_listener(move |_key, _value, cause| {
            // Replaced and explicitly removed bodies are not evictions.
            if cause == RemovalCause::Size {
                evictions.inc();
            }
        })
        .build()
}

/// What a cache holds now, its pending bookkeeping done first.
pub fn sample<V: Clone + Send + Sync + 'static>(
    name: &'static str,
    cache: &Cache<String, V>,
    budget: u64,
) -> CacheSample {
    cache.run_pending_tasks();
    CacheSample {
        cache: name,
        bytes: cache.weighted_size(),
        entries: cache.entry_count(),
        budget,
    }
}

fn entry_weight(e: &Arc<Entry>) -> usize {
    e.kept.body.len() + e.kept.etag.len() + e.kept.link.as_ref().map_or(0, String::len)
}

/// The share of the budget that is the admission window: 1/`WINDOW_SHARE`.
const WINDOW_SHARE: u64 = 8;

/// The instance's kept public bodies (cheap to clone).
///
/// Two parts, as in W-TinyLFU: every body kept enters a small LRU *window* (1/8 of the budget)
/// and is offered to the *main* part (TinyLFU, the rest). moka admits a body to the main part
/// only if it is read more often than the bodies it would push out *together*, so once the main
/// part is full of small bodies read once (profiles, pages by cursor), a large body read
/// thousands of times a second (a filtered list, a search) would be turned away on every
/// rebuild, each rebuild a query of up to hundreds of milliseconds. The window holds it while it
/// is read; bodies read once pass through the window without touching the main part.
#[derive(Clone)]
pub struct KeptReads {
    kept: Cache<String, Arc<Entry>>,
    window: Cache<String, Arc<Entry>>,
    budget: u64,
    flights: Arc<Vec<Arc<AsyncMutex<()>>>>,
    asked: Arc<Asked>,
    recent: Arc<std::sync::Mutex<Recent>>,
    rebuilds: Arc<Semaphore>,
    searches: Arc<Semaphore>,
}

/// The default budget, counting into a meter registered nowhere (tests and benchmarks that do
/// not read the metrics; the service uses [`KeptReads::new`]).
impl Default for KeptReads {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_BYTES, &CacheMeter::default())
    }
}

/// The right to rebuild one key: held while its body is computed and kept.
pub struct Flight {
    _key: tokio::sync::OwnedMutexGuard<()>,
    slot: Option<OwnedSemaphorePermit>,
}

impl KeptReads {
    /// Kept bodies weighing at most `max_bytes` in all; evictions count into `meter`.
    pub fn new(max_bytes: u64, meter: &CacheMeter) -> Self {
        let window = max_bytes / WINDOW_SHARE;
        Self {
            kept: weighted_cache(max_bytes - window, meter, entry_weight),
            window: weighted_cache_with(window, meter, entry_weight, EvictionPolicy::lru()),
            budget: max_bytes,
            flights: Arc::new((0..FLIGHTS).map(|_| Default::default()).collect()),
            asked: Arc::default(),
            recent: Arc::default(),
            rebuilds: Arc::new(Semaphore::new(REBUILDS)),
            searches: Arc::new(Semaphore::new(SEARCHES)),
        }
    }

    /// The body kept under `key` if it was kept at generation `current` (the tournament's
    /// generation now); `None` when nothing is kept, or the tournament changed since.
    pub fn fresh(&self, key: &str, current: Option<Generation>) -> Option<KeptBody> {
        let current = current?;
        let fresh =
            |e: &Arc<Entry>| e.generation == current && e.until.is_none_or(|t| Instant::now() < t);
        self.kept
            .get(key)
            .filter(fresh)
            .or_else(|| self.window.get(key).filter(fresh))
            .or_else(|| {
                self.recent()
                    .get(hash_of(key), key)
                    .filter(|e| fresh(e))
                    .cloned()
            })
            .map(|e| e.kept.clone())
    }

    fn recent(&self) -> std::sync::MutexGuard<'_, Recent> {
        self.recent.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for the right to rebuild `key` in `slots`: one rebuild per key at a time, at most
    /// [`REBUILDS`] or [`SEARCHES`] in all.
    pub async fn flight(&self, key: &str, slots: Slots) -> Flight {
        let lock = self.flights[(hash_of(key) as usize) % FLIGHTS].clone();
        let key = lock.lock_owned().await;
        let mut flight = Flight {
            _key: key,
            slot: None,
        };
        self.slot(&mut flight, slots).await;
        flight
    }

    /// Waits for a slot of `slots` for `flight`, if it holds none (none for [`Slots::Held`]).
    pub async fn slot(&self, flight: &mut Flight, slots: Slots) {
        let semaphore = match slots {
            _ if flight.slot.is_some() => return,
            Slots::Rebuild => &self.rebuilds,
            Slots::Search => &self.searches,
            Slots::Held => return,
        };
        let slot = semaphore
            .clone()
            .acquire_owned()
            .await
            .expect("the slots' semaphores are never closed");
        flight.slot = Some(slot);
    }

    /// Counts a miss of a body kept only when asked again ([`KeptReads::keep_if_asked_again`]):
    /// call it once per read, when the body is not kept.
    pub fn missed(&self, key: &str) {
        self.asked.missed(hash_of(key));
    }

    /// Keeps `body` as [`KeptReads::keep`] does if its key missed more than once lately
    /// ([`KeptReads::missed`]: another reader waited for it, or it was read before), else only
    /// among the last [`RECENT`] such bodies; returns whether it kept it in the caches. For
    /// bodies cheaper to remake than to keep (a search the index answers in memory): a name
    /// typed once is not kept, a search read again is, and the readers of a cold search who
    /// come just after its first find its body.
    pub fn keep_if_asked_again(
        &self,
        key: String,
        generation: Option<Generation>,
        body: KeptBody,
    ) -> bool {
        let Some(entry) = Entry::of(generation, body, None) else {
            return false;
        };
        let hash = hash_of(&key);
        let again = self.asked.again(hash);
        if again {
            self.put(key, entry);
        } else {
            self.recent().put(hash, key, entry);
        }
        again
    }

    /// Keeps `body` under `key`, as read at `generation` (the one seen before the read began;
    /// a change committed meanwhile has moved the tournament on, so it is not served).
    pub fn keep(&self, key: String, generation: Option<Generation>, body: KeptBody) {
        self.keep_until(key, generation, body, None);
    }

    /// Keeps `body` as [`KeptReads::keep`] does, served until `until` at most.
    pub fn keep_until(
        &self,
        key: String,
        generation: Option<Generation>,
        body: KeptBody,
        until: Option<Instant>,
    ) {
        if let Some(entry) = Entry::of(generation, body, until) {
            self.put(key, entry);
        }
    }

    /// Puts `entry` into both caches; they share it (its bytes are held once, weighed in each).
    fn put(&self, key: String, entry: Arc<Entry>) {
        self.window.insert(key.clone(), entry.clone());
        self.kept.insert(key, entry);
    }

    /// What is kept now (for `GET /metrics`): both parts, a body in both counted twice (an
    /// upper bound of the bytes held).
    pub fn sample(&self) -> CacheSample {
        let main = sample("public", &self.kept, self.budget);
        let window = sample("public", &self.window, self.budget);
        CacheSample {
            bytes: main.bytes + window.bytes,
            entries: main.entries + window.entries,
            ..main
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infra::live::Generation;

    fn body(s: &str) -> KeptBody {
        KeptBody {
            etag: format!("\"{s}\""),
            content_type: "application/json",
            body: s.as_bytes().into(),
            link: None,
        }
    }

    fn kept(max_bytes: u64) -> KeptReads {
        KeptReads::new(max_bytes, &CacheMeter::default())
    }

    #[test]
    fn a_body_is_served_only_at_the_generation_it_was_kept_at() {
        let k = kept(DEFAULT_MAX_BYTES);
        let g1 = Generation::new(1, 0);
        k.keep("a".into(), Some(g1), body("one"));
        assert_eq!(&*k.fresh("a", Some(g1)).unwrap().body, b"one");
        // The tournament changed, or the listener reconnected.
        assert!(k.fresh("a", Some(Generation::new(1, 1))).is_none());
        assert!(k.fresh("a", Some(Generation::new(2, 0))).is_none());
        // Not listening: nothing is served from memory.
        assert!(k.fresh("a", None).is_none());
        assert!(k.fresh("b", Some(g1)).is_none());
        // Read while not listening: not kept.
        k.keep("c".into(), None, body("three"));
        assert!(k.fresh("c", Some(g1)).is_none());
    }

    #[test]
    fn a_body_read_on_the_replica_is_served_until_its_time_only() {
        let k = kept(DEFAULT_MAX_BYTES);
        let g = Generation::new(1, 0);
        let soon = Instant::now() + Duration::from_millis(30);
        k.keep_until("a".into(), Some(g), body("one"), Some(soon));
        assert!(k.fresh("a", Some(g)).is_some());
        // Past its time, at the same generation.
        std::thread::sleep(Duration::from_millis(40));
        assert!(k.fresh("a", Some(g)).is_none());
        // A newer generation ends it earlier.
        k.keep_until(
            "b".into(),
            Some(g),
            body("two"),
            Some(Instant::now() + KEEP_LAGGING),
        );
        assert!(k.fresh("b", Some(Generation::new(1, 1))).is_none());
    }

    #[test]
    fn a_large_body_read_often_stays_though_small_bodies_read_once_fill_the_budget() {
        let k = kept(256 * 1024);
        let g = Generation::new(1, 0);
        let sized = |n: usize| KeptBody {
            body: vec![b'x'; n].into(),
            ..body("")
        };
        // Profiles read once or twice fill the budget.
        for i in 0..3000 {
            let key = format!("small-{i}");
            k.keep(key.clone(), Some(g), sized(300));
            k.fresh(&key, Some(g));
        }
        // A filtered list read over and over, rebuilt whenever it is missing.
        let mut rebuilds = 0;
        for _ in 0..300 {
            if k.fresh("big", Some(g)).is_none() {
                rebuilds += 1;
                k.keep("big".into(), Some(g), sized(12_000));
            }
            k.kept.run_pending_tasks();
            k.window.run_pending_tasks();
        }
        // The main part alone turns it away: it would push out dozens of bodies at once.
        assert!(
            k.kept.get("big").is_none(),
            "the scenario no longer needs the window"
        );
        assert_eq!(rebuilds, 1, "read from the window after its first rebuild");
        // Bodies read once pass through the window; the one read often stays.
        for i in 3000..3100 {
            k.keep(format!("small-{i}"), Some(g), sized(300));
            assert!(k.fresh("big", Some(g)).is_some(), "after {i}");
            k.window.run_pending_tasks();
        }
    }

    /// `f`'s answer if it comes within `ms` milliseconds.
    async fn within<T>(ms: u64, f: impl std::future::Future<Output = T>) -> Option<T> {
        tokio::time::timeout(std::time::Duration::from_millis(ms), f)
            .await
            .ok()
    }

    #[actix_web::test]
    async fn one_rebuild_per_key_and_at_most_rebuilds_in_all() {
        let k = kept(DEFAULT_MAX_BYTES);
        let first = k.flight("a", Slots::Rebuild).await;
        // The same key waits for the first flight.
        let waiting = within(50, k.flight("a", Slots::Rebuild));
        assert!(waiting.await.is_none());
        drop(first);
        let _again = k.flight("a", Slots::Rebuild).await;
        // Other keys take the remaining slots, then wait.
        let mut held = Vec::new();
        let mut n = 0;
        while held.len() < REBUILDS - 1 {
            n += 1;
            let key = format!("key-{n}");
            // Keys sharing a's lock would wait: skip them.
            if let Some(f) = within(20, k.flight(&key, Slots::Rebuild)).await {
                held.push(f);
            }
        }
        let over = within(50, k.flight("yet-another-key", Slots::Rebuild));
        assert!(over.await.is_none(), "no more than REBUILDS at once");
        // Searches have slots of their own: SEARCHES of them, whatever the rebuilds hold.
        let mut searching = Vec::new();
        while searching.len() < SEARCHES {
            n += 1;
            let key = format!("key-{n}");
            if let Some(f) = within(20, k.flight(&key, Slots::Search)).await {
                searching.push((key, f));
            }
        }
        let over = within(50, k.flight("one-search-too-many", Slots::Search));
        assert!(over.await.is_none(), "no more than SEARCHES at once");
        // A search answered in memory takes no slot: it gets through while they are all held,
        // still one per key; falling back to the database, it waits for a search slot.
        let mut in_memory = loop {
            n += 1;
            let key = format!("key-{n}");
            let held = within(20, k.flight(&key, Slots::Held));
            if let Some(f) = held.await {
                let same = within(20, k.flight(&key, Slots::Held));
                assert!(same.await.is_none(), "one flight per key, held or not");
                break f;
            }
        };
        let fallback = within(50, k.slot(&mut in_memory, Slots::Search));
        assert!(
            fallback.await.is_none(),
            "a fallback waits for a search slot"
        );
        // (The key of the flight that ends: its lock is free too.)
        let (key, ends) = searching.pop().expect("SEARCHES > 0");
        drop(ends);
        let freed = within(50, k.flight(&key, Slots::Search));
        assert!(freed.await.is_some(), "a search slot freed is taken");
        // (That flight ended at once: its slot is free again.)
        let fallback = within(50, k.slot(&mut in_memory, Slots::Search));
        assert!(fallback.await.is_some(), "and takes one freed");
    }

    #[test]
    fn a_body_cheap_to_remake_is_kept_once_asked_again() {
        let k = kept(DEFAULT_MAX_BYTES);
        let g = Some(Generation::new(1, 0));
        // Read once: not kept in the caches, only among the last few such bodies.
        k.missed("once");
        assert!(!k.keep_if_asked_again("once".into(), g, body("1")));
        assert_eq!(&*k.fresh("once", g).unwrap().body, b"1");
        assert!(k.fresh("once", Some(Generation::new(1, 1))).is_none());
        for i in 0..RECENT {
            k.missed(&format!("typed-{i}"));
            k.keep_if_asked_again(format!("typed-{i}"), g, body("x"));
        }
        assert!(
            k.fresh("once", g).is_none(),
            "pushed out by the last {RECENT}"
        );
        assert_eq!(&*k.fresh("typed-1", g).unwrap().body, b"x");
        // Read again (or a second reader waiting for the same rebuild): kept.
        k.missed("once");
        assert!(k.keep_if_asked_again("once".into(), g, body("2")));
        for i in 0..RECENT {
            k.keep_if_asked_again(format!("later-{i}"), g, body("x"));
        }
        assert_eq!(&*k.fresh("once", g).unwrap().body, b"2");
        // Forgotten after a period of other misses (unless a key of those shares its counter).
        k.missed("late");
        let lone = (0..ASKED_PERIOD)
            .map(|i| format!("other-{i}"))
            .filter(|o| (hash_of(o) as usize) % ASKED != (hash_of("late") as usize) % ASKED)
            .inspect(|o| k.missed(o))
            .count();
        assert!(lone + 2 > ASKED_PERIOD as usize);
        k.missed("late");
        assert!(!k.keep_if_asked_again("late".into(), g, body("3")));
        // A counter does not wrap around.
        for _ in 0..300 {
            k.missed("busy");
        }
        assert!(k.asked.again(hash_of("busy")));
    }

    #[test]
    fn bounded_by_bytes_one_at_a_time_keeping_what_is_read_often() {
        let meter = CacheMeter::default();
        let one = (ENTRY_OVERHEAD + 1000 + 16) as u64;
        let k = KeptReads::new(20 * one, &meter);
        let g = Generation::new(1, 0);
        let big = |s: &str| KeptBody {
            body: vec![b'x'; 1000 - s.len()].into(),
            ..body(s)
        };
        // The policy counts reads once the budget is half used: some bodies read once first.
        for filler in 0..12 {
            k.keep(format!("filler-{filler}"), Some(g), big("filler"));
        }
        for hot in 0..5 {
            k.keep(format!("hot-{hot}"), Some(g), big("hot"));
        }
        let read_hot = |k: &KeptReads| {
            for hot in 0..5 {
                assert!(
                    k.fresh(&format!("hot-{hot}"), Some(g)).is_some(),
                    "hot-{hot} is read often and stays"
                );
            }
        };
        for _ in 0..10 {
            read_hot(&k);
        }
        // Ten times as many distinct bodies as the budget holds, each read once, the hot ones
        // still read now and then.
        for cold in 0..200 {
            let key = format!("cold-{cold}");
            if k.fresh(&key, Some(g)).is_none() {
                k.keep(key, Some(g), big("cold"));
            }
            if cold % 20 == 19 {
                read_hot(&k);
            }
        }
        let s = k.sample();
        assert!(
            s.bytes <= 20 * one,
            "{} bytes kept over a budget of {}",
            s.bytes,
            20 * one
        );
        assert!(s.entries > 5 && s.entries <= 20, "{} entries", s.entries);
        assert!(
            meter.evictions.get() >= 180,
            "{} evictions",
            meter.evictions.get()
        );
        read_hot(&k);
        // A replaced body is no eviction (once it is in the window too: its first keep there
        // may push a body read once out of the window).
        k.keep("hot-0".into(), Some(Generation::new(1, 1)), big("hot"));
        k.sample();
        let before = meter.evictions.get();
        k.keep("hot-0".into(), Some(Generation::new(1, 2)), big("hot"));
        k.sample();
        assert_eq!(meter.evictions.get(), before);
    }
}
