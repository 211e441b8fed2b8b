package outreach

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ErrInvalidFilters marks hard filters that can never be satisfied or cannot be read (422).
var ErrInvalidFilters = errors.New("invalid hard_filters")

// invalidFilters is an InvalidInputError of kind ErrInvalidFilters (422).
func invalidFilters(format string, args ...any) error {
	return &InvalidInputError{Message: fmt.Sprintf(format, args...), Kind: ErrInvalidFilters}
}

// TermRule keeps or drops people by words in one text field of their profile. Terms match as
// case-insensitive substrings ("cto" matches "CTO & Co-founder").
type TermRule struct {
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// RangeRule bounds a number; nil ends are open.
type RangeRule struct {
	Min *int `json:"min,omitempty"`
	Max *int `json:"max,omitempty"`
}

// HardFilters is the inner structure of meta.hard_filters (this is
// outreachd's, documented in docs/api.md). A rule that is absent does not filter.
type HardFilters struct {
	Locations        *TermRule  `json:"locations,omitempty"`
	Roles            *TermRule  `json:"roles,omitempty"`
	Companies        *TermRule  `json:"companies,omitempty"`
	Industries       *TermRule  `json:"industries,omitempty"`
	HeadlineKeywords *TermRule  `json:"headline_keywords,omitempty"`
	CompanySize      *RangeRule `json:"company_size,omitempty"`
	FollowerCount    *RangeRule `json:"follower_count,omitempty"`
}

const (
	maxFilterTerms   = 200
	maxFilterTermLen = 200
)

// ParseHardFilters reads and validates filters; every problem wraps ErrInvalidFilters and
// names the rule at fault. An empty or null document means no filters.
func ParseHardFilters(raw []byte) (HardFilters, error) {
	var f HardFilters
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return f, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return HardFilters{}, invalidFilters("%s (known rules: locations, roles, companies, industries, headline_keywords, company_size, follower_count)",
			DescribeJSONError(err, "meta.hard_filters"))
	}
	return f, f.Validate()
}

// Validate reports filters that no person could ever pass, or that are malformed.
func (f HardFilters) Validate() error {
	for _, tr := range f.termRules() {
		if tr.rule == nil {
			continue
		}
		if len(tr.rule.Include)+len(tr.rule.Exclude) > maxFilterTerms {
			return invalidFilters("%s has more than %d terms", tr.name, maxFilterTerms)
		}
		inc := map[string]bool{}
		for _, t := range tr.rule.Include {
			n := normTerm(t)
			if n == "" || len(t) > maxFilterTermLen {
				return invalidFilters("%s.include has an empty or over-long term %q", tr.name, t)
			}
			inc[n] = true
		}
		for _, t := range tr.rule.Exclude {
			n := normTerm(t)
			if n == "" || len(t) > maxFilterTermLen {
				return invalidFilters("%s.exclude has an empty or over-long term %q", tr.name, t)
			}
			if inc[n] {
				return invalidFilters("%s both includes and excludes %q, so nobody can pass it", tr.name, t)
			}
		}
	}
	for _, rr := range f.rangeRules() {
		if rr.rule == nil {
			continue
		}
		if (rr.rule.Min != nil && *rr.rule.Min < 0) || (rr.rule.Max != nil && *rr.rule.Max < 0) {
			return invalidFilters("%s bounds must not be negative", rr.name)
		}
		if rr.rule.Min != nil && rr.rule.Max != nil && *rr.rule.Min > *rr.rule.Max {
			return invalidFilters("%s.min (%d) is greater than %s.max (%d), so nobody can pass it",
				rr.name, *rr.rule.Min, rr.name, *rr.rule.Max)
		}
	}
	return nil
}

// Term is the term rule called name (locations, roles, companies, industries,
// headline_keywords); nil when it is absent or no rule has that name.
func (f HardFilters) Term(name string) *TermRule {
	for _, tr := range f.termRules() {
		if tr.name == name {
			return tr.rule
		}
	}
	return nil
}

// Range is the range rule called name (company_size, follower_count); nil when it is absent or
// no rule has that name.
func (f HardFilters) Range(name string) *RangeRule {
	for _, rr := range f.rangeRules() {
		if rr.name == name {
			return rr.rule
		}
	}
	return nil
}

// IsEmpty reports filters that filter nothing.
func (f HardFilters) IsEmpty() bool { return f == HardFilters{} }

type namedTerm struct {
	name string
	rule *TermRule
	get  func(Facts) *string
}

type namedRange struct {
	name string
	rule *RangeRule
	get  func(Facts) (int, int, bool) // person's value as a [lo, hi] span
}

func (f HardFilters) termRules() []namedTerm {
	return []namedTerm{
		{"locations", f.Locations, func(p Facts) *string { return p.Location }},
		{"roles", f.Roles, func(p Facts) *string { return p.Role }},
		{"companies", f.Companies, func(p Facts) *string { return p.Company }},
		{"industries", f.Industries, func(p Facts) *string { return p.Industry }},
		{"headline_keywords", f.HeadlineKeywords, func(p Facts) *string { return p.Headline }},
	}
}

func (f HardFilters) rangeRules() []namedRange {
	return []namedRange{
		{"company_size", f.CompanySize, func(p Facts) (int, int, bool) {
			if p.CompanySize == nil {
				return 0, 0, false
			}
			return ParseSizeBand(*p.CompanySize)
		}},
		{"follower_count", f.FollowerCount, func(p Facts) (int, int, bool) {
			if p.FollowerCount == nil {
				return 0, 0, false
			}
			return *p.FollowerCount, *p.FollowerCount, true
		}},
	}
}

// Merge stamps the organization's default filters onto a campaign's own: exclusions add up
// (the organization's are always enforced), the campaign's inclusions win where it has any,
// and ranges intersect. The result is validated, so a campaign that contradicts its
// organization's defaults is refused with the clash named.
func (f HardFilters) Merge(org HardFilters) (HardFilters, error) {
	out := f
	mergeTerm := func(own, def *TermRule) *TermRule {
		if def == nil {
			return own
		}
		if own == nil {
			c := *def
			return &c
		}
		m := TermRule{Include: own.Include, Exclude: unionTerms(own.Exclude, def.Exclude)}
		if len(m.Include) == 0 {
			m.Include = def.Include
		}
		return &m
	}
	mergeRange := func(own, def *RangeRule) *RangeRule {
		if def == nil {
			return own
		}
		if own == nil {
			c := *def
			return &c
		}
		m := *own
		if def.Min != nil && (m.Min == nil || *def.Min > *m.Min) {
			m.Min = def.Min
		}
		if def.Max != nil && (m.Max == nil || *def.Max < *m.Max) {
			m.Max = def.Max
		}
		return &m
	}
	out.Locations = mergeTerm(f.Locations, org.Locations)
	out.Roles = mergeTerm(f.Roles, org.Roles)
	out.Companies = mergeTerm(f.Companies, org.Companies)
	out.Industries = mergeTerm(f.Industries, org.Industries)
	out.HeadlineKeywords = mergeTerm(f.HeadlineKeywords, org.HeadlineKeywords)
	out.CompanySize = mergeRange(f.CompanySize, org.CompanySize)
	out.FollowerCount = mergeRange(f.FollowerCount, org.FollowerCount)
	if err := out.Validate(); err != nil {
		return HardFilters{}, fmt.Errorf("%w (after applying the organization's default filters)", err)
	}
	return out, nil
}

func unionTerms(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range append(append([]string{}, a...), b...) {
		if n := normTerm(t); !seen[n] {
			seen[n] = true
			out = append(out, t)
		}
	}
	return out
}

// Facts are what the filters can see of a person; nil means never learned.
type Facts struct {
	Location, Role, Company, Industry, Headline, CompanySize *string
	FollowerCount                                            *int
}

// Verdict is the outcome of evaluating filters against facts.
type Verdict struct {
	// Verdict is pending, accepted or rejected.
	Verdict string
	// Reason names the first failed rule; "" when accepted.
	Reason string
	// UnknownOnly is true on a rejection caused only by facts never learned, with no proven mismatch.
	UnknownOnly bool
}

// Filter verdicts.
const (
	VerdictPending  = "pending"
	VerdictAccepted = "accepted"
	VerdictRejected = "rejected"
)

// Evaluate judges facts against the filters. A proven mismatch rejects at once. Facts that are
// unknown leave the verdict pending while enrichment may still learn them (final=false); once
// enrichment is over (final=true) they reject with UnknownOnly set.
func (f HardFilters) Evaluate(p Facts, final bool) Verdict {
	var unknown []string
	for _, tr := range f.termRules() {
		if tr.rule == nil || (len(tr.rule.Include) == 0 && len(tr.rule.Exclude) == 0) {
			continue
		}
		v := tr.get(p)
		if v == nil || strings.TrimSpace(*v) == "" {
			if len(tr.rule.Include) > 0 {
				unknown = append(unknown, fmt.Sprintf("%s unknown (must match one of: %s)", singular(tr.name), strings.Join(tr.rule.Include, ", ")))
			}
			continue
		}
		val := normTerm(*v)
		for _, t := range tr.rule.Exclude {
			if strings.Contains(val, normTerm(t)) {
				return Verdict{Verdict: VerdictRejected, Reason: fmt.Sprintf("%s %q matches excluded term %q", singular(tr.name), *v, t)}
			}
		}
		if len(tr.rule.Include) > 0 && !anyContains(val, tr.rule.Include) {
			return Verdict{Verdict: VerdictRejected, Reason: fmt.Sprintf("%s %q matches none of: %s", singular(tr.name), *v, strings.Join(tr.rule.Include, ", "))}
		}
	}
	for _, rr := range f.rangeRules() {
		if rr.rule == nil || (rr.rule.Min == nil && rr.rule.Max == nil) {
			continue
		}
		lo, hi, ok := rr.get(p)
		if !ok {
			unknown = append(unknown, fmt.Sprintf("%s unknown (must be %s)", rr.name, describeRange(*rr.rule)))
			continue
		}
		if (rr.rule.Min != nil && hi < *rr.rule.Min) || (rr.rule.Max != nil && lo > *rr.rule.Max) {
			return Verdict{Verdict: VerdictRejected, Reason: fmt.Sprintf("%s %s is outside %s", rr.name, describeSpan(lo, hi), describeRange(*rr.rule))}
		}
	}
	if len(unknown) > 0 {
		if !final {
			return Verdict{Verdict: VerdictPending}
		}
		sort.Strings(unknown)
		return Verdict{Verdict: VerdictRejected, Reason: strings.Join(unknown, "; "), UnknownOnly: true}
	}
	return Verdict{Verdict: VerdictAccepted}
}

// Recheck judges a stored lead against filters as they stand now: with its unknown facts final
// once enrichment is over, still open while it is pending or was skipped. It is what a lead's
// filter_reason shows.
func (f HardFilters) Recheck(p Person, enrichmentStatus string) Verdict {
	return f.Evaluate(p.Facts(), EnrichmentFinal(enrichmentStatus))
}

func anyContains(val string, terms []string) bool {
	for _, t := range terms {
		if strings.Contains(val, normTerm(t)) {
			return true
		}
	}
	return false
}

func normTerm(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

func singular(rule string) string {
	switch rule {
	case "locations":
		return "location"
	case "roles":
		return "role"
	case "companies":
		return "company"
	case "industries":
		return "industry"
	case "headline_keywords":
		return "headline"
	}
	return rule
}

func describeRange(r RangeRule) string {
	switch {
	case r.Min != nil && r.Max != nil:
		return fmt.Sprintf("between %d and %d", *r.Min, *r.Max)
	case r.Min != nil:
		return fmt.Sprintf("at least %d", *r.Min)
	default:
		return fmt.Sprintf("at most %d", *r.Max)
	}
}

func describeSpan(lo, hi int) string {
	if lo == hi {
		return strconv.Itoa(lo)
	}
	if hi == maxBand {
		return strconv.Itoa(lo) + "+"
	}
	return strconv.Itoa(lo) + "-" + strconv.Itoa(hi)
}

const maxBand = 1 << 30

// ParseSizeBand reads a headcount band as reported ("51-200", "10,001+", "11 - 50 employees",
// "500") into a closed span; ok is false when it cannot be read.
func ParseSizeBand(s string) (lo, hi int, ok bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(s, "employees")), " ")
	s = strings.ReplaceAll(s, ",", "")
	s = strings.ReplaceAll(s, " ", "")
	if strings.HasSuffix(s, "+") {
		n, err := strconv.Atoi(strings.TrimSuffix(s, "+"))
		if err != nil || n < 0 {
			return 0, 0, false
		}
		return n, maxBand, true
	}
	if a, b, found := strings.Cut(s, "-"); found {
		x, err1 := strconv.Atoi(a)
		y, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil || x < 0 || y < x {
			return 0, 0, false
		}
		return x, y, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, 0, false
	}
	return n, n, true
}
