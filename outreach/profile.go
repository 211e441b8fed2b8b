package outreach

// Lead keys: a lead is keyed on campaign plus LinkedIn profile, and
// clients write the same profile in many ways. Everything that dedupes, blacklists or matches
// people goes through NormalizeProfile so that every spelling of one person has one key; a
// second spelling that slipped through would mean contacting someone twice, which is the one
// mistake an outreach tool must not make. The parser is strict about what it accepts because
// a wrong key is worse than a rejected lead: the client sees invalid_linkedin_url and can fix it.

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	maxProfileInput = 2048 // bytes; longer inputs are not links a person pasted
	minHandleLen    = 3    // LinkedIn's own bounds for a public profile URL, in characters
	maxHandleLen    = 100
	minMemberIDLen  = 30 // ACo… ids are 39 characters today; the band allows for drift
	maxMemberIDLen  = 60
	profileURLBase  = "https://www.linkedin.com/in/"
)

// Profile is one person's LinkedIn identity in the forms the rest of the service needs.
type Profile struct {
	// Key is "in:<folded handle>" or "id:<member id>": the dedupe and blacklist key.
	Key string
	// PublicIdentifier is the folded handle; "" when only a member id is known.
	PublicIdentifier string
	// MemberID is the ACo… id or the numeric member id; "" when a handle is known.
	MemberID string
	// URL is https://www.linkedin.com/in/<handle>, built only from a real /in/ handle so it
	// is always a working link; "" for member ids.
	URL string
}

// NormalizeProfile turns a profile URL, bare handle or member id into a Profile. Errors wrap
// ErrInvalid and name the problem without echoing the input.
func NormalizeProfile(input string) (Profile, error) {
	s, err := cleanInput(input, "profile")
	if err != nil {
		return Profile{}, err
	}
	if len(s) >= 7 && strings.EqualFold(s[:7], "urn:li:") {
		return profileFromURN(s[7:])
	}
	if looksLikeURL(s) {
		segs, err := linkedInPath(s)
		if err != nil {
			return Profile{}, err
		}
		return profileFromPath(segs)
	}
	if strings.Contains(s, "%") {
		if s, err = url.PathUnescape(s); err != nil {
			return Profile{}, invalidf("profile has malformed percent-encoding")
		}
	}
	return profileFromHandle(s)
}

// cleanInput applies the checks every LinkedIn reference shares before parsing starts.
func cleanInput(input, what string) (string, error) {
	if len(input) > maxProfileInput {
		return "", invalidf("%s is longer than %d bytes", what, maxProfileInput)
	}
	if !utf8.ValidString(input) {
		return "", invalidf("%s is not valid UTF-8", what)
	}
	s := strings.TrimSpace(input)
	if s == "" {
		return "", invalidf("%s is empty", what)
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return "", invalidf("%s contains control characters", what)
	}
	return s, nil
}

// profileFromURN accepts the URN forms LinkedIn's own APIs and exports use for a person.
// A numeric member URN keys on its digits; they cannot collide with ACo ids, which start with
// a letter.
func profileFromURN(rest string) (Profile, error) {
	typ, id, ok := strings.Cut(rest, ":")
	if !ok || id == "" {
		return Profile{}, invalidf("profile URN has no id")
	}
	switch strings.ToLower(typ) {
	case "member":
		if len(id) > 20 || strings.IndexFunc(id, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return Profile{}, invalidf("urn:li:member id must be digits")
		}
		return Profile{Key: "id:" + id, MemberID: id}, nil
	case "fsd_profile", "fs_profile", "fs_miniprofile":
		if !isMemberID(id) {
			return Profile{}, invalidf("profile URN does not hold a member id")
		}
		return Profile{Key: "id:" + id, MemberID: id}, nil
	}
	return Profile{}, invalidf("URN is not a person's profile")
}

// profileFromPath reads the decoded path segments of a linkedin.com link. Only /in/ names a
// person in a way we can key on. /pub/ is deliberately rejected: those legacy links carry a
// display name plus an encoded member number that only LinkedIn can map to today's handle,
// so accepting them would give the same person a second key.
func profileFromPath(segs []string) (Profile, error) {
	if len(segs) == 0 {
		return Profile{}, invalidf("link has no profile path; expected linkedin.com/in/<handle>")
	}
	switch strings.ToLower(segs[0]) {
	case "in":
		if len(segs) < 2 {
			return Profile{}, invalidf("link has no handle after /in/")
		}
		return profileFromHandle(segs[1])
	case "company", "showcase":
		return Profile{}, invalidf("link is a company page, not a person's profile")
	case "school":
		return Profile{}, invalidf("link is a school page, not a person's profile")
	case "pub":
		return Profile{}, invalidf("legacy /pub/ links cannot be mapped to a profile; send the /in/ link")
	case "sales":
		return Profile{}, invalidf("Sales Navigator links identify a person only inside Sales Navigator; send the /in/ link")
	}
	return Profile{}, invalidf("link is not a profile; expected linkedin.com/in/<handle>")
}

// profileFromHandle keys a decoded handle. Member ids keep their case because LinkedIn's ids
// are case-sensitive; handles are case-insensitive on LinkedIn, so they are folded.
func profileFromHandle(h string) (Profile, error) {
	if isMemberID(h) {
		return Profile{Key: "id:" + h, MemberID: h}, nil
	}
	if strings.HasPrefix(h, "ACw") && len(h) >= minMemberIDLen && isIDChars(h) {
		return Profile{}, invalidf("Sales Navigator ids cannot be mapped to a profile; send the /in/ link")
	}
	if !utf8.ValidString(h) {
		return Profile{}, invalidf("profile handle is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(h); n < minHandleLen || n > maxHandleLen {
		return Profile{}, invalidf("profile handle must be %d to %d characters", minHandleLen, maxHandleLen)
	}
	if i := strings.IndexFunc(h, func(r rune) bool { return !isSlugRune(r) }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(h[i:])
		return Profile{}, invalidf("profile handle contains %q; only letters, digits, - and _ are allowed", r)
	}
	f := foldCase(h)
	return Profile{Key: "in:" + f, PublicIdentifier: f, URL: profileURLBase + url.PathEscape(f)}, nil
}

// isSlugRune admits any script's letters and digits because LinkedIn allows unicode handles;
// combining marks are admitted so decomposed spellings are not rejected, but no Unicode
// normalization is applied (that would need a dependency), so NFC and NFD spellings of one
// handle get different keys.
func isSlugRune(r rune) bool {
	return r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// isMemberID recognizes LinkedIn's opaque member ids ("ACoAA…"). The length band keeps a
// short handle that happens to start with "ACo" from being read as an id.
func isMemberID(s string) bool {
	return strings.HasPrefix(s, "ACo") && len(s) >= minMemberIDLen && len(s) <= maxMemberIDLen && isIDChars(s)
}

func isIDChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// foldCase case-folds as ToLower(ToUpper(r)) rather than ToLower alone: plain lowercasing leaves
// runes such as 'ſ' and 'ı' apart from 'S' and 'I', so an upper-cased copy of a handle would
// get another key. This fold is idempotent and stable under upper-casing for every rune.
func foldCase(s string) string {
	return strings.Map(func(r rune) rune { return unicode.ToLower(unicode.ToUpper(r)) }, s)
}

// looksLikeURL tells a link from a bare handle: handles never contain these characters.
func looksLikeURL(s string) bool {
	return strings.ContainsAny(s, "/.:?#@")
}

// linkedInPath parses the loose link forms clients send (any case, with or without scheme,
// www., m. or a country subdomain, query, fragment, trailing slash) and returns the
// percent-decoded, non-empty path segments. Segments are split before decoding so an encoded
// "/" stays inside its segment and is then rejected as an illegal character.
func linkedInPath(s string) ([]string, error) {
	lower := strings.ToLower(s)
	raw := s
	switch {
	case strings.HasPrefix(lower, "http://"), strings.HasPrefix(lower, "https://"):
	case strings.HasPrefix(lower, "//"):
		raw = "https:" + s
	case strings.Contains(lower, "://"):
		return nil, invalidf("link must use http or https")
	default:
		raw = "https://" + s
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, invalidf("link is not a valid URL")
	}
	if !isLinkedInHost(strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")) {
		return nil, invalidf("link is not a linkedin.com address")
	}
	var segs []string
	for _, p := range strings.Split(u.EscapedPath(), "/") {
		if p == "" {
			continue
		}
		d, err := url.PathUnescape(p)
		if err != nil {
			return nil, invalidf("link has malformed percent-encoding")
		}
		if strings.IndexFunc(d, unicode.IsControl) >= 0 {
			return nil, invalidf("link contains control characters")
		}
		segs = append(segs, d)
	}
	return segs, nil
}

// isLinkedInHost admits linkedin.com with no subdomain, www., the mobile m./mobile. hosts and
// two-letter country subdomains (de., uk., fr., …), which all serve the same profiles.
func isLinkedInHost(h string) bool {
	if h == "linkedin.com" {
		return true
	}
	sub, ok := strings.CutSuffix(h, ".linkedin.com")
	if !ok {
		return false
	}
	switch sub {
	case "www", "m", "mobile":
		return true
	}
	return len(sub) == 2 && sub[0] >= 'a' && sub[0] <= 'z' && sub[1] >= 'a' && sub[1] <= 'z'
}

// Company matching: a company blacklist entry must catch a lead whether the
// entry or the lead names the company by its LinkedIn page or by its name, and names arrive
// as "ACME, Inc.", "Acme Inc" or "acme". The normalizers below give one spelling per company.

// companySuffixes are legal-form words dropped from the end of a company name. They are the
// common English, German, French, Dutch, Nordic, Italian, Spanish and Australian/Indian forms:
// inc incorporated llc llp lp ltd limited plc corp corporation co company gmbh ag kg sa sas
// sarl srl spa bv nv oy ab pty pvt.
var companySuffixes = map[string]bool{
	"inc": true, "incorporated": true, "llc": true, "llp": true, "lp": true, "ltd": true,
	"limited": true, "plc": true, "corp": true, "corporation": true, "co": true, "company": true,
	"gmbh": true, "ag": true, "kg": true, "sa": true, "sas": true, "sarl": true, "srl": true,
	"spa": true, "bv": true, "nv": true, "oy": true, "ab": true, "pty": true, "pvt": true,
}

// NormalizeCompanyName folds case, deletes dots and apostrophes (so "S.A." is "sa" and
// "McDonald's" is "mcdonalds"), turns every other non-letter, non-digit run into one space and
// drops trailing legal suffixes, keeping at least one word so "The Company" is not emptied.
// It returns "" when the name has no letters or digits.
func NormalizeCompanyName(name string) string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for _, r := range foldCase(name) {
		switch {
		case r == '.' || r == '\'' || r == '’':
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			cur.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	for len(words) > 1 && companySuffixes[words[len(words)-1]] {
		words = words[:len(words)-1]
	}
	return strings.Join(words, " ")
}

// ParseCompanyURL recognizes linkedin.com/company/<slug> in the same loose forms as profile
// links and returns the folded slug. Company slugs may contain dots ("booking.com"), unlike
// profile handles. A bare word is never a company URL: it is a company name.
func ParseCompanyURL(s string) (slug string, ok bool) {
	s, err := cleanInput(s, "company link")
	if err != nil || !looksLikeURL(s) {
		return "", false
	}
	segs, err := linkedInPath(s)
	if err != nil || len(segs) < 2 || strings.ToLower(segs[0]) != "company" {
		return "", false
	}
	slug = segs[1]
	if n := utf8.RuneCountInString(slug); n < 1 || n > maxHandleLen {
		return "", false
	}
	for _, r := range slug {
		if !isSlugRune(r) && r != '.' {
			return "", false
		}
	}
	return foldCase(slug), true
}

// Blacklist entry types.
const (
	BlacklistAccount = "account"
	BlacklistCompany = "company"
)

// BlacklistKey is what a do-not-contact entry is stored and matched on. For an account the
// Key is the profile key ("in:…" or "id:…"); for a company it is "url:<slug>" or
// "name:<normalized name>", so a lead is checked against "url:"+slug of its company page and
// "name:"+NormalizeCompanyName of its company.
type BlacklistKey struct {
	Type string
	Key  string
}

// ParseBlacklistValue keys one POST /blacklist entry. Any http(s) or linkedin.com link given as
// a company that is not a company page is refused rather than stored as a name: a garbled
// name key would silently never match, and a do-not-contact entry that never matches is worse
// than an error the client can see.
func ParseBlacklistValue(value, typ string) (BlacklistKey, error) {
	switch typ {
	case BlacklistAccount:
		p, err := NormalizeProfile(value)
		if err != nil {
			return BlacklistKey{}, err
		}
		return BlacklistKey{Type: typ, Key: p.Key}, nil
	case BlacklistCompany:
		v, err := cleanInput(value, "company")
		if err != nil {
			return BlacklistKey{}, err
		}
		if slug, ok := ParseCompanyURL(v); ok {
			return BlacklistKey{Type: typ, Key: "url:" + slug}, nil
		}
		lower := strings.ToLower(v)
		if strings.Contains(lower, "://") || strings.Contains(lower, "linkedin.com/") {
			return BlacklistKey{}, invalidf("company link is not a linkedin.com/company/ page")
		}
		n := NormalizeCompanyName(v)
		if n == "" {
			return BlacklistKey{}, invalidf("company name has no letters or digits")
		}
		return BlacklistKey{Type: typ, Key: "name:" + n}, nil
	}
	if len(typ) > 40 {
		typ = typ[:40]
	}
	return BlacklistKey{}, invalidf("unknown blacklist type %q; use account or company", typ)
}
