// Package webhook sends webhook deliveries over HTTP and keeps them from
// reaching the service's own network (SSRF).
//
// It knows nothing about events, schedules or signatures: it takes a URL,
// a body and headers, makes one attempt, and reports what happened in a form
// an operator can read. Retrying, signing and recording attempts belong to
// package delivery. It must never follow redirects, use an environment proxy
// or connect to an address it has not checked.
package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// ErrBlockedAddress is wrapped by every refusal of a destination because of
// where it points, so callers can tell "the user gave us an internal address"
// apart from network failures with errors.Is.
var ErrBlockedAddress = errors.New("blocked address")

// ErrInvalidURL is wrapped when a destination URL is refused for its shape
// (scheme, userinfo, missing host) rather than for where it points.
var ErrInvalidURL = errors.New("invalid destination URL")

// BlockedError names the host and the address that was refused; it unwraps
// to ErrBlockedAddress. Operators see its message in the attempt log.
type BlockedError struct {
	Host   string
	Addr   netip.Addr
	Reason string
}

func (e *BlockedError) Error() string {
	if e.Host == "" || e.Host == e.Addr.String() {
		return fmt.Sprintf("blocked address %s (%s); %s", e.Addr, e.Reason, AllowPrivateHint)
	}
	return fmt.Sprintf("blocked address %s (%s) for host %s; %s", e.Addr, e.Reason, e.Host, AllowPrivateHint)
}

// AllowPrivateHint ends every refusal of a private destination, so whoever meets one on a
// development machine learns the setting that lifts it.
const AllowPrivateHint = "private and loopback destinations are accepted only with ALLOW_PRIVATE_DESTINATIONS=true (local development and tests, never production)"

func (e *BlockedError) Unwrap() error { return ErrBlockedAddress }

// Guard decides whether a destination may be contacted. The zero value is
// the strict guard using the default resolver.
type Guard struct {
	// AllowPrivate turns every address check off. It exists for local
	// development and tests (ALLOW_PRIVATE_DESTINATIONS), never production.
	AllowPrivate bool
	// Resolver is used for every lookup; nil means net.DefaultResolver.
	Resolver *net.Resolver
}

func (g Guard) resolver() *net.Resolver {
	if g.Resolver != nil {
		return g.Resolver
	}
	return net.DefaultResolver
}

// CheckURL validates a destination URL when it is created, so a user learns
// at once that an address is refused instead of seeing every delivery fail.
// It is not sufficient on its own: DNS can change afterwards, which is why
// DialContext checks again at every connection.
func (g Guard) CheckURL(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidURL, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !g.AllowPrivate {
			return fmt.Errorf("%w: scheme must be https (http:// is accepted only with ALLOW_PRIVATE_DESTINATIONS=true, for local development)", ErrInvalidURL)
		}
	default:
		if g.AllowPrivate {
			return fmt.Errorf("%w: must be an absolute https:// (or, with private destinations allowed, http://) URL", ErrInvalidURL)
		}
		return fmt.Errorf("%w: scheme must be https", ErrInvalidURL)
	}
	if u.User != nil {
		// Credentials in the URL would be stored and shown in logs; a
		// receiver that needs them should use the signature instead.
		return fmt.Errorf("%w: user info is not allowed", ErrInvalidURL)
	}
	host := u.Hostname()
	if host == "" {
		return fmt.Errorf("%w: host is missing", ErrInvalidURL)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%w: bad port %q", ErrInvalidURL, p)
		}
	}
	if g.AllowPrivate {
		return nil
	}
	_, err = g.resolveChecked(ctx, "ip", host)
	return err
}

// DialContext is an http.Transport dialer. It resolves the host once, refuses
// if any answer is disallowed, then connects to one of exactly those checked
// addresses, so a DNS server that answers differently on the second lookup
// (DNS rebinding) cannot steer the connection elsewhere.
func (g Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	if g.AllowPrivate {
		d.Resolver = g.Resolver
		return d.DialContext(ctx, network, addr)
	}
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("bad port in %q", addr)
	}
	lookup := "ip"
	switch network {
	case "tcp":
	case "tcp4":
		lookup = "ip4"
	case "tcp6":
		lookup = "ip6"
	default:
		return nil, fmt.Errorf("network %q not supported", network)
	}
	ips, err := g.resolveChecked(ctx, lookup, host)
	if err != nil {
		return nil, err
	}
	var firstErr error
	for _, ip := range ips {
		// The literal address string makes the dialer skip DNS entirely.
		conn, err := d.DialContext(ctx, network, netip.AddrPortFrom(ip, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// resolveChecked returns the host's addresses, or an error if any of them is
// disallowed: one bad answer means the name is not trustworthy, even if we
// could pick a good one.
func (g Guard) resolveChecked(ctx context.Context, lookup, host string) ([]netip.Addr, error) {
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		ips, err = g.resolver().LookupNetIP(ctx, lookup, host)
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", host, err)
		}
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses", host)
	}
	for i, ip := range ips {
		// Zones would make every prefix test fail open (Prefix.Contains is
		// false for zoned addresses), and a mapped form dials as plain IPv4.
		ip = ip.WithZone("").Unmap()
		if why, bad := disallowedReason(ip); bad {
			return nil, &BlockedError{Host: host, Addr: ip, Reason: why}
		}
		ips[i] = ip
	}
	return ips, nil
}

type blockedPrefix struct {
	prefix netip.Prefix
	reason string
}

func bp(s, reason string) blockedPrefix {
	return blockedPrefix{netip.MustParsePrefix(s), reason}
}

// The tables are read-only after init; they are the only package-level values
// besides the sentinel errors.
var blockedV4 = []blockedPrefix{
	bp("0.0.0.0/8", "this network"),
	bp("10.0.0.0/8", "private"),
	bp("100.64.0.0/10", "carrier-grade NAT"),
	bp("127.0.0.0/8", "loopback"),
	bp("169.254.0.0/16", "link-local/metadata"),
	bp("172.16.0.0/12", "private"),
	bp("192.0.0.0/24", "IETF protocol assignments"),
	bp("192.0.2.0/24", "documentation"),
	bp("192.88.99.0/24", "6to4 relay anycast"),
	bp("192.168.0.0/16", "private"),
	bp("198.18.0.0/15", "benchmarking"),
	bp("198.51.100.0/24", "documentation"),
	bp("203.0.113.0/24", "documentation"),
	bp("224.0.0.0/4", "multicast"),
	bp("240.0.0.0/4", "reserved/broadcast"),
}

var blockedV6 = []blockedPrefix{
	// Covers :: (unspecified), ::1 (loopback) and the deprecated
	// IPv4-compatible form, none of which is a real destination.
	bp("::/96", "unspecified/loopback/IPv4-compatible"),
	bp("100::/64", "discard-only"),
	bp("2001::/32", "Teredo"),
	bp("2001:2::/48", "benchmarking"),
	bp("2001:10::/28", "ORCHID"),
	bp("2001:20::/28", "ORCHIDv2"),
	bp("2001:db8::/32", "documentation"),
	bp("3fff::/20", "documentation"),
	bp("5f00::/16", "SRv6 SIDs"),
	bp("fc00::/7", "unique-local"),
	bp("fe80::/10", "link-local"),
	bp("fec0::/10", "site-local"),
	bp("ff00::/8", "multicast"),
}

var (
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local     = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour      = netip.MustParsePrefix("2002::/16")
	ipv4Translated = netip.MustParsePrefix("::ffff:0:0:0/96")
	globalUnicast  = netip.MustParsePrefix("2000::/3")
)

// disallowedReason reports whether a webhook may never be sent to ip, and why (for error
// messages): anything that is not a globally routable unicast address, judged through every
// IPv6 form that embeds an IPv4 address (mapped, NAT64, 6to4, SIIT), since those reach the
// embedded IPv4 host on networks that translate them.
func disallowedReason(ip netip.Addr) (string, bool) {
	if !ip.IsValid() {
		return "invalid", true
	}
	ip = ip.WithZone("")
	if ip.Is4In6() {
		return embedded("IPv4-mapped", ip.Unmap())
	}
	if ip.Is4() {
		for _, b := range blockedV4 {
			if b.prefix.Contains(ip) {
				return b.reason, true
			}
		}
		return "", false
	}
	a := ip.As16()
	switch {
	case nat64WellKnown.Contains(ip):
		return embedded("NAT64", v4(a[12], a[13], a[14], a[15]))
	case nat64Local.Contains(ip):
		// Local-use NAT64 (RFC 8215). RFC 6052 allows other layouts, but
		// DNS64/NAT64 deployments use /96 prefixes, with the IPv4 address in
		// the last 32 bits; judging every layout would refuse all of them
		// (each address has some all-zero reading). See docs/decisions.
		return embedded("local NAT64", v4(a[12], a[13], a[14], a[15]))
	case sixToFour.Contains(ip):
		return embedded("6to4", v4(a[2], a[3], a[4], a[5]))
	case ipv4Translated.Contains(ip):
		return embedded("IPv4-translated", v4(a[12], a[13], a[14], a[15]))
	}
	for _, b := range blockedV6 {
		if b.prefix.Contains(ip) {
			return b.reason, true
		}
	}
	// Everything outside 2000::/3 is unallocated or special; allowing only
	// global unicast keeps a future special range from slipping through.
	if !globalUnicast.Contains(ip) {
		return "not global unicast", true
	}
	return "", false
}

func v4(a, b, c, d byte) netip.Addr { return netip.AddrFrom4([4]byte{a, b, c, d}) }

func embedded(form string, ip netip.Addr) (string, bool) {
	if why, bad := disallowedReason(ip); bad {
		return form + " of " + ip.String() + ": " + why, true
	}
	return "", false
}
