//! E-mail over SMTP (issue 29): the transport configured by `SMTP_URL` and `MAIL_FROM`, and one
//! send. Messages are not sent from requests: a use case writes them to the outbox
//! (`services::accounts::outbox`) in its own transaction, and the background job
//! (`runtime::jobs`) claims and sends them here, retrying failures.
//!
//! `SMTP_URL` takes lettre's forms: `smtp://host:25` (plain), `smtp://host:587?tls=required`
//! (STARTTLS), `smtps://user:password@host:465` (TLS from the start); TLS is rustls with the
//! webpki roots.

use std::sync::Arc;
use std::time::Duration;

use lettre::message::{Mailbox, MultiPart};
use lettre::transport::smtp::extension::ClientId;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use crate::error::ApiError;

/// How long one SMTP conversation may take (well inside the outbox's lease).
const SEND_TIMEOUT: Duration = Duration::from_secs(20);

/// The HTML part of a message, made from its text (issue 40, item 3): every paragraph a
/// paragraph, every line that is a link a link (the first one a button), every line that is a
/// code set apart; all of it escaped. Made when the message is sent, so the outbox keeps one
/// text.
pub fn html_of(subject: &str, text: &str) -> String {
    let mut out = String::from(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>",
    );
    out.push_str(&escape(subject));
    out.push_str(
        "</title></head><body style=\"font-family:sans-serif;line-height:1.5;max-width:40em\">",
    );
    let mut first_link = true;
    for paragraph in text.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
        let line = paragraph.trim();
        if !line.contains(char::is_whitespace)
            && (line.starts_with("https://") || line.starts_with("http://"))
        {
            let href = escape(line);
            let style = if first_link {
                "display:inline-block;padding:.6em 1.2em;background:#1f5fbf;color:#fff;border-radius:4px;text-decoration:none;font-weight:bold"
            } else {
                ""
            };
            let shown = if first_link {
                escape(link_label(text))
            } else {
                href.clone()
            };
            out.push_str(&format!(
                "<p><a href=\"{href}\" style=\"{style}\">{shown}</a></p>"
            ));
            if first_link {
                out.push_str(&format!(
                    "<p style=\"font-size:.85em;color:#555;word-break:break-all\">{href}</p>"
                ));
            }
            first_link = false;
        } else if is_code(line) {
            out.push_str(&format!(
                "<p><code style=\"font-size:1.1em;padding:.2em .4em;background:#eee;word-break:break-all\">{}</code></p>",
                escape(line)
            ));
        } else {
            let lines: Vec<String> = paragraph.lines().map(escape).collect();
            out.push_str(&format!("<p>{}</p>", lines.join("<br>")));
        }
    }
    out.push_str("</body></html>");
    out
}

/// The button's words: the line above the first link, without its colon.
fn link_label(text: &str) -> &str {
    let paragraphs: Vec<&str> = text.split("\n\n").map(str::trim).collect();
    paragraphs
        .windows(2)
        .find(|w| w[1].starts_with("http") && !w[1].contains(char::is_whitespace))
        .map(|w| w[0].trim_end_matches([':', '：']))
        .unwrap_or("Open")
}

/// A code of ours: a two-letter prefix, `_`, then letters and digits.
fn is_code(line: &str) -> bool {
    let b = line.as_bytes();
    b.len() > 8
        && b[..2].iter().all(u8::is_ascii_lowercase)
        && b[2] == b'_'
        && b[3..]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-')
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// One message to send: the outbox row's id and its random part (together they name the
/// `Message-ID`, so a receiver can tell a message from a copy, and ids that repeat after a
/// restore never make two messages look alike), the recipient, subject and plain-text body.
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub id: i64,
    pub unique: String,
    pub to: String,
    pub subject: String,
    pub body: String,
}

struct Transport {
    smtp: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

/// The instance's mail: a transport, or none when `SMTP_URL` is not set (then the operations
/// that need mail answer 503). Cloned into every worker.
#[derive(Clone)]
pub struct Mail {
    transport: Option<Arc<Transport>>,
    /// The first retry waits this many seconds (then 6x, 24x, ... as webhooks do).
    pub retry_base_secs: i64,
}

impl Default for Mail {
    fn default() -> Self {
        Self {
            transport: None,
            retry_base_secs: 5,
        }
    }
}

impl std::fmt::Debug for Mail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mail")
            .field("configured", &self.configured())
            .field("retry_base_secs", &self.retry_base_secs)
            .finish()
    }
}

impl Mail {
    /// The transport of `SMTP_URL`, sending as `MAIL_FROM` (`Name <address>` or an address);
    /// no URL: no mail. A URL without a sender, or either unreadable, is an error.
    pub fn new(smtp_url: Option<&str>, mail_from: Option<&str>) -> Result<Self, String> {
        let Some(url) = smtp_url else {
            return Ok(Self::default());
        };
        let from: Mailbox = mail_from
            .ok_or("SMTP_URL is set but MAIL_FROM is not: name the sender, e.g. MAIL_FROM='Tourney <noreply@example.org>'")?
            .parse()
            .map_err(|e| format!("MAIL_FROM is not an address: {e}"))?;
        let smtp = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|e| format!("SMTP_URL cannot be used: {e}"))?
            .timeout(Some(SEND_TIMEOUT))
            .hello_name(ClientId::Domain(from.email.domain().to_string()))
            .build();
        Ok(Self {
            transport: Some(Arc::new(Transport { smtp, from })),
            ..Self::default()
        })
    }

    /// Whether mail can be sent.
    pub fn configured(&self) -> bool {
        self.transport.is_some()
    }

    /// 503 when no mail can be sent (checked by the HTTP layer before an operation that needs
    /// it, outside the database's circuit).
    pub fn require(&self) -> Result<(), ApiError> {
        if self.configured() {
            Ok(())
        } else {
            Err(ApiError::Unavailable(
                "this instance cannot send e-mail (SMTP_URL is not configured), so this operation is not available".into(),
            ))
        }
    }

    /// Sends one message; the SMTP server's refusal or the connection's failure as text.
    pub async fn send(&self, m: &Outgoing) -> Result<(), String> {
        let Some(t) = &self.transport else {
            return Err("mail is not configured".into());
        };
        let to: Mailbox = m.to.parse().map_err(|e| format!("recipient: {e}"))?;
        let message = Message::builder()
            .from(t.from.clone())
            .to(to)
            .subject(m.subject.as_str())
            .message_id(Some(format!(
                "<mail-{}.{}@{}>",
                m.id,
                m.unique,
                t.from.email.domain()
            )))
            .multipart(MultiPart::alternative_plain_html(
                m.body.clone(),
                html_of(&m.subject, &m.body),
            ))
            .map_err(|e| format!("message: {e}"))?;
        t.smtp
            .send(message)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_html_part_escapes_and_links_the_first_link_as_a_button() {
        let text = "Hello <kari>,\n\nplease confirm.\n\nOpen this link to confirm it:\n\nhttps://t.example/v?code=ev_ab&x=\"1\"\n\nOr the code:\n\nev_0123456789abcdef\n\nBye & thanks\nline two\n";
        let html = html_of("Confirm <now>", text);
        assert!(
            html.contains("<title>Confirm &lt;now&gt;</title>"),
            "{html}"
        );
        assert!(html.contains("<p>Hello &lt;kari&gt;,</p>"), "{html}");
        assert!(
            html.contains("href=\"https://t.example/v?code=ev_ab&amp;x=&quot;1&quot;\""),
            "{html}"
        );
        assert!(html.contains(">Open this link to confirm it</a>"), "{html}");
        assert!(
            html.contains("<code") && html.contains(">ev_0123456789abcdef</code>"),
            "{html}"
        );
        assert!(
            html.contains("<p>Bye &amp; thanks<br>line two</p>"),
            "{html}"
        );
        assert!(!html.contains("<kari>") && !html.contains("<script"));
    }

    #[test]
    fn a_message_without_a_link_has_no_anchor() {
        let html = html_of("S", "Hello,\n\nsend this code:\n\npr_0123456789\n");
        assert!(!html.contains("<a "), "{html}");
        assert!(html.contains(">pr_0123456789</code>"));
    }
}
