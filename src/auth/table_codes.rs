//! The short table codes printed on the result slips (issue 41, item 2) and the signed links
//! to the slips page: both are HMAC-SHA256 of what they stand for under a key derived from the
//! server's secret, so nothing is stored, a slip can be printed again with the same code, and a
//! code names exactly one round (its id and draw) and one table.
//!
//! A code is 10 characters of Crockford's base 32 (50 bits): guessing one in a round that is
//! open a few hours, with the throttle on failed codes (`infra::throttle`, ten failures per
//! table and address and fifty per address in five minutes), is hopeless (see
//! `docs/decisions/table-codes.md` for the arithmetic).

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// Crockford's base 32: digits and capitals without I, L, O, U (read as 1, 1, 0 and refused).
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/// Characters in a table code (5 bits each).
pub const CODE_LEN: usize = 10;

/// The key the codes and slip links are made with.
#[derive(Clone)]
pub struct HallKeys {
    key: [u8; 32],
    /// `PUBLIC_BASE_URL`: where the slips' QR codes lead (else the host the organiser's
    /// browser reached).
    public_base: Option<String>,
}

impl std::fmt::Debug for HallKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HallKeys(<secret>)")
    }
}

impl HallKeys {
    /// Keys derived from the server's secret (the JWT secret), apart from every other use of it.
    pub fn derived(secret: &[u8]) -> Self {
        let mut h = Sha256::new();
        h.update(b"tourney hall table codes v1\0");
        h.update(secret);
        HallKeys {
            key: h.finalize().into(),
            public_base: None,
        }
    }

    /// The same keys, the QR codes leading to `base` (`PUBLIC_BASE_URL`, checked at start by
    /// the mail links' settings) when it is given.
    pub fn with_public_base(mut self, base: Option<&str>) -> Self {
        self.public_base = base
            .map(|b| b.trim().trim_end_matches('/').to_string())
            .filter(|b| !b.is_empty());
        self
    }

    /// `PUBLIC_BASE_URL`, if set.
    pub fn public_base(&self) -> Option<&str> {
        self.public_base.as_deref()
    }

    fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).expect("any key length");
        for p in parts {
            mac.update(&(p.len() as u32).to_be_bytes());
            mac.update(p);
        }
        mac.finalize().into_bytes().into()
    }

    /// The code of `table` in the round with id `round` as drawn the `draw`-th time, as printed
    /// (`ABCDE-FGHJK`).
    pub fn table_code(&self, round: i64, draw: i32, table: i32) -> String {
        let raw = self.raw_code(round, draw, table);
        format!("{}-{}", &raw[..5], &raw[5..])
    }

    fn raw_code(&self, round: i64, draw: i32, table: i32) -> String {
        let mac = self.mac(&[
            b"table",
            &round.to_be_bytes(),
            &draw.to_be_bytes(),
            &table.to_be_bytes(),
        ]);
        let mut bits = u64::from_be_bytes(mac[..8].try_into().expect("8 bytes"));
        let mut out = String::with_capacity(CODE_LEN);
        for _ in 0..CODE_LEN {
            out.push(ALPHABET[(bits >> 59) as usize] as char);
            bits <<= 5;
        }
        out
    }

    /// Whether `given` is that table's code (case, spaces, hyphens and the letters read as
    /// digits forgiven), compared in constant time.
    pub fn is_table_code(&self, round: i64, draw: i32, table: i32, given: &str) -> bool {
        let Some(given) = normalise(given) else {
            return false;
        };
        same(
            given.as_bytes(),
            self.raw_code(round, draw, table).as_bytes(),
        )
    }

    /// The key of a link to a round's slips taken by the account `by`, valid until `until`
    /// (seconds since the epoch).
    pub fn slips_key(&self, round: i64, draw: i32, by: i64, until: i64) -> String {
        let mac = self.mac(&[
            b"slips",
            &round.to_be_bytes(),
            &draw.to_be_bytes(),
            &by.to_be_bytes(),
            &until.to_be_bytes(),
        ]);
        hex::encode(&mac[..20])
    }

    /// Whether `given` is the key of that link.
    pub fn is_slips_key(&self, round: i64, draw: i32, by: i64, until: i64, given: &str) -> bool {
        same(
            given.as_bytes(),
            self.slips_key(round, draw, by, until).as_bytes(),
        )
    }
}

/// A code as typed, in the printed alphabet without its hyphen; `None` when it cannot be one.
pub fn normalise(given: &str) -> Option<String> {
    let mut out = String::with_capacity(CODE_LEN);
    for c in given.chars() {
        let c = match c.to_ascii_uppercase() {
            ' ' | '-' => continue,
            'O' => '0',
            'I' | 'L' => '1',
            c if ALPHABET.contains(&(c as u8)) && c.is_ascii() => c,
            _ => return None,
        };
        if out.len() == CODE_LEN {
            return None;
        }
        out.push(c);
    }
    (out.len() == CODE_LEN).then_some(out)
}

/// Equal bytes, in time that depends only on the lengths.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_names_one_round_draw_and_table() {
        let k = HallKeys::derived(b"a secret of at least thirty-two bytes!!");
        let code = k.table_code(7, 1, 3);
        assert_eq!(code.len(), CODE_LEN + 1);
        assert!(k.is_table_code(7, 1, 3, &code));
        assert!(k.is_table_code(7, 1, 3, &code.to_lowercase().replace('-', " ")));
        assert!(!k.is_table_code(7, 1, 4, &code), "another table");
        assert!(!k.is_table_code(8, 1, 3, &code), "another round");
        assert!(!k.is_table_code(7, 2, 3, &code), "a redraw");
        assert!(!k.is_table_code(7, 1, 3, &code[..9]), "too short");
        assert!(!k.is_table_code(7, 1, 3, &format!("{code}0")), "too long");
        assert!(!k.is_table_code(7, 1, 3, "ÅÅÅÅÅ-ÅÅÅÅÅ"));
        let other = HallKeys::derived(b"another secret of at least thirty-two bytes");
        assert!(!other.is_table_code(7, 1, 3, &code), "another server");
    }

    #[test]
    fn confusable_letters_read_as_digits() {
        assert_eq!(normalise("oil-0i1l 23z").as_deref(), Some("011011123Z"));
        assert_eq!(normalise("UUUUUUUUUU"), None);
    }

    #[test]
    fn a_slips_key_names_its_round_draw_taker_and_expiry() {
        let k = HallKeys::derived(b"a secret of at least thirty-two bytes!!");
        let key = k.slips_key(7, 1, 3, 1_800_000_000);
        assert!(k.is_slips_key(7, 1, 3, 1_800_000_000, &key));
        assert!(!k.is_slips_key(7, 1, 3, 1_800_000_001, &key));
        assert!(!k.is_slips_key(6, 1, 3, 1_800_000_000, &key));
        assert!(!k.is_slips_key(7, 1, 4, 1_800_000_000, &key));
    }
}
