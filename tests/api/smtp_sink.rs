//! A small SMTP server for the tests (RFC 5321: greeting, EHLO/HELO, MAIL FROM, RCPT TO, DATA
//! with dot-unstuffing, RSET, NOOP, QUIT) on 127.0.0.1 that keeps every message it accepts.
//! It can be stopped (connections are then refused) and started again on the same port, to play
//! a mail server that is down and comes back.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use base64::Engine;

/// A message as the sink received it.
#[derive(Debug, Clone)]
pub struct Received {
    pub from: String,
    pub to: Vec<String>,
    /// The DATA as sent (headers and body, CRLF line ends, dots unstuffed).
    pub data: String,
}

impl Received {
    /// The value of a header (folded lines joined), by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<String> {
        let head = self.data.split("\r\n\r\n").next().unwrap_or("");
        let mut value: Option<String> = None;
        let mut found = false;
        for line in head.split("\r\n") {
            if found && (line.starts_with(' ') || line.starts_with('\t')) {
                value.as_mut().unwrap().push_str(line.trim_start());
                continue;
            }
            found = false;
            if let Some((n, v)) = line.split_once(':') {
                if n.eq_ignore_ascii_case(name) && value.is_none() {
                    value = Some(v.trim().to_string());
                    found = true;
                }
            }
        }
        value
    }

    /// The plain-text body, decoded from its transfer encoding (base64, quoted-printable or
    /// none): the `text/plain` part of a multipart message.
    pub fn body(&self) -> String {
        self.part("text/plain")
            .unwrap_or_else(|| panic!("no text/plain part in {}", self.data))
    }

    /// The HTML part of a multipart message, decoded.
    pub fn html(&self) -> Option<String> {
        self.part("text/html")
    }

    /// The decoded part of `content_type` (the whole body when the message is not multipart
    /// and is of that type, or of no stated type and `text/plain` is asked for).
    fn part(&self, content_type: &str) -> Option<String> {
        let own = self.header("content-type").unwrap_or_default();
        let Some(boundary) = own
            .split(';')
            .find_map(|p| p.trim().strip_prefix("boundary="))
            .map(|b| b.trim_matches('"').to_string())
        else {
            let fits = own.is_empty() && content_type == "text/plain"
                || own.to_ascii_lowercase().starts_with(content_type);
            return fits.then(|| self.decoded(self));
        };
        let body = self.data.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        body.split(&format!("--{boundary}"))
            .map(|p| p.trim_start_matches("\r\n"))
            .filter(|p| p.contains("\r\n\r\n"))
            .map(|p| Received {
                from: String::new(),
                to: Vec::new(),
                data: p.to_string(),
            })
            .find(|p| {
                p.header("content-type")
                    .is_some_and(|t| t.to_ascii_lowercase().starts_with(content_type))
            })
            .map(|p| self.decoded(&p))
    }

    /// A message's (or a part's) body, decoded from its transfer encoding.
    fn decoded(&self, part: &Received) -> String {
        let body = part.data.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        let encoding = part
            .header("content-transfer-encoding")
            .unwrap_or_default()
            .to_ascii_lowercase();
        match encoding.as_str() {
            "base64" => {
                let compact: String = body.chars().filter(|c| !c.is_whitespace()).collect();
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(compact)
                    .expect("base64 body");
                String::from_utf8(bytes).expect("utf-8 body")
            }
            "quoted-printable" => quoted_printable(body),
            _ => body.to_string(),
        }
    }

    /// The code in the body that starts with `prefix` (`ev_`, `pr_`).
    pub fn code(&self, prefix: &str) -> String {
        let body = self.body();
        let start = body
            .find(prefix)
            .unwrap_or_else(|| panic!("no {prefix} code in {body}"));
        body[start..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    }

    /// The link in the body that leads to `path` (the first line holding it).
    pub fn link(&self, path: &str) -> Option<String> {
        self.body()
            .lines()
            .map(str::trim)
            .find(|l| l.starts_with("http") && l.contains(path))
            .map(str::to_string)
    }
}

fn quoted_printable(text: &str) -> String {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'=' if bytes.get(i + 1) == Some(&b'\r') && bytes.get(i + 2) == Some(&b'\n') => i += 3,
            b'=' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 3;
                    }
                    Err(_) => {
                        out.push(b'=');
                        i += 1;
                    }
                }
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).expect("utf-8 body")
}

struct Running {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

/// The sink: its port, what it received, and its accept loop while it runs.
pub struct SmtpSink {
    port: u16,
    received: Arc<Mutex<Vec<Received>>>,
    running: Option<Running>,
}

impl SmtpSink {
    /// A sink on a free port.
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the SMTP sink");
        let port = listener.local_addr().expect("addr").port();
        let mut sink = Self {
            port,
            received: Arc::default(),
            running: None,
        };
        sink.run(listener);
        sink
    }

    /// The `SMTP_URL` of the sink (plain SMTP).
    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    fn run(&mut self, listener: TcpListener) {
        let stop = Arc::new(AtomicBool::new(false));
        let (flag, received) = (stop.clone(), self.received.clone());
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let received = received.clone();
                std::thread::spawn(move || {
                    let _ = session(stream, &received);
                });
            }
        });
        self.running = Some(Running { stop, thread });
    }

    /// Stops accepting: from now on connections to the port are refused.
    pub fn stop(&mut self) {
        if let Some(r) = self.running.take() {
            r.stop.store(true, Ordering::SeqCst);
            // Wakes the accept loop, which sees the flag and drops the listener.
            let _ = TcpStream::connect(("127.0.0.1", self.port));
            r.thread.join().expect("the sink's accept loop");
        }
    }

    /// Starts accepting again on the same port.
    pub fn restart(&mut self) {
        let listener = TcpListener::bind(("127.0.0.1", self.port)).expect("bind the sink again");
        self.run(listener);
    }

    /// Every message received so far.
    pub fn messages(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// The messages received so far to `address`.
    pub fn to(&self, address: &str) -> Vec<Received> {
        self.messages()
            .into_iter()
            .filter(|m| m.to.iter().any(|t| t.eq_ignore_ascii_case(address)))
            .collect()
    }

    /// Waits (up to `secs`) until `n` messages to `address` have arrived; returns them.
    pub async fn wait_for(&self, address: &str, n: usize, secs: u64) -> Vec<Received> {
        let until = Instant::now() + Duration::from_secs(secs);
        loop {
            let got = self.to(address);
            if got.len() >= n || Instant::now() > until {
                assert!(
                    got.len() >= n,
                    "{} of {n} messages to {address} arrived",
                    got.len()
                );
                return got;
            }
            actix_web::rt::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        self.stop();
    }
}

fn address_of(arg: &str) -> String {
    let start = arg.find('<').map_or(0, |i| i + 1);
    let end = arg[start..].find('>').map_or(arg.len(), |i| start + i);
    arg[start..end].to_string()
}

/// One SMTP conversation.
fn session(stream: TcpStream, received: &Mutex<Vec<Received>>) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut out = stream.try_clone()?;
    let mut lines = BufReader::new(stream);
    out.write_all(b"220 sink.test ESMTP ready\r\n")?;
    let (mut from, mut to): (Option<String>, Vec<String>) = (None, Vec::new());
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let command = line.trim_end().to_string();
        let verb = command.split(' ').next().unwrap_or("").to_ascii_uppercase();
        let reply: &[u8] = match verb.as_str() {
            "EHLO" => b"250-sink.test\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n",
            "HELO" => b"250 sink.test\r\n",
            "MAIL" => {
                from = Some(address_of(&command));
                to.clear();
                b"250 2.1.0 OK\r\n"
            }
            "RCPT" if from.is_some() => {
                to.push(address_of(&command));
                b"250 2.1.5 OK\r\n"
            }
            "RCPT" => b"503 5.5.1 MAIL first\r\n",
            "DATA" if from.is_some() && !to.is_empty() => {
                out.write_all(b"354 end with <CRLF>.<CRLF>\r\n")?;
                let mut data = String::new();
                loop {
                    line.clear();
                    if lines.read_line(&mut line)? == 0 {
                        return Ok(());
                    }
                    if line == ".\r\n" || line == ".\n" {
                        break;
                    }
                    data.push_str(line.strip_prefix('.').unwrap_or(&line));
                }
                received.lock().unwrap().push(Received {
                    from: from.take().unwrap_or_default(),
                    to: std::mem::take(&mut to),
                    data,
                });
                b"250 2.0.0 queued\r\n"
            }
            "DATA" => b"503 5.5.1 MAIL and RCPT first\r\n",
            "RSET" => {
                from = None;
                to.clear();
                b"250 2.0.0 OK\r\n"
            }
            "NOOP" => b"250 2.0.0 OK\r\n",
            "QUIT" => {
                out.write_all(b"221 2.0.0 bye\r\n")?;
                return Ok(());
            }
            _ => b"502 5.5.2 not implemented\r\n",
        };
        out.write_all(reply)?;
    }
}

#[test]
fn the_sink_speaks_smtp_and_unstuffs_dots() {
    let sink = SmtpSink::start();
    let stream = TcpStream::connect(("127.0.0.1", sink.port)).unwrap();
    let mut out = stream.try_clone().unwrap();
    let mut r = BufReader::new(stream);
    let mut read = || {
        let mut l = String::new();
        r.read_line(&mut l).unwrap();
        l
    };
    assert!(read().starts_with("220"));
    out.write_all(b"HELO me\r\nNOOP\r\nMAIL FROM:<a@x.test>\r\nRSET\r\nRCPT TO:<b@x.test>\r\n")
        .unwrap();
    for expected in ["250", "250", "250", "250", "503"] {
        assert!(read().starts_with(expected));
    }
    out.write_all(b"MAIL FROM:<a@x.test>\r\nRCPT TO:<b@x.test>\r\nDATA\r\n")
        .unwrap();
    for expected in ["250", "250", "354"] {
        assert!(read().starts_with(expected));
    }
    out.write_all(b"Subject: t\r\n\r\n..leading dot\r\n.\r\nQUIT\r\n")
        .unwrap();
    assert!(read().starts_with("250"));
    assert!(read().starts_with("221"));
    let m = &sink.to("b@x.test")[0];
    assert_eq!(m.from, "a@x.test");
    assert_eq!(m.body(), ".leading dot\r\n");
    assert_eq!(m.header("subject").as_deref(), Some("t"));
}
