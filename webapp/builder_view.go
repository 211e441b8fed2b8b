package webapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"outreachd/outreach"
	"outreachd/storage"
)

// What the campaign builder shows: the form as typed, the organization's seats and default
// filters, each step with its preview for a sample person, and a refusal placed where it belongs.

// builderView is what the builder's template shows.
type builderView struct {
	Action    string
	New       bool
	F         builderForm
	Seats     []seatOption
	Oldest    string // the name of the seat a campaign that ticks none sends from
	Timezones []string
	Days      []dayOption
	Terms     []termView
	Ranges    []rangeView
	Defaults  []string // the organization's default filters, in words
	Sample    sampleView
	Steps     []stepView
	NewStep   stepView // what Add step adds, for the script
	Errors    map[string]string
	Refused   string // why the last Save was refused, in the API's words
	RefusedAt string // the id of the section it is about
	Unsaved   bool
	MaxNote   int
	MaxSteps  int
}

// seatOption is one of the organization's seats, ticked when the campaign sends from it.
type seatOption struct {
	storage.LinkedInAccount
	Checked bool
}

type dayOption struct {
	Value, Label string
	Checked      bool
}

type termView struct{ Key, Label, Include, Exclude string }

type rangeView struct{ Key, Label, Min, Max string }

// sampleView is the person the previews are written for.
type sampleView struct {
	Label string // who they are, said plainly
	Vars  string // the variables' values as JSON, for the script's live preview
	p     outreach.VariablePerson
}

type stepView struct {
	stepForm
	Key     string // unique in the page, for element ids
	Index   int    // from 0
	Num     int    // from 1
	Invite  bool
	Count   int // characters of the text
	Over    bool
	Preview string
	Unknown []string
	Error   string
	Last    bool
}

var weekdayLabels = []struct{ Value, Label string }{
	{"monday", "Monday"}, {"tuesday", "Tuesday"}, {"wednesday", "Wednesday"}, {"thursday", "Thursday"},
	{"friday", "Friday"}, {"saturday", "Saturday"}, {"sunday", "Sunday"},
}

// builder builds the view of form f for the organization (and the campaign c when editing one).
func (a *App) builder(ctx context.Context, u User, c *storage.Campaign, f builderForm, err error) (builderView, error) {
	v := builderView{F: f, New: c == nil, Action: "/app/campaigns/new", Timezones: timezonesWith(f.Timezone),
		Errors: map[string]string{}, MaxNote: outreach.MaxConnectNoteLen, MaxSteps: outreach.MaxSequenceSteps}
	if c != nil {
		v.Action = "/app/campaigns/" + c.ID + "/edit"
	}
	seats, e := a.store.OrgLinkedInAccounts(ctx, u.OrgID)
	if e != nil {
		return v, e
	}
	for _, s := range seats {
		v.Seats = append(v.Seats, seatOption{LinkedInAccount: s, Checked: slices.Contains(f.Seats, s.ID)})
	}
	if oldest := oldestSeat(seats); oldest != nil {
		v.Oldest = oldest.Name
	}
	for _, d := range weekdayLabels {
		v.Days = append(v.Days, dayOption{Value: d.Value, Label: d.Label, Checked: slices.Contains(f.Days, d.Value)})
	}
	for _, r := range termRules {
		t := f.Terms[r.Key]
		v.Terms = append(v.Terms, termView{Key: r.Key, Label: r.Label, Include: t.Include, Exclude: t.Exclude})
	}
	for _, r := range rangeRules {
		rg := f.Ranges[r.Key]
		v.Ranges = append(v.Ranges, rangeView{Key: r.Key, Label: r.Label, Min: rg.Min, Max: rg.Max})
	}
	if v.Defaults, e = a.orgDefaultsInWords(ctx, u.OrgID); e != nil {
		return v, e
	}
	if v.Sample, e = a.sampleFor(ctx, u, c); e != nil {
		return v, e
	}
	at := -1
	if err != nil {
		var section string
		section, at = placeError(err)
		v.Errors[section] = err.Error()
		v.Refused, v.RefusedAt = err.Error(), sectionIDs[section]
		if at >= 0 {
			v.RefusedAt = fmt.Sprintf("step-%d", at+1)
		}
	}
	for i, s := range f.Steps {
		v.Steps = append(v.Steps, v.stepView(i, s))
		if i == at {
			v.Steps[i].Error = err.Error()
		}
	}
	if len(v.Steps) > 0 {
		v.Steps[len(v.Steps)-1].Last = true
	}
	nf := f
	v.NewStep = v.stepView(len(f.Steps), nf.newStep())
	v.NewStep.Key, v.NewStep.Last = "new", true
	return v, nil
}

func (v builderView) stepView(i int, s stepForm) stepView {
	n := utf8.RuneCountInString(s.Text)
	sv := stepView{stepForm: s, Key: strconv.Itoa(i), Index: i, Num: i + 1, Invite: s.Type == stepInvite, Count: n,
		Preview: outreach.Personalize(s.Text, v.Sample.p), Unknown: outreach.UnknownVariables(s.Text)}
	sv.Over = sv.Invite && n > outreach.MaxConnectNoteLen
	return sv
}

// examplePerson is whom the previews are written for while a campaign has no leads.
var examplePerson = outreach.VariablePerson{Name: "Ada Lovelace", Company: "Analytical Engines Ltd", Title: "Head of Engineering"}

// sampleFor picks the person the previews show: one of the campaign's leads (an accepted one
// when there is one), else the example person, said to be one.
func (a *App) sampleFor(ctx context.Context, u User, c *storage.Campaign) (sampleView, error) {
	s := sampleView{p: examplePerson, Label: "an example person, Ada Lovelace, Head of Engineering at Analytical Engines Ltd (this campaign has no leads yet)"}
	if c != nil {
		for _, verdict := range []string{outreach.VerdictAccepted, ""} {
			leads, _, _, err := a.store.ListLeads(ctx, u.OrgID, c.ID, storage.LeadQuery{Source: "all", Verdict: verdict, Limit: 1})
			if err != nil {
				return s, err
			}
			if len(leads) > 0 {
				s.p = leads[0].Variables()
				s.Label = leadLabel(s.p) + ", a lead of this campaign"
				break
			}
		}
	}
	vars := map[string]string{}
	for _, name := range outreach.SequenceVariables {
		vars[name] = outreach.Personalize("{{"+name+"}}", s.p)
	}
	b, err := json.Marshal(vars)
	s.Vars = string(b)
	return s, err
}

func leadLabel(p outreach.VariablePerson) string {
	out := p.Name
	if out == "" {
		out = "a person without a known name"
	}
	switch {
	case p.Title != "" && p.Company != "":
		out += ", " + p.Title + " at " + p.Company
	case p.Company != "":
		out += " at " + p.Company
	case p.Title != "":
		out += ", " + p.Title
	}
	return out
}

// orgDefaultFilters are the organization's default filters, which every save merges in.
func (a *App) orgDefaultFilters(ctx context.Context, orgID string) (outreach.HardFilters, error) {
	org, err := a.store.GetOrg(ctx, orgID)
	if err != nil {
		return outreach.HardFilters{}, err
	}
	f, err := outreach.ParseHardFilters(org.DefaultFilters)
	if err != nil {
		return outreach.HardFilters{}, fmt.Errorf("default filters of %s: %v", orgID, err)
	}
	return f, nil
}

// orgDefaultsInWords says the organization's default filters.
func (a *App) orgDefaultsInWords(ctx context.Context, orgID string) ([]string, error) {
	f, err := a.orgDefaultFilters(ctx, orgID)
	if err != nil {
		return nil, err
	}
	return filtersInWords(f), nil
}

// filtersInWords says each rule of f on a line of its own.
func filtersInWords(f outreach.HardFilters) []string {
	var out []string
	for _, r := range termRules {
		t := f.Term(r.Key)
		if t == nil {
			continue
		}
		var parts []string
		if len(t.Include) > 0 {
			parts = append(parts, "one of "+strings.Join(t.Include, ", "))
		}
		if len(t.Exclude) > 0 {
			parts = append(parts, "none of "+strings.Join(t.Exclude, ", "))
		}
		if len(parts) > 0 {
			out = append(out, r.Label+": "+strings.Join(parts, "; "))
		}
	}
	for _, r := range rangeRules {
		rg := f.Range(r.Key)
		switch {
		case rg == nil:
		case rg.Min != nil && rg.Max != nil:
			out = append(out, fmt.Sprintf("%s: %d to %d", r.Label, *rg.Min, *rg.Max))
		case rg.Min != nil:
			out = append(out, fmt.Sprintf("%s: at least %d", r.Label, *rg.Min))
		case rg.Max != nil:
			out = append(out, fmt.Sprintf("%s: at most %d", r.Label, *rg.Max))
		}
	}
	return out
}

// sectionIDs are the element ids of the builder's sections, by placeError's names.
var sectionIDs = map[string]string{"name": "basics", "type": "basics", "seat": "basics", "limit": "basics",
	"schedule": "schedule", "filters": "filters", "sequence": "sequence", "form": "form"}

var stepAt = regexp.MustCompile(`^sequence\[(\d+)\]`)

// placeError says where on the form a refusal belongs: a section (name, type, seat, limit,
// schedule, filters, sequence, or form for the top) and the step it names (-1 for none). The
// words are the API's; the place is read from the field they start with.
func placeError(err error) (string, int) {
	msg := err.Error()
	if errors.Is(err, outreach.ErrInvalidFilters) || strings.HasPrefix(msg, "meta.hard_filters") {
		return "filters", -1
	}
	if m := stepAt.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return "sequence", n
	}
	for _, p := range []struct{ prefix, section string }{{"sequence", "sequence"}, {"schedule", "schedule"},
		{"daily_limit", "limit"}, {"account_ids", "seat"}, {"name", "name"}, {"outreach_type", "type"}} {
		if strings.HasPrefix(msg, p.prefix) {
			return p.section, -1
		}
	}
	return "form", -1
}
