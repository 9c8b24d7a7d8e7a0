//! What a request's search cost, for its rate limit (issue 42: what a stranger's texts cost).
//!
//! Every read counts one against its caller's rate limit (`infra::ratelimit`), but reads do
//! not cost alike: a typed name costs the index well under a millisecond at a million names,
//! while a text that reads every name (`%`, `a b`: no three letters in a row) or a far
//! offset costs 20-60 ms (docs/performance.md, eighteenth session). Counted one each, three
//! addresses asking such texts within their limits took more than a core. So a search is
//! charged by the processor time it took: the index times each search on the thread it runs
//! on ([`Timed`]), whoever runs it moves that time to the request it serves ([`claimed`],
//! then [`to_request`]), and the rate limit's middleware charges the request one more read for
//! every whole [`crate::infra::ratelimit::Limits::search_micros`] of it ([`extra_reads`]).
//!
//! The time is the thread's own processor time (`CLOCK_THREAD_CPUTIME_ID` on Linux), not the
//! time that passed: a search whose thread was preempted by others' work is not charged for
//! theirs. Elsewhere it is the time that passed.
//!
//! A search PostgreSQL answers (while the index is built, or in a database the index cannot
//! answer for) spends the database's processor time, not this thread's: it is charged by the
//! time that passed while its queries ran ([`Timed::waiting`]), which is the database's work and the
//! connection it held.

use std::cell::Cell;
use std::future::Future;
use std::time::Duration;

thread_local! {
    /// Search time spent on this thread and not yet claimed by a request.
    static SPENT: Cell<Duration> = const { Cell::new(Duration::ZERO) };
}

tokio::task_local! {
    /// Search time claimed by the request this task serves.
    static REQUEST: Cell<Duration>;
}

/// The processor time this thread has used.
#[cfg(target_os = "linux")]
fn thread_time() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec`, which `t` is, and reads nothing else.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
    if !ok {
        return Duration::ZERO;
    }
    Duration::new(
        t.tv_sec.max(0) as u64,
        t.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// The time that passed since the first call (no thread clock on this platform).
#[cfg(not(target_os = "linux"))]
fn thread_time() -> Duration {
    wall_time()
}

/// The time that passed since the first call.
fn wall_time() -> Duration {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed()
}

/// A search being timed: its time is added to the thread's when it is dropped.
#[must_use = "the time is counted when the guard is dropped"]
pub struct Timed {
    clock: fn() -> Duration,
    from: Duration,
}

impl Timed {
    /// A search on this thread, timed by the thread's processor time.
    pub fn start() -> Self {
        Timed::on(thread_time)
    }

    /// A search PostgreSQL answers, timed by the time that passes (its processor time is the
    /// database's).
    pub fn waiting() -> Self {
        Timed::on(wall_time)
    }

    fn on(clock: fn() -> Duration) -> Self {
        Timed {
            clock,
            from: clock(),
        }
    }
}

impl Drop for Timed {
    fn drop(&mut self) {
        let took = (self.clock)().saturating_sub(self.from);
        SPENT.with(|s| s.set(s.get().saturating_add(took)));
    }
}

/// Runs `f` on this thread and returns what it answered with the search time it spent.
pub fn claimed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    SPENT.with(|s| s.set(Duration::ZERO));
    let answer = f();
    (answer, SPENT.with(|s| s.replace(Duration::ZERO)))
}

/// Adds `spent` to the request this task serves (nothing outside one: a job, a test).
pub fn to_request(spent: Duration) {
    let _ = REQUEST.try_with(|r| r.set(r.get().saturating_add(spent)));
}

/// Serves one request (`f`), returning its answer and the search time it claimed.
pub async fn serving<F: Future>(f: F) -> (F::Output, Duration) {
    REQUEST
        .scope(Cell::new(Duration::ZERO), async {
            let answer = f.await;
            (answer, REQUEST.with(Cell::get))
        })
        .await
}

/// The reads a request is charged beyond its first: one for every whole `per_read` of search
/// time it claimed (none when `per_read` is zero).
pub fn extra_reads(spent: Duration, per_read: Duration) -> u32 {
    if per_read.is_zero() {
        return 0;
    }
    u32::try_from(spent.as_nanos() / per_read.as_nanos()).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Work the optimiser cannot drop.
    fn busy(rounds: u64) -> u64 {
        (0..rounds).fold(1u64, |a, i| std::hint::black_box(a.wrapping_mul(31) ^ i))
    }

    #[test]
    fn a_timed_search_is_claimed_once_by_whoever_runs_it() {
        let ((), spent) = claimed(|| {
            let _t = Timed::start();
            busy(2_000_000);
        });
        assert!(spent > Duration::ZERO);
        // Claimed: the next claim starts from nothing.
        let ((), again) = claimed(|| {});
        assert_eq!(again, Duration::ZERO);
        // Time spent outside a search is not counted.
        let (_, none) = claimed(|| busy(2_000_000));
        assert_eq!(none, Duration::ZERO);
    }

    #[test]
    fn a_search_the_database_answers_is_charged_by_the_time_it_waited() {
        let ((), spent) = claimed(|| {
            let _w = Timed::waiting();
            std::thread::sleep(Duration::from_millis(30));
        });
        assert!(spent >= Duration::from_millis(30), "{spent:?}");
        let ((), again) = claimed(|| {});
        assert_eq!(again, Duration::ZERO);
    }

    #[test]
    fn a_thread_left_waiting_is_not_charged() {
        let ((), spent) = claimed(|| {
            let _t = Timed::start();
            std::thread::sleep(Duration::from_millis(30));
        });
        // Processor time, not the time that passed (Linux's thread clock).
        if cfg!(target_os = "linux") {
            assert!(spent < Duration::from_millis(20), "{spent:?}");
        }
    }

    #[actix_web::test]
    async fn a_request_adds_what_its_steps_claimed() {
        let ((), spent) = serving(async {
            to_request(Duration::from_micros(700));
            tokio::task::yield_now().await;
            to_request(Duration::from_micros(800));
        })
        .await;
        assert_eq!(spent, Duration::from_micros(1_500));
        // Outside a request, nothing is kept and nothing fails.
        to_request(Duration::from_secs(1));
        let ((), next) = serving(async {}).await;
        assert_eq!(next, Duration::ZERO);
    }

    #[test]
    fn one_more_read_for_every_whole_unit() {
        let ms = Duration::from_millis(1);
        assert_eq!(extra_reads(Duration::ZERO, ms), 0);
        assert_eq!(extra_reads(Duration::from_micros(999), ms), 0);
        assert_eq!(extra_reads(ms, ms), 1);
        assert_eq!(extra_reads(Duration::from_micros(25_400), ms), 25);
        assert_eq!(extra_reads(Duration::from_secs(5), Duration::ZERO), 0);
        assert_eq!(
            extra_reads(Duration::from_secs(u64::MAX), Duration::from_nanos(1)),
            u32::MAX
        );
    }
}
