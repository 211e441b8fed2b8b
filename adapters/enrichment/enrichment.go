// Package enrichment looks up what is publicly known about a person (the person block of the
// API) through an Enricher, with a deterministic Simulator for tests, local runs and demos.
//
// It must not decide anything: filters and verdicts belong to the domain; an enricher only
// reports facts, and says nil for what it does not know.
package enrichment

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"outreachd/outreach"
)

// Enricher fills the person block (outreach.Person) for one lead. Nil is unknown, which the
// filters treat differently from a known mismatch (filter_unknown_only).
type Enricher interface {
	Enrich(ctx context.Context, req outreach.LookupRequest) (outreach.PersonLookup, error)
}

// ErrNotFound means the provider does not know the profile at all; the lead stays unenriched.
var ErrNotFound = errors.New("enrichment: profile not found")

// SimConfig tunes the Simulator.
type SimConfig struct {
	Seed int64
	// Latency is how long each Enrich call takes, as a real provider's would; 0: none.
	Latency time.Duration
}

// Simulator fills the person block from a seeded hash of the profile key: the same key and
// seed always give the same person. About 2% of profiles are unknown (ErrNotFound) and, per
// field, 5-20% of profiles leave that field unknown. It keeps no state.
type Simulator struct {
	cfg SimConfig
}

// NewSimulator returns an enrichment simulator.
func NewSimulator(cfg SimConfig) (*Simulator, error) {
	if cfg.Latency < 0 {
		return nil, errors.New("enrichment sim: negative latency")
	}
	return &Simulator{cfg: cfg}, nil
}

var _ Enricher = (*Simulator)(nil)

// Enrich returns the simulated person for req.
func (s *Simulator) Enrich(ctx context.Context, req outreach.LookupRequest) (outreach.PersonLookup, error) {
	if s.cfg.Latency > 0 {
		t := time.NewTimer(s.cfg.Latency)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return outreach.PersonLookup{}, ctx.Err()
		case <-t.C:
		}
	}
	if err := ctx.Err(); err != nil {
		return outreach.PersonLookup{}, err
	}
	key := firstNonEmpty(req.ProfileKey, req.PublicIdentifier, req.Name)
	if key == "" {
		return outreach.PersonLookup{}, errors.New("enrichment sim: request names no one")
	}
	if s.unit(key, "found") < 0.02 {
		return outreach.PersonLookup{}, fmt.Errorf("%s: %w", key, ErrNotFound)
	}

	p := outreach.PersonLookup{Found: true}
	// known reports whether this profile knows field; unknownShare of profiles do not.
	known := func(field string, unknownShare float64) bool { return s.unit(key, "known", field) >= unknownShare }

	role := strings.TrimSpace(req.Title)
	if role == "" && known("role", 0.05) {
		role = s.pick(key, "role", roles)
	}
	if role != "" {
		p.Role = &role
	}
	company := strings.TrimSpace(req.Company)
	if company == "" && known("company", 0.05) {
		company = s.pick(key, "company", companyPrefixes) + " " + s.pick(key, "company-suffix", companySuffixes)
	}
	if company != "" {
		p.Company = &company
		if known("website", 0.2) {
			p.CompanyWebsite = ptr("https://www." + slug(company) + ".example")
		}
		if known("company_page", 0.1) {
			p.CompanyLinkedInURL = ptr("https://www.linkedin.com/company/" + slug(company))
		}
		if known("size", 0.15) {
			p.CompanySize = ptr(s.pick(key, "size", sizes))
		}
		if known("industry", 0.1) {
			p.Industry = ptr(s.pick(key, "industry", industries))
		}
	}
	if loc := strings.TrimSpace(req.Location); loc != "" {
		p.Location = &loc
	} else if known("location", 0.08) {
		p.Location = ptr(s.pick(key, "location", locations))
	}
	if role != "" && known("headline", 0.1) {
		h := role
		if company != "" {
			h += " at " + company
		}
		p.Headline = &h
	}
	if known("followers", 0.1) {
		// Log-ish spread: most people have a few hundred followers, a few have tens of thousands.
		u := s.unit(key, "followers")
		n := int(50 + u*u*u*30000)
		p.FollowerCount = &n
	}
	return p, nil
}

func (s *Simulator) hash(parts ...string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d", s.cfg.Seed)
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	z := h.Sum64() + 0x9e3779b97f4a7c15 // splitmix64 finish: FNV alone clusters similar keys
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (s *Simulator) unit(parts ...string) float64 { return float64(s.hash(parts...)>>11) / (1 << 53) }

func (s *Simulator) pick(key, field string, list []string) string {
	return list[s.hash(key, "pick", field)%uint64(len(list))]
}

func ptr[T any](v T) *T { return &v }

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// slug makes a domain-like name; the simulator's websites use the reserved .example TLD so a
// demo never points at a real company.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else if b.Len() > 0 && !strings.HasSuffix(b.String(), "-") {
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}

var (
	roles = []string{"Head of Sales", "VP of Marketing", "Founder & CEO", "Co-founder", "CTO",
		"Head of Growth", "Sales Director", "Operations Manager", "Account Executive",
		"Chief Revenue Officer", "Product Manager", "Recruiting Lead", "Marketing Manager",
		"Business Development Manager", "Head of Partnerships", "COO"}
	companyPrefixes = []string{"Northwind", "Bluepeak", "Larkspur", "Ironbridge", "Cobalt",
		"Meridian", "Foxglove", "Quarry", "Brightline", "Tidewater", "Orchard", "Summit",
		"Kestrel", "Juniper", "Halcyon", "Redwood"}
	companySuffixes = []string{"Labs", "Software", "Analytics", "Health", "Logistics", "Capital",
		"Systems", "Studio", "Partners", "Robotics"}
	industries = []string{"Computer Software", "Information Technology & Services",
		"Marketing & Advertising", "Financial Services", "Hospital & Health Care", "Staffing & Recruiting",
		"Logistics & Supply Chain", "Real Estate", "Management Consulting", "E-Learning",
		"Retail", "Manufacturing"}
	locations = []string{"London, United Kingdom", "Berlin, Germany", "New York, New York, United States",
		"San Francisco Bay Area", "Austin, Texas, United States", "Toronto, Ontario, Canada",
		"Amsterdam, North Holland, Netherlands", "Paris, Île-de-France, France", "Stockholm, Sweden",
		"Sydney, New South Wales, Australia", "Dublin, Ireland", "Madrid, Spain"}
	sizes = []string{"1-10", "11-50", "11-50", "51-200", "51-200", "51-200", "201-500",
		"501-1000", "1001-5000", "5001-10000", "10001+"}
)
