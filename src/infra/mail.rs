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

use lettre::message::header::ContentType;
use lettre::message::Mailbox;
use lettre::transport::smtp::extension::ClientId;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use crate::error::ApiError;

/// How long one SMTP conversation may take (well inside the outbox's lease).
const SEND_TIMEOUT: Duration = Duration::from_secs(20);

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
            .header(ContentType::TEXT_PLAIN)
            .body(m.body.clone())
            .map_err(|e| format!("message: {e}"))?;
        t.smtp
            .send(message)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}
