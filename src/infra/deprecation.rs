//! The deprecated forms of the API (docs/API-DESIGN.md, "Deprecation and sunset"): each is
//! marked `deprecated` in the document (`api::document`), answered with `Deprecation`
//! (RFC 9745), `Sunset` (RFC 8594) and `Link: </changelog>; rel="deprecation"` headers
//! (`api::support::deprecated_form`), and counted per credential in
//! `tourney_deprecated_requests_total` (`infra::metrics`) so an operator sees who still uses
//! it before the sunset. A form is removed only in a new major version, after its sunset.

use chrono::{DateTime, Utc};

/// Where the changelog is served (`GET /changelog`); the `Link` of every deprecated answer.
pub const CHANGELOG_PATH: &str = "/changelog";

/// One deprecated form of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deprecation {
    /// A stable name: the metric's `form` label.
    pub form: &'static str,
    /// The operations (`operationId`) that still answer the form.
    pub operations: &'static [&'static str],
    /// The deprecated query parameter, if the form is one (otherwise the operations as a
    /// whole are deprecated).
    pub parameter: Option<&'static str>,
    /// When it was deprecated (Unix seconds): the `Deprecation` header's `@` date.
    pub since: i64,
    /// When it may stop being answered (Unix seconds): the `Sunset` header.
    pub sunset: i64,
    /// What to do instead, for the document and the changelog.
    pub instead: &'static str,
}

/// `?format=csv` and `Accept: text/csv` on the JSON list operations, which answer CSV as before
/// the CSV had operations of its own (`.../standings.csv`, `.../leaderboard.csv`,
/// `.../league.csv`). Deprecated with 1.0.0 (2026-11-26), sunset 2027-06-01.
pub const CSV_ON_JSON_PATHS: Deprecation = Deprecation {
    form: "csv_on_json_paths",
    operations: &["read_standings", "read_leaderboard", "read_league_table"],
    parameter: Some("format"),
    since: 1_795_651_200,
    sunset: 1_811_808_000,
    instead: "Read the CSV from the operation of its own (the same path with `.csv`: \
              `/standings.csv`, `/leaderboard.csv`, `/league.csv`); `format=csv` and \
              `Accept: text/csv` on the JSON path are answered until the sunset.",
};

/// Every deprecated form the service answers today.
pub const ALL: &[Deprecation] = &[CSV_ON_JSON_PATHS];

fn http_date(unix: i64) -> String {
    DateTime::<Utc>::from_timestamp(unix, 0)
        .unwrap_or_default()
        .format("%a, %d %b %Y %H:%M:%S GMT")
        .to_string()
}

impl Deprecation {
    /// The `Deprecation` header's value (RFC 9745): `@` and the Unix time.
    pub fn deprecation_header(&self) -> String {
        format!("@{}", self.since)
    }

    /// The `Sunset` header's value (RFC 8594): an HTTP date.
    pub fn sunset_header(&self) -> String {
        http_date(self.sunset)
    }

    /// The `Link` to the changelog, relation `deprecation` (RFC 9745).
    pub fn link_header(&self) -> String {
        format!("<{CHANGELOG_PATH}>; rel=\"deprecation\"; type=\"text/markdown\"")
    }

    /// The sunset as a date (`2027-06-01`), for descriptions.
    pub fn sunset_date(&self) -> String {
        DateTime::<Utc>::from_timestamp(self.sunset, 0)
            .unwrap_or_default()
            .format("%Y-%m-%d")
            .to_string()
    }
}

/// The `credential` label of a deprecated request: whose it was, never a secret (`user:<id>`
/// for a session, `key:<id>` for an API key, `anonymous`).
pub fn credential_label(user_id: Option<i64>, key_id: Option<i64>) -> String {
    match (user_id, key_id) {
        (_, Some(key)) => format!("key:{key}"),
        (Some(user), None) => format!("user:{user}"),
        (None, None) => "anonymous".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_follow_the_rfcs() {
        let d = CSV_ON_JSON_PATHS;
        assert_eq!(d.deprecation_header(), "@1795651200");
        assert_eq!(d.sunset_header(), "Tue, 01 Jun 2027 00:00:00 GMT");
        assert_eq!(d.sunset_date(), "2027-06-01");
        assert_eq!(
            d.link_header(),
            "</changelog>; rel=\"deprecation\"; type=\"text/markdown\""
        );
    }

    #[test]
    fn sunset_is_at_least_six_months_after_the_deprecation() {
        for d in ALL {
            assert!(d.sunset - d.since >= 182 * 86_400, "{}", d.form);
        }
    }

    #[test]
    fn credential_labels_name_ids_only() {
        assert_eq!(credential_label(Some(7), Some(3)), "key:3");
        assert_eq!(credential_label(Some(7), None), "user:7");
        assert_eq!(credential_label(None, None), "anonymous");
    }
}
