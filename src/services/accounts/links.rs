//! Where the links in the messages lead (issue 40, item 1): for each flow (confirming an
//! address, choosing a new password, accepting an invitation) a URL template of the front the
//! deployment has (`MAIL_LINK_VERIFY=https://club.example/verify?code={code}`), else the
//! service's own pages under `PUBLIC_BASE_URL` (`/account/verify-email?code=...`). With
//! neither, a message carries its code only.
//!
//! The links are never built from a request's `Host` header: whoever sends a reset request
//! could otherwise have the victim's code mailed inside a link to a host of their own.

/// The service's own pages, under `PUBLIC_BASE_URL`.
pub const VERIFY_PAGE: &str = "/account/verify-email";
pub const RESET_PAGE: &str = "/account/reset-password";
pub const INVITATION_PAGE: &str = "/account/invitation";

/// The placeholder a template holds once, where the code goes.
const CODE: &str = "{code}";

/// The flows whose messages carry a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Verify,
    Reset,
    Invitation,
}

/// The link template of each flow (`None`: the message carries the code only).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MailLinks {
    verify: Option<String>,
    reset: Option<String>,
    invitation: Option<String>,
}

impl MailLinks {
    /// The templates from the settings: each flow's own template, else the service's page
    /// under `public_base` (its trailing `/` dropped), else none. A template must be an
    /// `http(s)` URL holding `{code}` once; a base must be an `http(s)` URL without query.
    pub fn new(
        public_base: Option<&str>,
        verify: Option<&str>,
        reset: Option<&str>,
        invitation: Option<&str>,
    ) -> Result<Self, String> {
        let base = match public_base.map(str::trim).filter(|b| !b.is_empty()) {
            None => None,
            Some(b) => {
                let b = b.trim_end_matches('/');
                if !is_http(b) || b.contains(['?', '#', ' ']) {
                    return Err(format!(
                        "PUBLIC_BASE_URL must be an http(s) URL without query, e.g. https://tourney.example (got {b:?})"
                    ));
                }
                Some(b.to_string())
            }
        };
        let one = |name: &str, given: Option<&str>, page: &str| -> Result<Option<String>, String> {
            match given.map(str::trim).filter(|t| !t.is_empty()) {
                Some(t) => {
                    if !is_http(t) || t.matches(CODE).count() != 1 || t.contains(' ') {
                        return Err(format!(
                            "{name} must be an http(s) URL holding {CODE} once, e.g. https://club.example/verify?code={CODE} (got {t:?})"
                        ));
                    }
                    Ok(Some(t.to_string()))
                }
                None => Ok(base.as_ref().map(|b| format!("{b}{page}?code={CODE}"))),
            }
        };
        Ok(Self {
            verify: one("MAIL_LINK_VERIFY", verify, VERIFY_PAGE)?,
            reset: one("MAIL_LINK_RESET", reset, RESET_PAGE)?,
            invitation: one("MAIL_LINK_INVITATION", invitation, INVITATION_PAGE)?,
        })
    }

    /// The link that carries `code` in `flow`'s message, if the deployment has one. Codes are
    /// URL-safe (a prefix, `_` and hex digits); anything else is percent-encoded all the same.
    pub fn link(&self, flow: Flow, code: &str) -> Option<String> {
        let template = match flow {
            Flow::Verify => &self.verify,
            Flow::Reset => &self.reset,
            Flow::Invitation => &self.invitation,
        };
        template.as_ref().map(|t| t.replace(CODE, &encoded(code)))
    }
}

fn is_http(url: &str) -> bool {
    ["http://", "https://"]
        .iter()
        .any(|s| url.len() > s.len() && url[..s.len()].eq_ignore_ascii_case(s))
}

/// `code` percent-encoded for a URL's query or path (unreserved characters kept).
fn encoded(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    for b in code.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_pages_under_the_public_base_unless_a_template_is_given() {
        let links = MailLinks::new(
            Some("https://t.example/"),
            None,
            Some("https://club.example/reset#c={code}"),
            None,
        )
        .unwrap();
        assert_eq!(
            links.link(Flow::Verify, "ev_ab12").as_deref(),
            Some("https://t.example/account/verify-email?code=ev_ab12")
        );
        assert_eq!(
            links.link(Flow::Reset, "pr_1").as_deref(),
            Some("https://club.example/reset#c=pr_1")
        );
        assert_eq!(
            links.link(Flow::Invitation, "in_x y").as_deref(),
            Some("https://t.example/account/invitation?code=in_x%20y")
        );
    }

    #[test]
    fn no_base_and_no_template_no_link() {
        let links = MailLinks::new(None, None, None, None).unwrap();
        assert_eq!(links, MailLinks::default());
        assert_eq!(links.link(Flow::Verify, "ev_1"), None);
        let only_reset = MailLinks::new(None, None, Some("http://a/{code}"), None).unwrap();
        assert_eq!(only_reset.link(Flow::Verify, "ev_1"), None);
        assert_eq!(
            only_reset.link(Flow::Reset, "pr_1").as_deref(),
            Some("http://a/pr_1")
        );
    }

    #[test]
    fn bad_settings_are_refused_with_their_name() {
        for (base, verify, name) in [
            (Some("ftp://t.example"), None, "PUBLIC_BASE_URL"),
            (Some("https://t.example/?x=1"), None, "PUBLIC_BASE_URL"),
            (
                None,
                Some("https://club.example/verify"),
                "MAIL_LINK_VERIFY",
            ),
            (None, Some("javascript:{code}"), "MAIL_LINK_VERIFY"),
            (None, Some("https://c/{code}/{code}"), "MAIL_LINK_VERIFY"),
        ] {
            let err = MailLinks::new(base, verify, None, None).unwrap_err();
            assert!(err.starts_with(name), "{err}");
        }
    }
}
