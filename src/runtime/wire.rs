//! The connection under the HTTP layer. actix-http's parser answers some requests before any
//! handler sees them, and with an empty body: 400 for a head it cannot parse, 431 for a head over
//! its 32 KiB buffer or its 96 headers, 408 for a head not finished in time. There is no hook for
//! those answers, so [`ProblemIo`] wraps each accepted socket and, when such an answer is
//! written, sends it as `application/problem+json` like every other error of the service.
//!
//! What is recognised: a write that begins with the status line of one of those three statuses
//! and whose head says `content-length: 0`. The service's own 400s always carry a problem body,
//! so they never match; the parser closes the connection after its answer, so nothing follows
//! the rewritten one.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::error::{Problem, PROBLEM_KINDS};

/// A socket whose empty parser errors go out as problem+json.
pub struct ProblemIo<T> {
    inner: T,
    /// A rewritten answer not yet handed to the socket in full.
    pending: Vec<u8>,
}

impl<T> ProblemIo<T> {
    pub fn new(inner: T) -> Self {
        Self {
            inner,
            pending: Vec::new(),
        }
    }
}

impl<T: AsyncWrite + Unpin> ProblemIo<T> {
    /// Hands the pending bytes to the socket; ready once there are none left.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.pending.is_empty() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.pending.drain(..n);
        }
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for ProblemIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for ProblemIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        ready!(this.drain(cx))?;
        if let Some((consumed, answer)) = problem_answer(buf) {
            this.pending = answer;
            // The original head counts as written; the answer goes out on this or a later poll.
            let _ = this.drain(cx)?;
            return Poll::Ready(Ok(consumed));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The problem kind and detail for an empty answer of the parser with this status.
fn parser_problem(status: &[u8]) -> Option<(&'static str, &'static str)> {
    Some(match status {
        b"400" => (
            "bad-request",
            "The request line or a header could not be parsed (a path or query over 32 KiB is refused this way too).",
        ),
        b"408" => ("request-timeout", "The request head did not arrive in time."),
        b"431" => (
            "header-too-large",
            "The request head is over 32 KiB or has more than 96 headers (a long path or query counts).",
        ),
        _ => return None,
    })
}

/// When `buf` begins with an empty 400, 408 or 431 answer of the parser: how many bytes that
/// answer's head takes, and the problem+json answer to send instead.
fn problem_answer(buf: &[u8]) -> Option<(usize, Vec<u8>)> {
    let rest = buf
        .strip_prefix(b"HTTP/1.1 ")
        .or_else(|| buf.strip_prefix(b"HTTP/1.0 "))?;
    let (kind, detail) = parser_problem(rest.get(..3)?)?;
    let end = find(buf, b"\r\n\r\n")? + 4;
    let head = &buf[..end];
    // Only an empty answer is the parser's own.
    find(&head.to_ascii_lowercase(), b"\r\ncontent-length: 0\r\n")?;
    let (_, title, status, _) = PROBLEM_KINDS.iter().find(|k| k.0 == kind)?;
    let body = serde_json::to_vec(&Problem {
        kind: format!("/problems/{kind}"),
        title: (*title).to_string(),
        status: *status,
        detail: detail.to_string(),
        errors: Vec::new(),
    })
    .ok()?;
    let status_line_end = find(head, b"\r\n")? + 2;
    let mut answer = Vec::with_capacity(end + body.len() + 64);
    answer.extend_from_slice(&head[..status_line_end]);
    answer.extend_from_slice(b"content-type: application/problem+json\r\n");
    answer.extend_from_slice(format!("content-length: {}\r\n", body.len()).as_bytes());
    answer.extend_from_slice(b"connection: close\r\n");
    // The parser's other headers (its date) stay as they were.
    for line in head[status_line_end..end - 2].split(|b| *b == b'\n') {
        let lower = line.to_ascii_lowercase();
        if line.is_empty()
            || lower.starts_with(b"content-length:")
            || lower.starts_with(b"connection:")
        {
            continue;
        }
        answer.extend_from_slice(line);
        answer.push(b'\n');
    }
    answer.extend_from_slice(b"\r\n");
    answer.extend_from_slice(&body);
    Some((end, answer))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(answer: &[u8]) -> String {
        String::from_utf8(answer.to_vec()).unwrap()
    }

    #[test]
    fn an_empty_431_becomes_problem_json() {
        let head = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\nconnection: close\r\ndate: Tue, 24 Nov 2026 10:00:00 GMT\r\n\r\n";
        let (consumed, answer) = problem_answer(head).expect("rewritten");
        assert_eq!(consumed, head.len());
        let answer = text(&answer);
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assert!(head.contains("content-type: application/problem+json\r\n"));
        assert!(head.contains(&format!("content-length: {}\r\n", body.len())));
        assert!(head.contains("date: Tue, 24 Nov 2026 10:00:00 GMT"));
        assert_eq!(head.matches("connection:").count(), 1);
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["type"], "/problems/header-too-large");
        assert_eq!(v["status"], 431);
    }

    #[test]
    fn the_400_and_408_of_the_parser_become_problem_json() {
        for (status, kind) in [
            ("400 Bad Request", "bad-request"),
            ("408 Request Timeout", "request-timeout"),
        ] {
            let head = format!("HTTP/1.1 {status}\r\ncontent-length: 0\r\ndate: x\r\n\r\n");
            let (_, answer) = problem_answer(head.as_bytes()).expect("rewritten");
            let answer = text(&answer);
            let body = answer.split_once("\r\n\r\n").unwrap().1;
            let v: serde_json::Value = serde_json::from_str(body).unwrap();
            assert_eq!(v["type"], format!("/problems/{kind}"));
        }
    }

    #[test]
    fn answers_with_a_body_or_another_status_pass_untouched() {
        let ours = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 97\r\ncontent-type: application/problem+json\r\n\r\n{}";
        assert!(problem_answer(ours).is_none());
        let ok = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
        assert!(problem_answer(ok).is_none());
        let not_found = b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n";
        assert!(problem_answer(not_found).is_none());
        // A head cut short is left to the socket as it is.
        assert!(problem_answer(b"HTTP/1.1 431 Request Header").is_none());
    }

    #[test]
    fn only_the_head_is_consumed_when_more_follows() {
        let mut buf = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n".to_vec();
        let len = buf.len();
        buf.extend_from_slice(b"tail");
        assert_eq!(problem_answer(&buf).unwrap().0, len);
    }
}
