package outreach

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

const testMemberID = "ACoAAB3xYz0Q1w2E3r4T5y6U7i8O9p0-_aSdFgH"

func TestNormalizeProfileSamePersonOneKey(t *testing.T) {
	spellings := []string{
		"https://www.linkedin.com/in/jane-doe",
		"http://www.linkedin.com/in/jane-doe",
		"https://linkedin.com/in/jane-doe/",
		"www.linkedin.com/in/jane-doe",
		"linkedin.com/in/jane-doe",
		"//www.linkedin.com/in/jane-doe",
		"HTTPS://WWW.LINKEDIN.COM/IN/JANE-DOE",
		"https://de.linkedin.com/in/jane-doe",
		"https://uk.linkedin.com/in/Jane-Doe/",
		"https://m.linkedin.com/in/jane-doe",
		"https://www.linkedin.com./in/jane-doe",
		"https://www.linkedin.com/in/jane-doe/details/experience/",
		"https://www.linkedin.com/in/jane-doe?utm_source=share&trk=x",
		"https://www.linkedin.com/in/jane-doe#about",
		"https://www.linkedin.com//in//jane-doe",
		"https://www.linkedin.com/in/jane%2Ddoe",
		"https://www.linkedin.com:443/in/jane-doe",
		"  https://www.linkedin.com/in/jane-doe \n",
		"jane-doe",
		"Jane-Doe",
		"JANE-DOE",
		"jane%2Ddoe",
	}
	want := Profile{Key: "in:jane-doe", PublicIdentifier: "jane-doe", URL: "https://www.linkedin.com/in/jane-doe"}
	for _, in := range spellings {
		t.Run(in, func(t *testing.T) {
			got, err := NormalizeProfile(in)
			if err != nil {
				t.Fatalf("NormalizeProfile(%q): %v", in, err)
			}
			if got != want {
				t.Fatalf("NormalizeProfile(%q) = %+v, want %+v", in, got, want)
			}
		})
	}
}

func TestNormalizeProfileUnicodeHandles(t *testing.T) {
	tests := []struct {
		in, key, url string
	}{
		{"https://www.linkedin.com/in/j%C3%BCrgen", "in:jürgen", "https://www.linkedin.com/in/j%C3%BCrgen"},
		{"https://www.linkedin.com/in/J%C3%9CRGEN/", "in:jürgen", "https://www.linkedin.com/in/j%C3%BCrgen"},
		{"linkedin.com/in/jürgen", "in:jürgen", "https://www.linkedin.com/in/j%C3%BCrgen"},
		{"JÜRGEN", "in:jürgen", "https://www.linkedin.com/in/j%C3%BCrgen"},
		{"j%c3%bcrgen", "in:jürgen", "https://www.linkedin.com/in/j%C3%BCrgen"},
		{"张伟-123", "in:张伟-123", "https://www.linkedin.com/in/%E5%BC%A0%E4%BC%9F-123"},
		{"jane_doe_1", "in:jane_doe_1", "https://www.linkedin.com/in/jane_doe_1"},
		{"abc", "in:abc", "https://www.linkedin.com/in/abc"},
		{strings.Repeat("a", 100), "in:" + strings.Repeat("a", 100), "https://www.linkedin.com/in/" + strings.Repeat("a", 100)},
		// Folding is ToLower(ToUpper): the long s and dotless i meet their ASCII letters.
		{"ſam-ıvy", "in:sam-ivy", "https://www.linkedin.com/in/sam-ivy"},
		{"ACoolDesigner", "in:acooldesigner", "https://www.linkedin.com/in/acooldesigner"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := NormalizeProfile(tt.in)
			if err != nil {
				t.Fatalf("NormalizeProfile(%q): %v", tt.in, err)
			}
			if got.Key != tt.key || got.URL != tt.url || got.MemberID != "" || "in:"+got.PublicIdentifier != got.Key {
				t.Fatalf("NormalizeProfile(%q) = %+v, want key %q url %q", tt.in, got, tt.key, tt.url)
			}
		})
	}
}

func TestNormalizeProfileMemberIDs(t *testing.T) {
	tests := []struct {
		in, key, memberID string
	}{
		{testMemberID, "id:" + testMemberID, testMemberID},
		{" " + testMemberID + " ", "id:" + testMemberID, testMemberID},
		{"https://www.linkedin.com/in/" + testMemberID, "id:" + testMemberID, testMemberID},
		{"linkedin.com/in/" + testMemberID + "/?miniProfileUrn=x", "id:" + testMemberID, testMemberID},
		{"urn:li:fsd_profile:" + testMemberID, "id:" + testMemberID, testMemberID},
		{"URN:LI:FS_PROFILE:" + testMemberID, "id:" + testMemberID, testMemberID},
		{"urn:li:fs_miniProfile:" + testMemberID, "id:" + testMemberID, testMemberID},
		{"urn:li:member:123456789", "id:123456789", "123456789"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := NormalizeProfile(tt.in)
			if err != nil {
				t.Fatalf("NormalizeProfile(%q): %v", tt.in, err)
			}
			want := Profile{Key: tt.key, MemberID: tt.memberID}
			if got != want {
				t.Fatalf("NormalizeProfile(%q) = %+v, want %+v", tt.in, got, want)
			}
		})
	}
	// Member ids are case-sensitive: changing case must not land on the same key.
	a, _ := NormalizeProfile(testMemberID)
	b, err := NormalizeProfile(strings.Replace(testMemberID, "xYz", "XyZ", 1))
	if err != nil || a.Key == b.Key {
		t.Fatalf("case-changed member id: key %q vs %q, err %v", a.Key, b.Key, err)
	}
}

func TestNormalizeProfileRejects(t *testing.T) {
	tests := []struct {
		name, in, msg string
	}{
		{"empty", "", "empty"},
		{"whitespace", " \t\n ", "empty"},
		{"company page", "https://www.linkedin.com/company/acme", "company page"},
		{"showcase page", "linkedin.com/showcase/acme-cloud/", "company page"},
		{"school", "https://www.linkedin.com/school/mit/", "school page"},
		{"legacy pub", "https://www.linkedin.com/pub/jane-doe/12/345/678", "legacy /pub/"},
		{"sales navigator", "https://www.linkedin.com/sales/lead/ACwAAAb,NAME_SEARCH,x", "Sales Navigator"},
		{"sales navigator id", "ACwAAAbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "Sales Navigator"},
		{"feed", "https://www.linkedin.com/feed/", "not a profile"},
		{"host only", "https://www.linkedin.com", "no profile path"},
		{"in without handle", "https://www.linkedin.com/in/", "no handle"},
		{"other host", "https://www.example.com/in/jane-doe", "not a linkedin.com"},
		{"lookalike host", "https://linkedin.com.evil.io/in/jane-doe", "not a linkedin.com"},
		{"prefixed host", "https://notlinkedin.com/in/jane-doe", "not a linkedin.com"},
		{"deep subdomain", "https://a.b.linkedin.com/in/jane-doe", "not a linkedin.com"},
		{"ftp", "ftp://www.linkedin.com/in/jane-doe", "http or https"},
		{"javascript", "javascript://www.linkedin.com/in/jane-doe", "http or https"},
		{"too short", "jd", "3 to 100"},
		{"too short in url", "https://www.linkedin.com/in/jd", "3 to 100"},
		{"too long", strings.Repeat("a", 101), "3 to 100"},
		{"space in handle", "jane doe", "only letters"},
		{"dot handle", "jane.doe", "not a linkedin.com"},
		{"encoded slash", "https://www.linkedin.com/in/jane%2Fdoe", "only letters"},
		{"emoji", "jane😀doe", "only letters"},
		{"control char", "jane\x00doe", "control"},
		{"control in url", "https://www.linkedin.com/in/jane%00doe", "control"},
		{"bad escape", "https://www.linkedin.com/in/jane%zz", "not a valid URL"},
		{"bad escape bare", "jane%zz", "percent-encoding"},
		{"invalid utf8", "jane\xffdoe", "UTF-8"},
		{"encoded invalid utf8", "https://www.linkedin.com/in/jane%FFdoe", "UTF-8"},
		{"over 2048 bytes", "https://www.linkedin.com/in/jane-doe?x=" + strings.Repeat("a", 2048), "2048"},
		{"member urn not digits", "urn:li:member:12ab", "digits"},
		{"profile urn without id", "urn:li:fsd_profile:jane-doe", "member id"},
		{"company urn", "urn:li:organization:1234", "not a person"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NormalizeProfile(tt.in)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("NormalizeProfile(%q) error = %v, want ErrInvalid", tt.in, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("NormalizeProfile(%q) error = %q, want it to mention %q", tt.in, err, tt.msg)
			}
		})
	}
}

func TestNormalizeCompanyName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Acme", "acme"},
		{"ACME, Inc.", "acme"},
		{"  Acme   Inc  ", "acme"},
		{"Acme Incorporated", "acme"},
		{"Acme LLC", "acme"},
		{"Acme Pty Ltd", "acme"},
		{"Acme GmbH & Co. KG", "acme"},
		{"Acme S.A.", "acme"},
		{"Acme B.V.", "acme"},
		{"Acme Corp.", "acme"},
		{"Spotify AB", "spotify"},
		{"Inc", "inc"},              // never emptied
		{"The Company", "the"},      // documented consequence of dropping "company"
		{"Inc Acme", "inc acme"},    // only trailing suffixes go
		{"AT&T", "at t"},            // & separates like any punctuation
		{"AT & T", "at t"},          // … so both spellings meet
		{"McDonald's", "mcdonalds"}, // apostrophes join
		{"McDonald’s Corporation", "mcdonalds"},
		{"Booking.com", "bookingcom"},
		{"Müller\tGmbH", "müller"},
		{"", ""},
		{" ,.- ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := NormalizeCompanyName(tt.in); got != tt.want {
				t.Fatalf("NormalizeCompanyName(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseCompanyURL(t *testing.T) {
	tests := []struct {
		in, slug string
		ok       bool
	}{
		{"https://www.linkedin.com/company/acme", "acme", true},
		{"linkedin.com/company/ACME/", "acme", true},
		{"https://de.linkedin.com/company/acme/about/?trk=x", "acme", true},
		{"http://m.linkedin.com/company/acme#top", "acme", true},
		{"https://www.linkedin.com/company/booking.com", "booking.com", true},
		{"https://www.linkedin.com/company/1234567/", "1234567", true},
		{"https://www.linkedin.com/company/m%C3%BCller-ag", "müller-ag", true},
		{"acme", "", false},
		{"https://www.linkedin.com/in/jane-doe", "", false},
		{"https://www.linkedin.com/company/", "", false},
		{"https://www.example.com/company/acme", "", false},
		{"https://www.linkedin.com/company/ac%2Fme", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			slug, ok := ParseCompanyURL(tt.in)
			if slug != tt.slug || ok != tt.ok {
				t.Fatalf("ParseCompanyURL(%q) = %q, %v; want %q, %v", tt.in, slug, ok, tt.slug, tt.ok)
			}
		})
	}
}

func TestParseBlacklistValue(t *testing.T) {
	tests := []struct {
		value, typ string
		want       BlacklistKey
		errMsg     string
	}{
		{"https://www.linkedin.com/in/Jane-Doe/", "account", BlacklistKey{"account", "in:jane-doe"}, ""},
		{testMemberID, "account", BlacklistKey{"account", "id:" + testMemberID}, ""},
		{"https://www.linkedin.com/company/acme", "account", BlacklistKey{}, "company page"},
		{"", "account", BlacklistKey{}, "empty"},
		{"linkedin.com/company/Acme/", "company", BlacklistKey{"company", "url:acme"}, ""},
		{"Acme, Inc.", "company", BlacklistKey{"company", "name:acme"}, ""},
		{"acme.com", "company", BlacklistKey{"company", "name:acmecom"}, ""},
		{"https://www.linkedin.com/in/jane-doe", "company", BlacklistKey{}, "not a linkedin.com/company/"},
		{"https://acme.com", "company", BlacklistKey{}, "not a linkedin.com/company/"},
		{"   ", "company", BlacklistKey{}, "empty"},
		{"!!!", "company", BlacklistKey{}, "no letters or digits"},
		{"Acme", "person", BlacklistKey{}, `unknown blacklist type "person"`},
		{"Acme", "Company", BlacklistKey{}, `unknown blacklist type "Company"`},
		{"Acme", "", BlacklistKey{}, `unknown blacklist type ""`},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.value, func(t *testing.T) {
			got, err := ParseBlacklistValue(tt.value, tt.typ)
			if tt.errMsg != "" {
				if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.errMsg) {
					t.Fatalf("ParseBlacklistValue(%q, %q) error = %v, want ErrInvalid mentioning %q", tt.value, tt.typ, err, tt.errMsg)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseBlacklistValue(%q, %q) = %+v, %v; want %+v", tt.value, tt.typ, got, err, tt.want)
			}
		})
	}
}

func FuzzNormalizeProfile(f *testing.F) {
	for _, s := range []string{
		"https://www.linkedin.com/in/jane-doe", "jane-doe", "linkedin.com/in/j%C3%BCrgen/details/",
		"https://de.linkedin.com/in/Jane?x=1#y", testMemberID, "urn:li:member:42",
		"urn:li:fsd_profile:" + testMemberID, "https://www.linkedin.com/company/acme", "ſıK", "",
		"https://www.linkedin.com/in/%E2%84%AA%C5%BF%C4%B1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p, err := NormalizeProfile(in)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		switch {
		case strings.HasPrefix(p.Key, "in:"):
			h := p.PublicIdentifier
			if p.Key != "in:"+h || p.MemberID != "" || p.URL != profileURLBase+url.PathEscape(h) {
				t.Fatalf("inconsistent handle profile %+v", p)
			}
			if n := utf8.RuneCountInString(h); n < minHandleLen || n > maxHandleLen {
				t.Fatalf("handle %q has %d characters", h, n)
			}
			q, err := NormalizeProfile(p.URL)
			if err != nil || q != p {
				t.Fatalf("not idempotent: %q -> %+v, its URL -> %+v, %v", in, p, q, err)
			}
			upper := strings.ToUpper(h)
			for _, v := range []string{upper, profileURLBase + url.PathEscape(upper)} {
				if q, err := NormalizeProfile(v); err != nil || q.Key != p.Key {
					t.Fatalf("upper-cased %q -> %+v, %v; want key %q", v, q, err, p.Key)
				}
			}
		case strings.HasPrefix(p.Key, "id:"):
			if p.Key != "id:"+p.MemberID || p.PublicIdentifier != "" || p.URL != "" {
				t.Fatalf("inconsistent member profile %+v", p)
			}
			if isMemberID(p.MemberID) {
				if q, err := NormalizeProfile(p.MemberID); err != nil || q != p {
					t.Fatalf("member id not idempotent: %+v -> %+v, %v", p, q, err)
				}
			}
		default:
			t.Fatalf("key %q has no known prefix", p.Key)
		}
	})
}

func FuzzCompany(f *testing.F) {
	for _, s := range []string{"ACME, Inc.", "GmbH & Co. KG", "linkedin.com/company/Acme/", "McDonald’s", "ſ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		n := NormalizeCompanyName(in)
		if again := NormalizeCompanyName(n); again != n {
			t.Fatalf("NormalizeCompanyName not idempotent: %q -> %q -> %q", in, n, again)
		}
		if NormalizeCompanyName(strings.ToUpper(in)) != n && utf8.ValidString(in) {
			t.Fatalf("NormalizeCompanyName(%q) changes under upper-casing", in)
		}
		if slug, ok := ParseCompanyURL(in); ok {
			if again, ok := ParseCompanyURL(profileURLBase[:len(profileURLBase)-3] + "company/" + url.PathEscape(slug)); !ok || again != slug {
				t.Fatalf("company slug %q does not round-trip: %q, %v", slug, again, ok)
			}
		}
		for _, typ := range []string{BlacklistAccount, BlacklistCompany} {
			if k, err := ParseBlacklistValue(in, typ); err == nil && (k.Type != typ || k.Key == "") {
				t.Fatalf("ParseBlacklistValue(%q, %q) = %+v", in, typ, k)
			}
		}
	})
}
