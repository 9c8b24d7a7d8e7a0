//! Exact tournament points.
//!
//! Source: issue 3 "Exactness" and domain.md section 5: three players sharing first get
//! (10+6+3)/3 = 6.33 TP each, yet the table still hands out exactly 20 TP. [`Points`] is an exact
//! rational (numerator/denominator, normalised by gcd) so such shares add up; values are rounded
//! only for display, to two decimals.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::Ordering;
use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};
use std::str::FromStr;

/// An exact rational number of points (TP, relative score, weights, tie-break values).
///
/// JSON: serialised as a number rounded to two decimals (`6.33`); use [`Points::exact`] for the
/// exact `"19/3"` form. Deserialises from a JSON number (`1.25`), an integer, or a string holding
/// either a decimal (`"1.25"`) or a fraction (`"19/3"`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Points {
    num: i64,
    den: i64,
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

impl Points {
    /// Zero points.
    pub const ZERO: Points = Points { num: 0, den: 1 };
    /// One point.
    pub const ONE: Points = Points { num: 1, den: 1 };

    /// `num / den`, or `None` when `den` is zero or the value does not fit.
    pub fn new(num: i64, den: i64) -> Option<Points> {
        if den == 0 {
            return None;
        }
        Self::from_i128(num as i128, den as i128)
    }

    fn from_i128(num: i128, den: i128) -> Option<Points> {
        if den == 0 {
            return None;
        }
        let g = gcd(num, den).max(1);
        let (mut n, mut d) = (num / g, den / g);
        if d < 0 {
            n = -n;
            d = -d;
        }
        Some(Points {
            num: i64::try_from(n).ok()?,
            den: i64::try_from(d).ok()?,
        })
    }

    fn from_i128_or_panic(num: i128, den: i128) -> Points {
        // Internal invariant: tournament values stay far below i64 range.
        Self::from_i128(num, den).expect("Points arithmetic overflow")
    }

    /// A whole number of points.
    pub const fn int(n: i64) -> Points {
        Points { num: n, den: 1 }
    }

    /// The numerator of the normalised fraction.
    pub fn numer(self) -> i64 {
        self.num
    }

    /// The (positive) denominator of the normalised fraction.
    pub fn denom(self) -> i64 {
        self.den
    }

    /// The value divided by a positive whole number (used for shared places).
    pub fn div_int(self, d: i64) -> Points {
        assert!(d != 0, "Points::div_int(0)");
        Self::from_i128_or_panic(self.num as i128, self.den as i128 * d as i128)
    }

    /// The value as a float (for display or statistics only).
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// The value in hundredths, rounded half away from zero (the display rounding).
    pub fn hundredths(self) -> i64 {
        let n = self.num as i128 * 100;
        let d = self.den as i128;
        let q = (2 * n.abs() + d) / (2 * d);
        (if n < 0 { -q } else { q }) as i64
    }

    /// The value rounded to two decimals as a float (what JSON shows).
    pub fn rounded(self) -> f64 {
        self.hundredths() as f64 / 100.0
    }

    /// The exact value as `"n/d"` (or `"n"` for whole numbers).
    pub fn exact(self) -> String {
        if self.den == 1 {
            self.num.to_string()
        } else {
            format!("{}/{}", self.num, self.den)
        }
    }

    /// True when the value is below zero.
    pub fn is_negative(self) -> bool {
        self.num < 0
    }
}

impl Default for Points {
    fn default() -> Self {
        Points::ZERO
    }
}

impl From<i64> for Points {
    fn from(n: i64) -> Self {
        Points::int(n)
    }
}

impl Ord for Points {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.num as i128 * other.den as i128).cmp(&(other.num as i128 * self.den as i128))
    }
}

impl PartialOrd for Points {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Add for Points {
    type Output = Points;
    fn add(self, o: Points) -> Points {
        if self.den == o.den {
            return Self::from_i128_or_panic(self.num as i128 + o.num as i128, self.den as i128);
        }
        Self::from_i128_or_panic(
            self.num as i128 * o.den as i128 + o.num as i128 * self.den as i128,
            self.den as i128 * o.den as i128,
        )
    }
}

impl Sub for Points {
    type Output = Points;
    fn sub(self, o: Points) -> Points {
        self + (-o)
    }
}

impl Neg for Points {
    type Output = Points;
    fn neg(self) -> Points {
        Points {
            num: -self.num,
            den: self.den,
        }
    }
}

impl Mul for Points {
    type Output = Points;
    fn mul(self, o: Points) -> Points {
        Self::from_i128_or_panic(
            self.num as i128 * o.num as i128,
            self.den as i128 * o.den as i128,
        )
    }
}

impl AddAssign for Points {
    fn add_assign(&mut self, o: Points) {
        *self = *self + o;
    }
}

impl SubAssign for Points {
    fn sub_assign(&mut self, o: Points) {
        *self = *self - o;
    }
}

impl Sum for Points {
    fn sum<I: Iterator<Item = Points>>(iter: I) -> Points {
        iter.fold(Points::ZERO, |a, b| a + b)
    }
}

impl<'a> Sum<&'a Points> for Points {
    fn sum<I: Iterator<Item = &'a Points>>(iter: I) -> Points {
        iter.fold(Points::ZERO, |a, b| a + *b)
    }
}

impl fmt::Display for Points {
    /// Two decimals, rounded half away from zero: `6.33`, `12.50`, `-0.75`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = self.hundredths();
        let sign = if h < 0 { "-" } else { "" };
        write!(f, "{sign}{}.{:02}", h.abs() / 100, h.abs() % 100)
    }
}

impl fmt::Debug for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Points({})", self.exact())
    }
}

/// Why a text could not be read as [`Points`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsePointsError(pub String);

impl fmt::Display for ParsePointsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a number of points: {:?}", self.0)
    }
}

impl std::error::Error for ParsePointsError {}

impl FromStr for Points {
    type Err = ParsePointsError;

    /// Reads `"12"`, `"-0.75"`, `"1.25"` or `"19/3"` exactly.
    fn from_str(s: &str) -> Result<Points, ParsePointsError> {
        let err = || ParsePointsError(s.to_string());
        let t = s.trim();
        if let Some((n, d)) = t.split_once('/') {
            let n: i64 = n.trim().parse().map_err(|_| err())?;
            let d: i64 = d.trim().parse().map_err(|_| err())?;
            return Points::new(n, d).ok_or_else(err);
        }
        let (neg, body) = match t.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let (int_part, frac_part) = body.split_once('.').unwrap_or((body, ""));
        if int_part.is_empty() && frac_part.is_empty()
            || !int_part.chars().all(|c| c.is_ascii_digit())
            || !frac_part.chars().all(|c| c.is_ascii_digit())
            || frac_part.len() > 12
        {
            return Err(err());
        }
        let digits = format!("{int_part}{frac_part}");
        let n: i128 = if digits.is_empty() {
            0
        } else {
            digits.parse().map_err(|_| err())?
        };
        let d: i128 = 10i128.pow(frac_part.len() as u32);
        Points::from_i128(if neg { -n } else { n }, d).ok_or_else(err)
    }
}

impl Serialize for Points {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.rounded())
    }
}

impl<'de> Deserialize<'de> for Points {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Points, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(i64),
            Float(f64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Int(i) => Ok(Points::int(i)),
            Raw::Float(f) => {
                if !f.is_finite() {
                    return Err(serde::de::Error::custom("points must be finite"));
                }
                // The shortest decimal text of the float is what the sender wrote.
                format!("{f}").parse().map_err(serde::de::Error::custom)
            }
            Raw::Text(t) => t.parse().map_err(serde::de::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn thirds_add_up_and_display_rounds() {
        let share = Points::int(19).div_int(3);
        assert_eq!(share.to_string(), "6.33");
        assert_eq!(share + share + share, Points::int(19));
        assert_eq!(Points::new(-3, 4).unwrap().to_string(), "-0.75");
        assert_eq!(Points::new(5, 4).unwrap().to_string(), "1.25");
        assert_eq!(Points::new(1, 200).unwrap().to_string(), "0.01");
        assert_eq!(Points::new(-1, 200).unwrap().to_string(), "-0.01");
    }

    #[test]
    fn parse_and_json() {
        assert_eq!(
            "1.25".parse::<Points>().unwrap(),
            Points::new(5, 4).unwrap()
        );
        assert_eq!(
            "19/3".parse::<Points>().unwrap(),
            Points::int(19).div_int(3)
        );
        assert_eq!(
            "-.5".parse::<Points>().unwrap(),
            Points::new(-1, 2).unwrap()
        );
        assert!("abc".parse::<Points>().is_err());
        assert!("1/0".parse::<Points>().is_err());
        let p: Points = serde_json::from_str("12.5").unwrap();
        assert_eq!(p, Points::new(25, 2).unwrap());
        let p: Points = serde_json::from_str("\"19/3\"").unwrap();
        assert_eq!(serde_json::to_string(&p).unwrap(), "6.33");
        let p: Points = serde_json::from_str("7").unwrap();
        assert_eq!(p, Points::int(7));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        #[test]
        fn arithmetic_is_exact(a in -1000i64..1000, b in 1i64..50, c in -1000i64..1000, d in 1i64..50) {
            let x = Points::new(a, b).unwrap();
            let y = Points::new(c, d).unwrap();
            prop_assert_eq!(x + y - y, x);
            prop_assert_eq!((x + y).cmp(&x), y.cmp(&Points::ZERO));
            prop_assert_eq!(x.div_int(d) * Points::int(d), x);
        }
    }
}
