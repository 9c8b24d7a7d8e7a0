//! Who a request comes from, for the rate limits and the sign-in throttle (both count per
//! client address).
//!
//! - **Behind a reverse proxy** every connection comes from the proxy: counted by the
//!   connection's address, every reader would share one count (and 50 failed sign-ins by
//!   anyone would refuse everyone's). The proxies named in `TRUSTED_PROXIES` (addresses or
//!   networks) are believed about `X-Forwarded-For`: the client is the right-most address of
//!   that header that is not itself a trusted proxy (what each proxy appended; anything left of
//!   it is the client's own say). From any other peer the header is ignored, so nobody escapes
//!   their count by writing it.
//! - **IPv6**: a host is usually given a whole /64, and could take a new address of it for
//!   every request; an IPv6 client is counted by its /64 (an IPv4-mapped address as the IPv4
//!   address).

use std::net::{IpAddr, SocketAddr};

/// The proxies whose `X-Forwarded-For` is believed: networks as (address, prefix length).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Proxies(Vec<(IpAddr, u8)>);

impl Proxies {
    /// `TRUSTED_PROXIES`: addresses or networks (`10.0.0.0/8`, `fd00::/8`), separated by commas
    /// or spaces; empty: none.
    pub fn parse(list: &str) -> Result<Self, String> {
        list.split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .map(network)
            .collect::<Result<Vec<_>, _>>()
            .map(Proxies)
    }

    /// Whether `ip` is one of the trusted proxies.
    pub fn holds(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|&(net, len)| within(ip, net, len))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn network(s: &str) -> Result<(IpAddr, u8), String> {
    let bad = || format!("TRUSTED_PROXIES: {s:?} is not an address or a network (a.b.c.d/n)");
    let (addr, len) = match s.split_once('/') {
        Some((a, l)) => (a, Some(l.parse::<u8>().map_err(|_| bad())?)),
        None => (s, None),
    };
    let ip = addr.parse::<IpAddr>().map_err(|_| bad())?.to_canonical();
    let max = if ip.is_ipv4() { 32 } else { 128 };
    match len {
        Some(l) if l > max => Err(bad()),
        Some(l) => Ok((ip, l)),
        None => Ok((ip, max)),
    }
}

/// Whether `ip` lies in the network `net`/`len` (of the same family).
fn within(ip: IpAddr, net: IpAddr, len: u8) -> bool {
    let (a, b, bits) = match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(b)) => (u128::from(u32::from(a)), u128::from(u32::from(b)), 32),
        (IpAddr::V6(a), IpAddr::V6(b)) => (u128::from(a), u128::from(b), 128),
        _ => return false,
    };
    let len = u32::from(len);
    if len == 0 {
        return true;
    }
    let shift = bits - len;
    a >> shift == b >> shift
}

/// One entry of `X-Forwarded-For`: an address, with a port or in brackets at times.
fn entry(s: &str) -> Option<IpAddr> {
    let s = s.trim();
    s.parse::<IpAddr>()
        .ok()
        .or_else(|| s.parse::<SocketAddr>().ok().map(|a| a.ip()))
        .or_else(|| s.strip_prefix('[')?.strip_suffix(']')?.parse().ok())
}

/// The client of a request that came from `peer` with `forwarded_for` (the `X-Forwarded-For`
/// header): `peer` itself unless it is a trusted proxy; else the right-most address of the
/// header that is not a trusted proxy (the left-most when all are; the last proxy's where an
/// entry cannot be read, since whatever lies left of it is not vouched for).
pub fn client(
    peer: Option<IpAddr>,
    forwarded_for: Option<&str>,
    proxies: &Proxies,
) -> Option<IpAddr> {
    let peer = peer?;
    if !proxies.holds(peer) {
        return Some(peer);
    }
    let mut client = peer;
    for hop in forwarded_for.unwrap_or("").rsplit(',') {
        match entry(hop) {
            Some(ip) => {
                client = ip;
                if !proxies.holds(ip) {
                    break;
                }
            }
            None => break,
        }
    }
    Some(client)
}

/// What a client is counted as: an IPv4 address itself, an IPv6 address by its /64.
pub fn key(ip: IpAddr) -> String {
    match ip.to_canonical() {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let net = std::net::Ipv6Addr::from(u128::from(v6) & !0u128 << 64);
            format!("{net}/64")
        }
    }
}

/// The client address a request is counted by (`key` of its `client`), set by the middleware
/// in the request's extensions for the handlers that count failures by address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientAddress(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn proxies_are_addresses_or_networks() {
        let p = Proxies::parse("10.0.0.0/8, 192.168.1.7 fd00::/8,::1").unwrap();
        assert!(p.holds(ip("10.200.3.4")));
        assert!(!p.holds(ip("11.0.0.1")));
        assert!(p.holds(ip("192.168.1.7")));
        assert!(!p.holds(ip("192.168.1.8")));
        assert!(p.holds(ip("fd12:3456::1")));
        assert!(!p.holds(ip("fe80::1")));
        assert!(p.holds(ip("::1")));
        // An IPv4 address written as IPv6 is the IPv4 address.
        assert!(p.holds(ip("::ffff:10.1.2.3")));
        assert!(Proxies::parse("0.0.0.0/0").unwrap().holds(ip("8.8.8.8")));
        assert!(!Proxies::parse("0.0.0.0/0")
            .unwrap()
            .holds(ip("2001:db8::1")));
        assert!(Proxies::parse("").unwrap().is_empty());
        for bad in [
            "10.0.0.0/33",
            "fd00::/129",
            "proxy.local",
            "10.0.0.0/x",
            "10.0.0/8",
        ] {
            let e = Proxies::parse(bad).unwrap_err();
            assert!(e.contains("TRUSTED_PROXIES"), "{e}");
        }
    }

    #[test]
    fn only_a_trusted_proxy_is_believed() {
        let p = Proxies::parse("10.0.0.0/8").unwrap();
        let from = |peer: &str, xff: Option<&str>| client(Some(ip(peer)), xff, &p).unwrap();
        // Another peer says what it likes: ignored.
        assert_eq!(from("203.0.113.9", Some("198.51.100.1")), ip("203.0.113.9"));
        // The proxy's peer, the right-most entry.
        assert_eq!(from("10.0.0.2", Some("198.51.100.1")), ip("198.51.100.1"));
        // What the client wrote itself (left) is not believed.
        assert_eq!(
            from("10.0.0.2", Some("1.1.1.1, 198.51.100.1")),
            ip("198.51.100.1")
        );
        // Through two trusted proxies.
        assert_eq!(
            from("10.0.0.2", Some("1.1.1.1, 198.51.100.1, 10.0.0.3")),
            ip("198.51.100.1")
        );
        // Every entry a proxy: the left-most.
        assert_eq!(from("10.0.0.2", Some("10.0.0.4,10.0.0.3")), ip("10.0.0.4"));
        // No header: the proxy itself.
        assert_eq!(from("10.0.0.2", None), ip("10.0.0.2"));
        assert_eq!(from("10.0.0.2", Some("")), ip("10.0.0.2"));
        // An entry that cannot be read ends the walk at the last proxy's.
        assert_eq!(from("10.0.0.2", Some("garbage, 10.0.0.3")), ip("10.0.0.3"));
        assert_eq!(from("10.0.0.2", Some("1.1.1.1, garbage")), ip("10.0.0.2"));
        // Ports and brackets.
        assert_eq!(
            from("10.0.0.2", Some("198.51.100.1:4711")),
            ip("198.51.100.1")
        );
        assert_eq!(
            from("10.0.0.2", Some("[2001:db8::5]:443")),
            ip("2001:db8::5")
        );
        assert_eq!(from("10.0.0.2", Some("[2001:db8::6]")), ip("2001:db8::6"));
        // No peer address at all.
        assert_eq!(client(None, Some("1.1.1.1"), &p), None);
        // Trusting no one: the peer, always.
        let none = Proxies::default();
        assert_eq!(
            client(Some(ip("10.0.0.2")), Some("198.51.100.1"), &none),
            Some(ip("10.0.0.2"))
        );
    }

    #[test]
    fn an_ipv6_client_counts_by_its_64() {
        assert_eq!(key(ip("198.51.100.1")), "198.51.100.1");
        assert_eq!(key(ip("::ffff:198.51.100.1")), "198.51.100.1");
        assert_eq!(key(ip("2001:db8:1:2::1")), "2001:db8:1:2::/64");
        assert_eq!(
            key(ip("2001:db8:1:2:ffff:ffff:ffff:ffff")),
            key(ip("2001:db8:1:2::1"))
        );
        assert_ne!(key(ip("2001:db8:1:3::1")), key(ip("2001:db8:1:2::1")));
        assert_eq!(key(ip("::1")), "::/64");
    }
}
