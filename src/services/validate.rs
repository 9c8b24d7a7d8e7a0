//! Checks of plain input shared by every use case: texts, ranges, country codes, pagination.
//! A failed check is a 422 naming every field at fault.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::error::{ApiError, FieldError};

/// The furthest `offset` any list takes: deeper pages of the lists that grow without bound
/// are reached with `cursor` (the `next` link), which costs the same on every page.
pub const MAX_OFFSET: i64 = 10_000;

/// Up to how many items a keyset list counts exactly; beyond it `total` is this bound and
/// `total_exact` is false (counting a million rows on every page is what made lists slow).
pub const COUNT_CAP: i64 = 1_000;

/// `?limit=&offset=` on every list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PageParams {
    /// How many items (1-200, default 50).
    #[param(minimum = 1, maximum = 200, example = 50)]
    pub limit: Option<i64>,
    /// How many items to skip (default 0, at most 10000).
    #[param(minimum = 0, maximum = 10000, example = 0)]
    pub offset: Option<i64>,
}

impl PageParams {
    /// The checked `(limit, offset)`.
    pub fn resolve(&self) -> Result<(i64, i64), ApiError> {
        let limit = self.limit.unwrap_or(50);
        let offset = self.offset.unwrap_or(0);
        let mut errors = Vec::new();
        if !(1..=200).contains(&limit) {
            errors.push(FieldError::new("limit", "must be between 1 and 200"));
        }
        if !(0..=MAX_OFFSET).contains(&offset) {
            errors.push(FieldError::new(
                "offset",
                format!(
                    "must be between 0 and {MAX_OFFSET}; follow the next link (cursor) for later pages"
                ),
            ));
        }
        if errors.is_empty() {
            Ok((limit, offset))
        } else {
            Err(ApiError::Validation(errors))
        }
    }
}

/// `?limit=&offset=&cursor=` of a keyset list without filters of its own.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct CursorParams {
    /// How many items (1-200, default 50).
    #[param(minimum = 1, maximum = 200, example = 50)]
    pub limit: Option<i64>,
    /// How many items to skip (default 0, at most 10000; later pages through `cursor`).
    #[param(minimum = 0, maximum = 10000, example = 0)]
    pub offset: Option<i64>,
    /// Where the page starts: the `next_cursor` of the page before (also in its `next` link),
    /// valid for that list only.
    #[param(max_length = 1000)]
    pub cursor: Option<String>,
}

impl CursorParams {
    /// [`keyset_start`] of these parameters.
    pub fn start<K: serde::de::DeserializeOwned>(
        &self,
        list: &str,
        scope: &str,
    ) -> Result<(i64, Start<K>), ApiError> {
        keyset_start(self.limit, self.offset, self.cursor.as_deref(), list, scope)
    }
}

/// One page of a list.
#[derive(Debug, Serialize, ToSchema)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// How many items the whole list holds.
    pub total: i64,
    pub limit: i64,
    /// How many items come before this page (0 on a page reached by `cursor`).
    pub offset: i64,
    /// Lists that grow without bound: the cursor of the next page (also in the `next` link);
    /// absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Lists that grow without bound: whether `total` is exact. They count up to 1000 items;
    /// when more match, `total` is 1000 and this is false (a lower bound). Also false where
    /// the list was not counted (`count=false`): `total` is then what the pages show.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_exact: Option<bool>,
}

/// Where a page starts and how long it is: `(offset, limit)`.
pub type PageAt = (i64, i64);

impl<T> Page<T> {
    /// The page `params` ask for, cut from a whole list held in memory.
    pub fn window(all: Vec<T>, params: &PageParams) -> Result<Page<T>, ApiError> {
        let (limit, offset) = params.resolve()?;
        let total = all.len() as i64;
        let items = all
            .into_iter()
            .skip(offset as usize)
            .take(limit as usize)
            .collect();
        Ok(Page::new(items, total, limit, offset))
    }

    /// A page read in SQL: `params` checked, `count` the whole list (a cheap `count(*)`), then
    /// `load(limit, offset)` its items (`ORDER BY` ending in the id, `LIMIT`/`OFFSET`); no
    /// items are read when the page starts past the end.
    pub fn read<C, E: Into<ApiError>>(
        conn: &mut C,
        params: &PageParams,
        count: impl FnOnce(&mut C) -> Result<i64, E>,
        load: impl FnOnce(&mut C, i64, i64) -> Result<Vec<T>, E>,
    ) -> Result<Page<T>, ApiError> {
        let (limit, offset) = params.resolve()?;
        let total = count(conn).map_err(Into::into)?;
        let items = if offset < total {
            load(conn, limit, offset).map_err(Into::into)?
        } else {
            Vec::new()
        };
        Ok(Page::new(items, total, limit, offset))
    }

    /// The page's items turned into another type (rendered), in order.
    pub fn try_map<U, E>(self, f: impl FnMut(T) -> Result<U, E>) -> Result<Page<U>, E> {
        let items = self
            .items
            .into_iter()
            .map(f)
            .collect::<Result<Vec<U>, E>>()?;
        Ok(Page {
            items,
            total: self.total,
            limit: self.limit,
            offset: self.offset,
            next_cursor: self.next_cursor,
            total_exact: self.total_exact,
        })
    }

    /// A page of a list counted in full (no cursor).
    pub fn new(items: Vec<T>, total: i64, limit: i64, offset: i64) -> Page<T> {
        Page {
            items,
            total,
            limit,
            offset,
            next_cursor: None,
            total_exact: None,
        }
    }

    /// A whole list as one page (what a write that changes the list answers).
    pub fn whole(all: Vec<T>) -> Page<T> {
        let total = all.len() as i64;
        Page::new(all, total, total.max(1), 0)
    }

    /// The `(offset, limit)` of the next and the previous page, where there is one.
    /// (A keyset list's next page is its cursor, not an offset.)
    pub fn neighbours(&self) -> (Option<PageAt>, Option<PageAt>) {
        let next = (self.total_exact.is_none() && self.offset + self.limit < self.total)
            .then_some((self.offset + self.limit, self.limit));
        let prev = (self.offset > 0).then_some(((self.offset - self.limit).max(0), self.limit));
        (next, prev)
    }
}

/// Where a keyset list's page starts: at `offset` (within [`MAX_OFFSET`]) or after the item
/// a cursor names.
#[derive(Debug)]
pub enum Start<K> {
    Offset(i64),
    After(K),
}

/// The checked page of a keyset list: its limit and start. `list` names the list and `scope`
/// the query (filters and sort), so a cursor is refused on another list or another query; the
/// keys are decoded as `K`. Every fault is a 422 naming `limit`, `offset` or `cursor`.
pub fn keyset_start<K: serde::de::DeserializeOwned>(
    limit: Option<i64>,
    offset: Option<i64>,
    cursor: Option<&str>,
    list: &str,
    scope: &str,
) -> Result<(i64, Start<K>), ApiError> {
    let (limit, offset_at) = PageParams { limit, offset }.resolve()?;
    let Some(cursor) = cursor else {
        return Ok((limit, Start::Offset(offset_at)));
    };
    if offset.is_some() {
        return Err(ApiError::field(
            "offset",
            "give either offset or cursor, not both",
        ));
    }
    Ok((limit, Start::After(cursor::decode(cursor, list, scope)?)))
}

/// How a keyset list finds its length: a closure counting it up to [`COUNT_CAP`] + 1, or
/// `None` where the caller asked not to count it (`count=false`: a search as someone types
/// needs the first names, not how many match).
pub trait Count {
    /// The count, or `None` where the list is not counted.
    fn count(self) -> Result<Option<i64>, ApiError>;
}

impl<F: FnOnce() -> Result<i64, ApiError>> Count for F {
    fn count(self) -> Result<Option<i64>, ApiError> {
        self().map(Some)
    }
}

impl<F: FnOnce() -> Result<i64, ApiError>> Count for Option<F> {
    fn count(self) -> Result<Option<i64>, ApiError> {
        self.map_or(Ok(None), |f| f().map(Some))
    }
}

/// Builds a keyset list's page from up to `limit + 1` rows: the extra row only tells that a
/// next page exists; its cursor names the last item shown (`key_of`). `count` counts the
/// whole list up to [`COUNT_CAP`] + 1; a first page that holds the whole list is its own
/// count (a search with a few hits costs one query). Not counted (`count` is `None`), `total`
/// is what the rows show, a lower bound (`total_exact` false): the items before the page,
/// its own, and one more where a next page exists; 0 where the page is empty.
#[allow(clippy::too_many_arguments)]
pub fn keyset_page<R, T, K: Serialize>(
    mut rows: Vec<R>,
    limit: i64,
    (offset, first): (i64, bool),
    count: impl Count,
    list: &str,
    scope: &str,
    key_of: impl Fn(&R) -> K,
    out: impl FnMut(R) -> Result<T, ApiError>,
) -> Result<Page<T>, ApiError> {
    let more = rows.len() as i64 > limit;
    let counted = if first && offset == 0 && !more {
        Some(rows.len() as i64)
    } else {
        count.count()?
    };
    let (total, total_exact) = match counted {
        Some(n) => (n.min(COUNT_CAP), n <= COUNT_CAP),
        // A page past the end shows nothing of what comes before it.
        None if rows.is_empty() => (0, false),
        None => ((offset + rows.len() as i64).min(COUNT_CAP), false),
    };
    rows.truncate(limit as usize);
    let next_cursor = match rows.last() {
        Some(last) if more => Some(cursor::encode(&key_of(last), list, scope)?),
        _ => None,
    };
    Ok(Page {
        items: rows.into_iter().map(out).collect::<Result<Vec<_>, _>>()?,
        total,
        limit,
        offset,
        next_cursor,
        total_exact: Some(total_exact),
    })
}

/// Opaque cursors: the sort keys of the last item shown, as JSON in base64url, and a check
/// over them, the list and the query. Not a secret (the keys are what the page shows); the
/// check refuses a cursor that was altered, cut, or taken to another list or query.
pub mod cursor {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    use serde::{de::DeserializeOwned, Serialize};
    use sha2::{Digest, Sha256};

    use crate::error::ApiError;

    fn check(payload: &[u8], list: &str, scope: &str) -> String {
        let mut h = Sha256::new();
        h.update(b"tourney cursor v1\n");
        h.update(list.as_bytes());
        h.update(b"\n");
        h.update(scope.as_bytes());
        h.update(b"\n");
        h.update(payload);
        hex::encode(&h.finalize()[..8])
    }

    /// The cursor after an item with these sort keys.
    pub fn encode<K: Serialize>(keys: &K, list: &str, scope: &str) -> Result<String, ApiError> {
        let payload = serde_json::to_vec(keys).map_err(|e| ApiError::Internal(e.to_string()))?;
        Ok(format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(&payload),
            check(&payload, list, scope)
        ))
    }

    /// The sort keys a cursor names; 422 naming `cursor` when it is not one this list and
    /// query made.
    pub fn decode<K: DeserializeOwned>(
        cursor: &str,
        list: &str,
        scope: &str,
    ) -> Result<K, ApiError> {
        let bad = |why: &str| ApiError::field("cursor", why.to_string());
        let (body, tag) = cursor.split_once('.').ok_or_else(|| {
            bad("is not a cursor this service made; follow the next link as given")
        })?;
        let payload = URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| bad("is not a cursor this service made; follow the next link as given"))?;
        if tag != check(&payload, list, scope) {
            return Err(bad(
                "was altered, or belongs to another list or other filters; follow the next link as given",
            ));
        }
        serde_json::from_slice(&payload)
            .map_err(|_| bad("is not a cursor of this list; follow the next link as given"))
    }
}

/// Collects field errors, then answers them all at once.
#[derive(Debug, Default)]
pub struct Check {
    errors: Vec<FieldError>,
}

impl Check {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an error.
    pub fn fail(&mut self, field: &str, message: impl Into<String>) {
        self.errors.push(FieldError::new(field, message));
    }

    /// Whether an error names `field` already.
    pub fn failed(&self, field: &str) -> bool {
        self.errors.iter().any(|e| e.field == field)
    }

    /// Adds an error unless `ok`.
    pub fn ensure(&mut self, ok: bool, field: &str, message: impl Into<String>) {
        if !ok {
            self.fail(field, message);
        }
    }

    /// A required text: trimmed, 1..=max characters, no control characters. Returns it trimmed.
    pub fn text(&mut self, field: &str, value: &str, max: usize) -> String {
        // Length and characters are checked on the value as sent (what the schema states);
        // surrounding spaces are then trimmed off.
        let v = value.trim();
        if v.is_empty() {
            self.fail(field, "must not be empty");
        } else if value.chars().count() > max {
            self.fail(field, format!("must be at most {max} characters"));
        } else if value.chars().any(char::is_control) {
            self.fail(field, "must not contain control characters");
        }
        v.to_string()
    }

    /// An optional text: absent means none; when present it must be a valid [`Check::text`]
    /// (null, not a blank string, clears a field).
    pub fn optional_text(
        &mut self,
        field: &str,
        value: Option<&str>,
        max: usize,
    ) -> Option<String> {
        Some(self.text(field, value?, max))
    }

    /// A search text ([`SEARCH_PATTERN`]): blank means no filter.
    pub fn search_text(&mut self, field: &str, value: Option<&str>, max: usize) -> Option<String> {
        let value = value?;
        if value.trim().is_empty() && !value.chars().any(char::is_control) {
            return None;
        }
        Some(self.text(field, value, max))
    }

    /// An integer within `min..=max`.
    pub fn range(&mut self, field: &str, value: i64, min: i64, max: i64) {
        if !(min..=max).contains(&value) {
            self.fail(field, format!("must be between {min} and {max}"));
        }
    }

    /// An IANA time zone name such as `Europe/Oslo`; returns it trimmed.
    pub fn time_zone(&mut self, field: &str, tz: &str) -> String {
        let tz = tz.trim();
        if tz.parse::<chrono_tz::Tz>().is_err() {
            self.fail(field, "must be an IANA time zone such as Europe/Oslo");
        }
        tz.to_string()
    }

    /// Ok, or 422 with every error collected.
    pub fn finish(self) -> Result<(), ApiError> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(ApiError::Validation(self.errors))
        }
    }
}

/// The JSON Schema pattern of [`Check::text`]: not blank, no control characters.
pub const TEXT_PATTERN: &str = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$";

/// The JSON Schema pattern of an optional search text: blank means no filter.
pub const SEARCH_PATTERN: &str = r"^[^\u0000-\u001f\u007f-\u009f]*$";

/// The JSON Schema pattern of a country code.
pub const COUNTRY_PATTERN: &str = "^[A-Za-z]{2}$";

/// An ISO 3166-1 alpha-2 country code ([`COUNTRY_PATTERN`]), stored upper case.
pub fn check_country(check: &mut Check, field: &str, value: Option<&str>) -> Option<String> {
    let v = value?;
    let upper = v.to_ascii_uppercase();
    if upper.len() != 2 || !upper.bytes().all(|b| b.is_ascii_uppercase()) {
        check.fail(
            field,
            "must be an ISO 3166-1 alpha-2 country code such as NO or PL",
        );
    }
    Some(upper)
}

/// Distinguishes an absent field (`None`) from an explicit `null` (`Some(None)`) in a partial
/// update (`#[serde(default, with = "crate::services::validate::double_option")]`).
pub mod double_option {
    use serde::{Deserialize, Deserializer};

    pub fn deserialize<'de, T, D>(d: D) -> Result<Option<Option<T>>, D::Error>
    where
        T: Deserialize<'de>,
        D: Deserializer<'de>,
    {
        Option::<T>::deserialize(d).map(Some)
    }
}

/// The schema of an IANA time zone name: a string the service checks against the IANA
/// database it was built with (an unknown name is refused with 422). Not an enum: the ~600
/// names make generated clients collide (`GMT0` and `GMT+0`).
pub struct TimeZoneName;

impl utoipa::PartialSchema for TimeZoneName {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
        ObjectBuilder::new()
            .schema_type(SchemaType::Type(Type::String))
            .description(Some(
                "An IANA time zone name such as `Europe/Oslo`; an unknown name is refused with 422",
            ))
            .min_length(Some(1))
            .max_length(Some(64))
            .pattern(Some(r"^[A-Za-z0-9_+\-/]+$"))
            .examples(["Europe/Oslo"])
            .into()
    }
}

impl ToSchema for TimeZoneName {}
