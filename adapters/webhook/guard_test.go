package webhook

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
)

func TestIsDisallowedIP(t *testing.T) {
	cases := []struct {
		ip   string
		want bool
	}{
		// IPv4 special ranges.
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"10.1.2.3", true},
		{"100.64.0.1", true},
		{"100.127.255.254", true},
		{"127.0.0.1", true},
		{"127.255.255.255", true},
		{"169.254.169.254", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"192.0.0.8", true},
		{"192.0.2.1", true},
		{"192.168.1.1", true},
		{"198.18.0.1", true},
		{"198.19.255.255", true},
		{"198.51.100.7", true},
		{"203.0.113.9", true},
		{"224.0.0.1", true},
		{"239.255.255.250", true},
		{"240.0.0.1", true},
		{"255.255.255.255", true},
		// IPv4 public, including neighbours of the blocked ranges.
		{"8.8.8.8", false},
		{"1.1.1.1", false},
		{"100.63.255.255", false},
		{"100.128.0.0", false},
		{"172.15.255.255", false},
		{"172.32.0.0", false},
		{"198.17.255.255", false},
		{"198.20.0.0", false},
		{"223.255.255.255", false},
		// IPv6 special ranges.
		{"::", true},
		{"::1", true},
		{"::7f00:1", true},  // IPv4-compatible 127.0.0.1
		{"::808:808", true}, // IPv4-compatible, deprecated even when public
		{"fe80::1", true},
		{"fe80::1%eth0", true},
		{"fc00::1", true},
		{"fd12:3456::1", true},
		{"fec0::1", true},
		{"ff02::1", true},
		{"2001:db8::1", true},
		{"2001::1", true}, // Teredo
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", true},
		{"2001:2::1", true},
		{"100::1", true},
		{"3fff::1", true},
		{"4000::1", true}, // outside 2000::/3
		// IPv4-mapped: judged by the embedded address.
		{"::ffff:127.0.0.1", true},
		{"::ffff:10.0.0.1", true},
		{"::ffff:169.254.169.254", true},
		{"::ffff:8.8.8.8", false},
		// SIIT IPv4-translated.
		{"::ffff:0:7f00:1", true},
		{"::ffff:0:808:808", false},
		// NAT64 well-known prefix.
		{"64:ff9b::7f00:1", true},
		{"64:ff9b::a9fe:a9fe", true},
		{"64:ff9b::808:808", false},
		{"64:ff9b:0:1::808:808", true}, // inside 64:ff9b::/32 but not the /96
		// Local-use NAT64, judged with the /96 layout.
		{"64:ff9b:1::7f00:1", true},
		{"64:ff9b:1:abcd::a9fe:a9fe", true},
		{"64:ff9b:1::808:808", false},
		{"64:ff9b:1:abcd::808:808", false},
		// 6to4: judged by the embedded address.
		{"2002:7f00:1::1", true},
		{"2002:a00:1::1", true},
		{"2002:c0a8:101::1", true},
		{"2002:808:808::1", false},
		// Public IPv6.
		{"2606:4700:4700::1111", false},
		{"2a00:1450:4001:82a::200e", false},
	}
	for _, c := range cases {
		t.Run(c.ip, func(t *testing.T) {
			ip := netip.MustParseAddr(c.ip)
			if got := isDisallowedIP(ip); got != c.want {
				why, _ := disallowedReason(ip)
				t.Fatalf("isDisallowedIP(%s) = %v, want %v (reason %q)", c.ip, got, c.want, why)
			}
		})
	}
	if !isDisallowedIP(netip.Addr{}) {
		t.Fatal("the zero Addr must be disallowed")
	}
}

func TestCheckURL(t *testing.T) {
	ctx := context.Background()
	strict := Guard{}
	cases := []struct {
		url     string
		blocked bool // wraps ErrBlockedAddress; otherwise ErrInvalidURL
	}{
		{"http://127.0.0.1/hook", false}, // http refused before resolving
		{"https://127.0.0.1/hook", true},
		{"http://localhost/hook", false},
		{"https://localhost:8443/hook", true}, // resolves to loopback
		{"https://169.254.169.254/latest/meta-data", true},
		{"https://[::1]/hook", true},
		{"https://[::ffff:127.0.0.1]/hook", true},
		{"https://[64:ff9b::a9fe:a9fe]/hook", true},
		{"https://0.0.0.0/hook", true},
		{"https://user:pass@example.com/hook", false},
		{"ftp://example.com/hook", false},
		{"https:///hook", false},
		{"https://example.com:99999/hook", false},
		{"example.com/hook", false},
	}
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			err := strict.CheckURL(ctx, c.url)
			want := ErrInvalidURL
			if c.blocked {
				want = ErrBlockedAddress
			}
			if !errors.Is(err, want) {
				t.Fatalf("CheckURL(%q) = %v, want %v", c.url, err, want)
			}
		})
	}

	lax := Guard{AllowPrivate: true}
	for _, u := range []string{"http://127.0.0.1:8080/hook", "http://localhost/hook"} {
		if err := lax.CheckURL(ctx, u); err != nil {
			t.Errorf("AllowPrivate CheckURL(%q) = %v, want nil", u, err)
		}
	}
	if err := lax.CheckURL(ctx, "http://u:p@localhost/"); !errors.Is(err, ErrInvalidURL) {
		t.Errorf("AllowPrivate still refuses userinfo, got %v", err)
	}
	// With http allowed, "scheme must be https" would mislead; the message says what is accepted.
	if err := lax.CheckURL(ctx, "not-a-url"); !errors.Is(err, ErrInvalidURL) || !strings.Contains(err.Error(), "http://") {
		t.Errorf("AllowPrivate CheckURL(not-a-url) = %v, want an invalid URL naming http:// as accepted", err)
	}
}

func TestCheckURLNamesHostAndAddress(t *testing.T) {
	err := Guard{}.CheckURL(context.Background(), "https://localhost/")
	var be *BlockedError
	if !errors.As(err, &be) {
		t.Fatalf("want *BlockedError, got %v", err)
	}
	if be.Host != "localhost" || !be.Addr.IsLoopback() || !strings.Contains(err.Error(), "localhost") {
		t.Fatalf("error should name host and address: %v", err)
	}
}

// TestGuardRefusesIfAnyAnswerIsBad uses a real DNS server on loopback that
// answers with one public and one private address: the guard must refuse the
// name rather than pick the public one, and must not connect anywhere.
func TestGuardRefusesIfAnyAnswerIsBad(t *testing.T) {
	dns := startDNS(t, []netip.Addr{netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("10.0.0.7")})
	g := Guard{Resolver: dns}

	err := g.CheckURL(context.Background(), "https://mixed.example./hook")
	if !errors.Is(err, ErrBlockedAddress) || !strings.Contains(err.Error(), "10.0.0.7") {
		t.Fatalf("CheckURL: want blocked 10.0.0.7, got %v", err)
	}
	conn, err := g.DialContext(context.Background(), "tcp", "mixed.example.:443")
	if conn != nil {
		conn.Close()
	}
	if !errors.Is(err, ErrBlockedAddress) {
		t.Fatalf("DialContext: want blocked, got %v", err)
	}
}

func TestDialContext(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())

	for _, addr := range []string{ln.Addr().String(), "localhost:" + port} {
		_, err := Guard{}.DialContext(context.Background(), "tcp", addr)
		if !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("strict DialContext(%s) = %v, want ErrBlockedAddress", addr, err)
		}
	}
	conn, err := Guard{AllowPrivate: true}.DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("AllowPrivate DialContext: %v", err)
	}
	conn.Close()
}

// startDNS serves a minimal authoritative DNS on loopback UDP that answers
// every A query with the IPv4 addresses given and every AAAA query with the
// IPv6 ones, and returns a Go resolver that talks only to it.
func startDNS(t *testing.T, addrs []netip.Addr) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if resp := dnsAnswer(buf[:n], addrs); resp != nil {
				_, _ = pc.WriteTo(resp, from)
			}
		}
	}()
	server := pc.LocalAddr().String()
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "udp", server)
		},
	}
}

func dnsAnswer(q []byte, addrs []netip.Addr) []byte {
	if len(q) < 12 {
		return nil
	}
	// Skip the question name to find QTYPE.
	i := 12
	for i < len(q) && q[i] != 0 {
		i += int(q[i]) + 1
	}
	if i+5 > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[i+1:])
	question := q[12 : i+5]

	var answers [][]byte
	for _, a := range addrs {
		switch {
		case qtype == 1 && a.Is4():
			b := a.As4()
			answers = append(answers, b[:])
		case qtype == 28 && a.Is6():
			b := a.As16()
			answers = append(answers, b[:])
		}
	}
	resp := make([]byte, 12, 512)
	copy(resp, q[:2])                            // id
	binary.BigEndian.PutUint16(resp[2:], 0x8180) // response, RD, RA, no error
	binary.BigEndian.PutUint16(resp[4:], 1)
	binary.BigEndian.PutUint16(resp[6:], uint16(len(answers)))
	resp = append(resp, question...)
	for _, rdata := range answers {
		resp = append(resp, 0xc0, 12) // pointer to the question name
		resp = binary.BigEndian.AppendUint16(resp, qtype)
		resp = binary.BigEndian.AppendUint16(resp, 1)  // class IN
		resp = binary.BigEndian.AppendUint32(resp, 60) // TTL
		resp = binary.BigEndian.AppendUint16(resp, uint16(len(rdata)))
		resp = append(resp, rdata...)
	}
	return resp
}

func FuzzIsDisallowedIP(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "::ffff:10.0.0.1", "64:ff9b:1::1", "2002:808:808::", "fe80::1%lo", "8.8.8.8"} {
		f.Add(netip.MustParseAddr(s).AsSlice())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ip, ok := netip.AddrFromSlice(b)
		bad := isDisallowedIP(ip)
		if !ok && !bad {
			t.Fatalf("invalid address %x allowed", b)
		}
		// An IPv4 address and its mapped form must get the same verdict.
		if ip.Is4() && bad != isDisallowedIP(netip.AddrFrom16(ip.As16())) {
			t.Fatalf("mapped form of %s judged differently", ip)
		}
		// So must its NAT64 and 6to4 forms, when the IPv4 address is bad.
		if ip.Is4() && bad {
			a := ip.As4()
			nat64 := netip.AddrFrom16([16]byte{0, 0x64, 0xff, 0x9b, 12: a[0], 13: a[1], 14: a[2], 15: a[3]})
			sixto4 := netip.AddrFrom16([16]byte{0x20, 0x02, a[0], a[1], a[2], a[3]})
			if !isDisallowedIP(nat64) || !isDisallowedIP(sixto4) {
				t.Fatalf("embedded form of %s allowed", ip)
			}
		}
	})
}

// isDisallowedIP is disallowedReason without the reason.
func isDisallowedIP(ip netip.Addr) bool {
	_, bad := disallowedReason(ip)
	return bad
}
