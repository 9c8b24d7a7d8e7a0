//! Where a webhook delivery connects (DNS rebinding): the delivery client resolves a target's
//! host name only through [`CheckedResolver`], which looks the name up at each connection and
//! keeps the public addresses of the answer ([`is_public`]), failing when none is left: a name
//! that answered a public address when it was subscribed and answers 127.0.0.1, 10.x or
//! 169.254.169.254 at delivery is never connected to, and nothing is sent. (Addresses written
//! in the URL never reach a resolver: `webhooks::check_before_sending` checks them.)
//!
//! The lookup is a seam ([`Lookup`]): the system's resolver in the service ([`SystemLookup`]),
//! a fixed table in tests. Only code builds a `WebhookPolicy`: no request chooses its lookup or
//! allows private targets.

use std::fmt;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::Arc;

/// Whether an address is on the public internet: not loopback, private, link-local, shared
/// (100.64/10), unspecified, broadcast, multicast, documentation (192.0.2/24, 198.51.100/24,
/// 203.0.113/24, 2001:db8::/32), benchmarking (198.18/15), IETF protocol assignments
/// (192.0.0/24), reserved (0/8, 240/4, and what is left of ::/8), unique-local (fc00::/7),
/// site-local (fec0::/10), discard-only (100::/64), Teredo (2001::/32: a tunnel to an address
/// it hides) or NAT64 (64:ff9b::/96, 64:ff9b:1::/48); an IPv6 form of an IPv4 address
/// (`::ffff:a.b.c.d`, `::a.b.c.d`, `::ffff:0:a.b.c.d`) and a 6to4 address (2002:AABB:CCDD::/48,
/// a tunnel to AA.BB.CC.DD) are judged by their IPv4 address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || o[0] == 0
                || o[0] >= 240
                || (o[0] == 100 && (64..128).contains(&o[1]))
                || (o[0] == 198 && (o[1] & 0xfe) == 18)
                || (o[0] == 192 && o[1] == 0 && o[2] == 0))
        }
        IpAddr::V6(v6) => {
            let s = v6.segments();
            // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), ::ffff:0:a.b.c.d (translated).
            // (`::` and `::1` read as 0.0.0.0 and 0.0.0.1, neither public.)
            let embeds_v4 = (s[..5] == [0; 5] && (s[5] == 0xffff || s[5] == 0))
                || (s[..4] == [0; 4] && s[4] == 0xffff && s[5] == 0);
            let v4 = |hi: u16, lo: u16| {
                let (hi, lo) = (hi.to_be_bytes(), lo.to_be_bytes());
                IpAddr::V4(std::net::Ipv4Addr::new(hi[0], hi[1], lo[0], lo[1]))
            };
            if embeds_v4 {
                return is_public(v4(s[6], s[7]));
            }
            if s[0] == 0x2002 {
                return is_public(v4(s[1], s[2]));
            }
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || s[0] <= 0x00ff
                || s[..4] == [0x0100, 0, 0, 0]
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                || (s[0] & 0xffc0) == 0xfec0
                || (s[0] == 0x2001 && s[1] == 0)
                || (s[0] == 0x2001 && s[1] == 0x0db8)
                || (s[0] == 0x0064 && s[1] == 0xff9b && (s[2] == 1 || s[2..6] == [0; 4])))
        }
    }
}

/// Resolves a host name to its addresses (blocking: it runs on a blocking thread).
pub trait Lookup: Send + Sync {
    fn lookup(&self, host: &str) -> std::io::Result<Vec<IpAddr>>;
}

impl fmt::Debug for dyn Lookup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Lookup")
    }
}

/// The system's resolver (`getaddrinfo`, as reqwest's own).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemLookup;

impl Lookup for SystemLookup {
    fn lookup(&self, host: &str) -> std::io::Result<Vec<IpAddr>> {
        Ok((host, 0).to_socket_addrs()?.map(|a| a.ip()).collect())
    }
}

/// Why a delivery did not connect: its host does not resolve, or only to addresses that are
/// not public. Said as the delivery's error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreachable(pub String);

impl fmt::Display for Unreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unreachable {}

/// The addresses of `host` a delivery may connect to: every address `lookup` answers when
/// private targets are allowed, else its public ones; refused when there are none.
pub fn checked_addresses(
    lookup: &dyn Lookup,
    host: &str,
    allow_private: bool,
) -> Result<Vec<IpAddr>, Unreachable> {
    let found = lookup.lookup(host).map_err(|_| {
        Unreachable(format!(
            "the host {host} does not resolve; nothing was sent"
        ))
    })?;
    if allow_private {
        return if found.is_empty() {
            Err(Unreachable(format!(
                "the host {host} does not resolve; nothing was sent"
            )))
        } else {
            Ok(found)
        };
    }
    let (public, refused): (Vec<IpAddr>, Vec<IpAddr>) =
        found.into_iter().partition(|ip| is_public(*ip));
    if public.is_empty() {
        let refused: Vec<String> = refused.iter().map(IpAddr::to_string).collect();
        return Err(Unreachable(format!(
            "refused: the host {host} resolves to no public address ({}), only to loopback, \
             private or reserved ones; nothing was sent",
            if refused.is_empty() {
                "none".to_string()
            } else {
                refused.join(", ")
            }
        )));
    }
    Ok(public)
}

/// The delivery client's resolver: each name looked up anew through the policy's [`Lookup`]
/// and only what [`checked_addresses`] keeps handed to the connector.
#[derive(Debug, Clone)]
pub struct CheckedResolver {
    lookup: Arc<dyn Lookup>,
    allow_private: bool,
}

impl CheckedResolver {
    /// The resolver of a `WebhookPolicy`'s lookup and `allow_private`.
    pub fn new(lookup: Arc<dyn Lookup>, allow_private: bool) -> Self {
        CheckedResolver {
            lookup,
            allow_private,
        }
    }
}

impl reqwest::dns::Resolve for CheckedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let (lookup, allow_private) = (self.lookup.clone(), self.allow_private);
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addresses = tokio::task::spawn_blocking(move || {
                checked_addresses(lookup.as_ref(), &host, allow_private)
            })
            .await??;
            // Port 0: the connector puts the URL's port in.
            let addrs: reqwest::dns::Addrs =
                Box::new(addresses.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok::<_, Box<dyn std::error::Error + Send + Sync>>(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Table(Vec<(&'static str, Vec<&'static str>)>);

    impl Lookup for Table {
        fn lookup(&self, host: &str) -> std::io::Result<Vec<IpAddr>> {
            let (_, found) =
                self.0.iter().find(|(h, _)| *h == host).ok_or_else(|| {
                    std::io::Error::new(std::io::ErrorKind::NotFound, "no such host")
                })?;
            Ok(found.iter().map(|a| a.parse().unwrap()).collect())
        }
    }

    fn table() -> Table {
        Table(vec![
            ("public.test", vec!["8.8.8.8", "2001:4860:4860::8888"]),
            (
                "mixed.test",
                vec!["127.0.0.1", "8.8.4.4", "10.0.0.1", "::1"],
            ),
            (
                "private.test",
                vec!["127.0.0.1", "169.254.169.254", "fd00::1"],
            ),
            ("empty.test", vec![]),
        ])
    }

    fn ips(list: &[&str]) -> Vec<IpAddr> {
        list.iter().map(|a| a.parse().unwrap()).collect()
    }

    #[test]
    fn only_public_answers_are_kept() {
        let t = table();
        let public = checked_addresses(&t, "public.test", false);
        assert_eq!(public, Ok(ips(&["8.8.8.8", "2001:4860:4860::8888"])));
        assert_eq!(
            checked_addresses(&t, "mixed.test", false),
            Ok(ips(&["8.8.4.4"]))
        );
        let refused = checked_addresses(&t, "private.test", false).unwrap_err();
        assert!(refused.0.contains("no public address"), "{refused}");
        assert!(refused.0.contains("169.254.169.254"), "{refused}");
        let empty = checked_addresses(&t, "empty.test", false).unwrap_err();
        assert!(empty.0.contains("no public address (none)"), "{empty}");
        let unknown = checked_addresses(&t, "unknown.test", false).unwrap_err();
        assert!(unknown.0.contains("does not resolve"), "{unknown}");
    }

    #[test]
    fn private_answers_are_kept_only_where_allowed() {
        let t = table();
        assert_eq!(
            checked_addresses(&t, "private.test", true),
            Ok(ips(&["127.0.0.1", "169.254.169.254", "fd00::1"]))
        );
        assert!(checked_addresses(&t, "empty.test", true).is_err());
        assert!(checked_addresses(&t, "unknown.test", true).is_err());
    }
}
