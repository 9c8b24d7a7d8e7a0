//! A count over a sliding period (the sliding window counter), shared by the rate limiter
//! (`infra::ratelimit`, a minute) and the sign-in throttle (`infra::throttle`, five minutes).
//!
//! A counter keeps the count of its current window and of the window before; what it holds at
//! a moment is the current window's count plus the share of the window before still inside the
//! period ending then (all of it at the window's start, none at its end). Fixed windows forget
//! everything when a window ends, so a caller could spend a limit at the end of one window and
//! again at the start of the next: twice the limit within a second. Here a limit used up comes
//! back as the period passes.

use std::time::{Duration, Instant};

/// One counter over a period of `SECS` seconds.
#[derive(Debug, Clone, Copy)]
pub struct Sliding<const SECS: u64> {
    started: Instant,
    count: u32,
    previous: u32,
}

impl<const SECS: u64> Sliding<SECS> {
    /// The period the counter counts over.
    pub const PERIOD: Duration = Duration::from_secs(SECS);

    /// A counter holding nothing, its first window starting at `now`.
    pub fn new(now: Instant) -> Self {
        Sliding {
            started: now,
            count: 0,
            previous: 0,
        }
    }

    /// Moves the counter on to `now`: the window that ended becomes the window before (windows
    /// follow each other from the counter's first count); after two, nothing is carried.
    pub fn roll(&mut self, now: Instant) {
        let into = now.saturating_duration_since(self.started);
        if into >= 2 * Self::PERIOD {
            *self = Sliding::new(now);
        } else if into >= Self::PERIOD {
            *self = Sliding {
                started: self.started + Self::PERIOD,
                count: 0,
                previous: self.count,
            };
        }
    }

    /// Adds `n` to the current window (after `roll`).
    pub fn add(&mut self, n: u32) {
        self.count = self.count.saturating_add(n);
    }

    /// The time left of the current window at `now` (after `roll`).
    pub fn left(&self, now: Instant) -> Duration {
        Self::PERIOD
            - now
                .saturating_duration_since(self.started)
                .min(Self::PERIOD)
    }

    /// What the counter holds over the period ending at `now` (after `roll`): the current
    /// window's count, and the window before's in the share of it still inside the period
    /// (rounded up).
    pub fn used(&self, now: Instant) -> u32 {
        self.count
            .saturating_add(weighted::<SECS>(self.previous, self.left(now)))
    }

    /// How long from `now` (after `roll`) until the counter holds less than `limit` (whole
    /// seconds, at least one): when a request is allowed again.
    pub fn retry(&self, now: Instant, limit: u32) -> u64 {
        let left = self.left(now);
        let room = limit.saturating_sub(1);
        let wait = if self.count < limit {
            // Within this window: until the window before's share is down to the room left.
            left.saturating_sub(share::<SECS>(room - self.count, self.previous))
        } else {
            // At this window's end its count becomes the window before's: then until its
            // share is down to the room of a limit.
            left + Self::PERIOD.saturating_sub(share::<SECS>(room, self.count))
        };
        let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        secs.max(1)
    }
}

/// `count` weighted by `left` of a window, rounded up.
fn weighted<const SECS: u64>(count: u32, left: Duration) -> u32 {
    let w = (u128::from(count) * left.as_nanos()).div_ceil(u128::from(SECS) * 1_000_000_000);
    u32::try_from(w).unwrap_or(u32::MAX)
}

/// The part of a window in which `count` weighs `room` or less: `room / count` of it.
fn share<const SECS: u64>(room: u32, count: u32) -> Duration {
    let period = Duration::from_secs(SECS);
    if room >= count {
        return period;
    }
    let nanos = u128::from(room) * period.as_nanos() / u128::from(count);
    Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    type Minute = Sliding<60>;

    fn at(t0: Instant, secs: u64) -> Instant {
        t0 + Duration::from_secs(secs)
    }

    /// The counter rolled to `secs` after `t0`, and what it holds then.
    fn used(c: &mut Minute, t0: Instant, secs: u64) -> u32 {
        c.roll(at(t0, secs));
        c.used(at(t0, secs))
    }

    #[test]
    fn the_window_before_weighs_by_its_share_still_inside_the_period() {
        let t0 = Instant::now();
        let mut c = Minute::new(t0);
        c.add(6);
        assert_eq!(used(&mut c, t0, 59), 6);
        // The next window: the 6 weigh in full at its start, 4 a third in, 1 at its last
        // second, none at its end.
        assert_eq!(used(&mut c, t0, 60), 6);
        assert_eq!(used(&mut c, t0, 80), 4);
        c.add(2);
        assert_eq!(used(&mut c, t0, 80), 6);
        assert_eq!(used(&mut c, t0, 119), 3);
        // Two windows on the 6 are gone and the 2 weigh in full.
        assert_eq!(used(&mut c, t0, 120), 2);
        assert_eq!(used(&mut c, t0, 150), 1);
        // After two whole windows nothing is carried.
        assert_eq!(used(&mut c, t0, 300), 0);
    }

    #[test]
    fn retry_names_the_first_second_the_count_is_under_the_limit() {
        let t0 = Instant::now();
        for (count, limit, now) in [(3, 3, 0), (6, 3, 30), (10, 5, 59), (5, 5, 61), (1, 1, 0)] {
            let mut c = Minute::new(t0);
            c.add(count);
            c.roll(at(t0, now));
            let wait = c.retry(at(t0, now), limit);
            let then = at(t0, now + wait);
            let mut later = c;
            later.roll(then);
            assert!(
                later.used(then) < limit,
                "{count} of {limit} at {now}: {wait}"
            );
            let before = at(t0, now + wait - 1);
            let mut earlier = c;
            earlier.roll(before);
            assert!(
                wait == 1 || earlier.used(before) >= limit,
                "{count} of {limit} at {now}: allowed before {wait}"
            );
        }
    }

    #[test]
    fn five_minutes_slide_as_one_does() {
        let t0 = Instant::now();
        let mut c = Sliding::<300>::new(t0);
        c.add(10);
        c.roll(at(t0, 300));
        assert_eq!(c.used(at(t0, 300)), 10);
        c.roll(at(t0, 450));
        assert_eq!(c.used(at(t0, 450)), 5);
        // Nine of ten allowed 330 s after the ten (a tenth into the next window).
        let fresh = Sliding::<300> {
            count: 10,
            ..Sliding::new(t0)
        };
        assert_eq!(fresh.retry(t0, 10), 330);
    }
}
