//! The rules of accounts that need no IO (issue 29): the sign-up modes of an instance, the
//! purposes of the one-time codes sent by e-mail, the languages messages are written in (chosen
//! from a request's `Accept-Language`), and the form of an e-mail address.

use serde::{Deserialize, Serialize};

/// Who may create an account on this instance (`SIGNUP_MODE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignupMode {
    /// Only an admin creates accounts (`POST /users`); the default.
    #[default]
    Closed,
    /// Only through an invitation an organiser sent.
    Invite,
    /// Anyone, with the e-mail address verified before the account can sign in.
    Open,
}

impl SignupMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Closed => "closed",
            Self::Invite => "invite",
            Self::Open => "open",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "closed" => Some(Self::Closed),
            "invite" => Some(Self::Invite),
            "open" => Some(Self::Open),
            _ => None,
        }
    }
}

/// Where a claim on a player stands: `open` until decided (`approved`, `refused`) or
/// `withdrawn` by its claimant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClaimStatus {
    Open,
    Approved,
    Refused,
    Withdrawn,
}

impl ClaimStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Approved => "approved",
            Self::Refused => "refused",
            Self::Withdrawn => "withdrawn",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "open" => Some(Self::Open),
            "approved" => Some(Self::Approved),
            "refused" => Some(Self::Refused),
            "withdrawn" => Some(Self::Withdrawn),
            _ => None,
        }
    }
}

/// What a one-time code sent by e-mail is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenPurpose {
    /// Proves the address of a new account (24 hours).
    Verify,
    /// Sets a new password (one hour).
    Reset,
    /// Confirms a new address its owner asked for (24 hours; issue 40, item 4).
    EmailChange,
}

impl TokenPurpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Verify => "verify",
            Self::Reset => "reset",
            Self::EmailChange => "email_change",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "verify" => Some(Self::Verify),
            "reset" => Some(Self::Reset),
            "email_change" => Some(Self::EmailChange),
            _ => None,
        }
    }

    /// How long a code is good for, in minutes.
    pub fn lifetime_minutes(self) -> i64 {
        match self {
            Self::Verify | Self::EmailChange => 24 * 60,
            Self::Reset => 60,
        }
    }

    /// The readable prefix of the code (`ev_` verification, `pr_` password reset, `ec_`
    /// address change).
    pub fn prefix(self) -> &'static str {
        match self {
            Self::Verify => "ev_",
            Self::Reset => "pr_",
            Self::EmailChange => "ec_",
        }
    }
}

/// The languages messages are written in: those of the seed communities (Norway, Poland,
/// Germany, Taiwan) and English.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Language {
    #[default]
    #[serde(rename = "en")]
    En,
    #[serde(rename = "nb")]
    Nb,
    #[serde(rename = "pl")]
    Pl,
    #[serde(rename = "de")]
    De,
    #[serde(rename = "zh-Hant")]
    ZhHant,
}

impl Language {
    pub const ALL: [Language; 5] = [Self::En, Self::Nb, Self::Pl, Self::De, Self::ZhHant];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::En => "en",
            Self::Nb => "nb",
            Self::Pl => "pl",
            Self::De => "de",
            Self::ZhHant => "zh-Hant",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.as_str() == s)
    }

    /// The language a BCP 47 tag asks for, if we write it: `nb`, `no` and `nn` (a Norwegian
    /// reads Bokmål) are Norwegian; `zh-Hant`, `zh-TW`, `zh-HK`, `zh-MO` and a bare `zh` are
    /// traditional Chinese (the only Chinese we write); `zh-Hans`/`zh-CN` are not served.
    fn of_tag(tag: &str) -> Option<Self> {
        let tag = tag.trim().to_ascii_lowercase();
        let mut parts = tag.split(['-', '_']);
        let primary = parts.next().unwrap_or("");
        let rest: Vec<&str> = parts.collect();
        match primary {
            "en" => Some(Self::En),
            "nb" | "no" | "nn" => Some(Self::Nb),
            "pl" => Some(Self::Pl),
            "de" => Some(Self::De),
            "zh" => {
                let simplified = rest.iter().any(|p| matches!(*p, "hans" | "cn" | "sg"));
                let traditional = rest
                    .iter()
                    .any(|p| matches!(*p, "hant" | "tw" | "hk" | "mo"));
                (traditional || !simplified).then_some(Self::ZhHant)
            }
            _ => None,
        }
    }

    /// The language an `Accept-Language` header prefers among ours (RFC 9110, section 12.5.4:
    /// the highest `q` wins, the first listed among equals; `q=0` refuses), English when it
    /// names none of them or is absent.
    pub fn from_accept_language(header: Option<&str>) -> Self {
        let Some(header) = header else {
            return Self::En;
        };
        let mut best: Option<(u16, Self)> = None;
        for item in header.split(',').take(50) {
            let mut parts = item.split(';');
            let tag = parts.next().unwrap_or("");
            let q = parts
                .find_map(|p| p.trim().strip_prefix("q=").map(str::to_string))
                .map_or(Some(1000), |q| {
                    q.trim()
                        .parse::<f32>()
                        .ok()
                        .map(|v| (v.clamp(0.0, 1.0) * 1000.0) as u16)
                });
            let (Some(q), Some(lang)) = (q, Self::of_tag(tag)) else {
                continue;
            };
            if q > 0 && best.is_none_or(|(b, _)| q > b) {
                best = Some((q, lang));
            }
        }
        best.map_or(Self::En, |(_, l)| l)
    }
}

/// An e-mail address as stored: trimmed, in the form `local@domain` (one `@`, no spaces or
/// control characters, a domain with a dot, at most 254 characters, RFC 5321's limit). The
/// case is kept (the local part may be case-sensitive); uniqueness ignores it.
pub fn normalise_email(input: &str) -> Option<String> {
    let email = input.trim();
    let (local, domain) = email.split_once('@')?;
    let ok = email.len() <= 254
        && !local.is_empty()
        && local.len() <= 64
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !email.chars().any(|c| {
            c.is_whitespace() || c.is_control() || matches!(c, '<' | '>' | ',' | ';' | '"')
        });
    ok.then(|| email.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preferred_language_is_chosen_by_quality_then_order() {
        let pick = |h: &str| Language::from_accept_language(Some(h));
        assert_eq!(pick("nb-NO,nb;q=0.9,en;q=0.8"), Language::Nb);
        assert_eq!(pick("no"), Language::Nb);
        assert_eq!(pick("nn-NO"), Language::Nb);
        assert_eq!(pick("fr-FR, pl;q=0.5, de;q=0.7"), Language::De);
        assert_eq!(pick("zh-TW"), Language::ZhHant);
        assert_eq!(pick("zh-Hant-TW;q=0.9"), Language::ZhHant);
        assert_eq!(pick("zh-CN"), Language::En);
        assert_eq!(pick("zh-Hans, pl;q=0.1"), Language::Pl);
        assert_eq!(pick("de;q=0, pl;q=0.2"), Language::Pl);
        assert_eq!(pick("fr, it"), Language::En);
        assert_eq!(pick("de;q=nonsense, pl"), Language::Pl);
        assert_eq!(Language::from_accept_language(None), Language::En);
        for l in Language::ALL {
            assert_eq!(Language::parse(l.as_str()), Some(l));
        }
    }

    #[test]
    fn addresses_have_one_at_and_a_dotted_domain() {
        assert_eq!(
            normalise_email("  Kari@Example.no "),
            Some("Kari@Example.no".into())
        );
        for bad in [
            "",
            "kari",
            "kari@",
            "@example.no",
            "kari@no",
            "ka ri@example.no",
            "a@b@c.no",
            "kari@example.no.",
            "<kari@example.no>",
        ] {
            assert_eq!(normalise_email(bad), None, "{bad}");
        }
        assert_eq!(
            normalise_email(&format!("{}@example.no", "a".repeat(65))),
            None
        );
    }

    #[test]
    fn modes_and_purposes_read_back() {
        for m in [SignupMode::Closed, SignupMode::Invite, SignupMode::Open] {
            assert_eq!(SignupMode::parse(m.as_str()), Some(m));
        }
        assert_eq!(SignupMode::default(), SignupMode::Closed);
        for p in [
            TokenPurpose::Verify,
            TokenPurpose::Reset,
            TokenPurpose::EmailChange,
        ] {
            assert_eq!(TokenPurpose::parse(p.as_str()), Some(p));
        }
        assert!(TokenPurpose::Reset.lifetime_minutes() == 60);
    }
}
