package webapp

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"outreachd/outreach"
)

// The campaign builder's form as the browser sends it, and what it becomes: the same
// outreach.CampaignRequest a POST /campaigns or PATCH /campaigns/{id} carries, so the builder
// refuses exactly what the API refuses, with the API's words. Steps are repeated fields
// (step_type, step_wait, step_text, step_attachments) in the order of the page, so a script that
// reorders them on the page needs to rename nothing. The seats ticked are a repeated field
// (seats) too, in the order of the organization's seats on the page.

// builderForm is the builder's fields as typed, kept as text so a refused form is shown again as
// the person left it.
type builderForm struct {
	Name       string
	Type       string   // outbound or inbound
	Seats      []string // the acc_ ids ticked, in the page's order; none for the organization's oldest seat
	DailyLimit string
	Timezone   string
	Days       []string // monday … sunday, those ticked
	Start, End string   // HH:MM
	Terms      map[string]termForm
	Ranges     map[string]rangeForm
	Steps      []stepForm
}

// termForm is one term rule: a term per line.
type termForm struct{ Include, Exclude string }

// rangeForm is one range rule's bounds, blank for open.
type rangeForm struct{ Min, Max string }

// stepForm is one step: Type is invite or message (the domain's connect and message); Wait the
// days after the previous step; Attachments the step's attachments as JSON, carried through
// unchanged (the builder does not edit them).
type stepForm struct {
	Type, Wait, Text, Attachments string
}

// The step types as the builder names them.
const (
	stepInvite  = "invite"
	stepMessage = "message"
)

// termRules and rangeRules are the hard-filter rules in the order the form shows them, with the
// words it labels them with.
var termRules = []struct{ Key, Label string }{
	{"locations", "Locations"}, {"roles", "Roles"}, {"companies", "Companies"}, {"industries", "Industries"},
	{"headline_keywords", "Headline keywords"},
}

var rangeRules = []struct{ Key, Label string }{
	{"company_size", "Company size (employees)"}, {"follower_count", "Followers"},
}

// builderOp is what the button pressed asks: save, preview, add a step, or move or remove step
// Step (from 0).
type builderOp struct {
	Kind string // save, preview, add, up, down, remove
	Step int
}

// decodeBuilder reads the builder's form. It fails only on a form no page of ours sends (steps
// whose fields do not line up, an unknown button): what a person types is checked when saved.
func decodeBuilder(form url.Values) (builderForm, builderOp, error) {
	f := builderForm{Name: form.Get("name"), Type: form.Get("type"), Seats: form["seats"],
		DailyLimit: strings.TrimSpace(form.Get("daily_limit")), Timezone: form.Get("timezone"), Days: form["day"],
		Start: form.Get("start"), End: form.Get("end"), Terms: map[string]termForm{}, Ranges: map[string]rangeForm{}}
	for _, r := range termRules {
		f.Terms[r.Key] = termForm{Include: form.Get("f_" + r.Key + "_include"), Exclude: form.Get("f_" + r.Key + "_exclude")}
	}
	for _, r := range rangeRules {
		f.Ranges[r.Key] = rangeForm{Min: strings.TrimSpace(form.Get("f_" + r.Key + "_min")), Max: strings.TrimSpace(form.Get("f_" + r.Key + "_max"))}
	}
	types, waits, texts, atts := form["step_type"], form["step_wait"], form["step_text"], form["step_attachments"]
	if len(waits) != len(types) || len(texts) != len(types) || len(atts) != len(types) {
		return f, builderOp{}, outreach.Invalidf("the steps of the form do not line up (%d types, %d waits, %d messages); reload the page and try again",
			len(types), len(waits), len(texts))
	}
	if len(types) > outreach.MaxSequenceSteps+1 {
		return f, builderOp{}, outreach.Invalidf("the form has %d steps, at most %d are allowed", len(types), outreach.MaxSequenceSteps)
	}
	for i := range types {
		f.Steps = append(f.Steps, stepForm{Type: types[i], Wait: strings.TrimSpace(waits[i]), Text: texts[i], Attachments: atts[i]})
	}
	op, err := parseBuilderOp(form.Get("op"), len(f.Steps))
	return f, op, err
}

func parseBuilderOp(s string, steps int) (builderOp, error) {
	kind, n, hasStep := strings.Cut(s, ":")
	switch kind {
	case "", "save", "preview", "add":
		if !hasStep {
			if kind == "" {
				kind = "save" // Enter in a field
			}
			return builderOp{Kind: kind}, nil
		}
	case "up", "down", "remove":
		i, err := strconv.Atoi(n)
		if err == nil && i >= 0 && i < steps {
			return builderOp{Kind: kind, Step: i}, nil
		}
	}
	return builderOp{}, outreach.Invalidf("the form asked for %q, which this page does not do; reload the page and try again", s)
}

// apply does what op asks of the steps; save and preview change nothing.
func (f *builderForm) apply(op builderOp) {
	i := op.Step
	switch op.Kind {
	case "add":
		if len(f.Steps) < outreach.MaxSequenceSteps {
			f.Steps = append(f.Steps, f.newStep())
		}
	case "up":
		if i > 0 {
			f.Steps[i-1], f.Steps[i] = f.Steps[i], f.Steps[i-1]
		}
	case "down":
		if i < len(f.Steps)-1 {
			f.Steps[i], f.Steps[i+1] = f.Steps[i+1], f.Steps[i]
		}
	case "remove":
		f.Steps = append(f.Steps[:i], f.Steps[i+1:]...)
	}
}

// newStep is the step Add step adds: the invitation first in an outbound campaign, then messages
// a day apart.
func (f *builderForm) newStep() stepForm {
	if len(f.Steps) == 0 && f.Type != outreach.OutreachInbound {
		return stepForm{Type: stepInvite, Wait: "0"}
	}
	return stepForm{Type: stepMessage, Wait: "1"}
}

// request is the form as the API's request: every part sent, so a save replaces the draft's
// settings whole (the source settings, which the builder does not show, stay).
func (f builderForm) request() (outreach.CampaignRequest, error) {
	req := outreach.CampaignRequest{Name: &f.Name, OutreachType: &f.Type}
	limit, err := strconv.Atoi(f.DailyLimit)
	if err != nil {
		return req, outreach.Invalidf("daily_limit must be a whole number between 1 and %d, got %q", outreach.MaxDailyLimit, f.DailyLimit)
	}
	req.DailyLimit = &limit
	days := f.Days
	if days == nil {
		days = []string{}
	}
	if req.Schedule, err = json.Marshal(map[string]any{"timezone": f.Timezone, "workingDays": days,
		"startTime": f.Start, "endTime": f.End}); err != nil {
		return req, err
	}
	steps := make([]map[string]any, len(f.Steps))
	for i, s := range f.Steps {
		if steps[i], err = s.request(i); err != nil {
			return req, err
		}
	}
	if req.Sequence, err = json.Marshal(steps); err != nil {
		return req, err
	}
	filters, err := f.filters()
	if err != nil {
		return req, err
	}
	req.Meta = &outreach.CampaignMeta{HardFilters: filters}
	seats := append([]string{}, f.Seats...)
	req.AccountIDs = &seats
	return req, nil
}

// request is step i as the API's step.
func (s stepForm) request(i int) (map[string]any, error) {
	typ := s.Type
	switch s.Type {
	case stepInvite:
		typ = outreach.StepConnect
	case stepMessage:
	default:
		return nil, outreach.Invalidf("sequence[%d].type %q must be invite or message", i, s.Type)
	}
	wait := 0
	if s.Wait != "" {
		var err error
		if wait, err = strconv.Atoi(s.Wait); err != nil {
			return nil, outreach.Invalidf("sequence[%d].delay_days must be a whole number of days, got %q", i, s.Wait)
		}
	}
	step := map[string]any{"type": typ, "delay_days": wait, "text": s.Text}
	if a := strings.TrimSpace(s.Attachments); a != "" && a != "[]" {
		step["attachments"] = json.RawMessage(a)
	}
	return step, nil
}

// filters are the form's rules as meta.hard_filters JSON.
func (f builderForm) filters() (json.RawMessage, error) {
	out := map[string]any{}
	for _, r := range termRules {
		t := f.Terms[r.Key]
		rule := map[string][]string{}
		if inc := lines(t.Include); len(inc) > 0 {
			rule["include"] = inc
		}
		if exc := lines(t.Exclude); len(exc) > 0 {
			rule["exclude"] = exc
		}
		if len(rule) > 0 {
			out[r.Key] = rule
		}
	}
	for _, r := range rangeRules {
		rg := f.Ranges[r.Key]
		rule := map[string]int{}
		for _, b := range []struct{ name, val string }{{"min", rg.Min}, {"max", rg.Max}} {
			if b.val == "" {
				continue
			}
			n, err := strconv.Atoi(b.val)
			if err != nil {
				return nil, outreach.Invalidf("meta.hard_filters: %s.%s must be a whole number, got %q", r.Key, b.name, b.val)
			}
			rule[b.name] = n
		}
		if len(rule) > 0 {
			out[r.Key] = rule
		}
	}
	return json.Marshal(out)
}

// lines are the non-blank lines of s, trimmed.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// builderFormOf is the form showing settings as stored (a draft to edit, or a new campaign's
// defaults).
func builderFormOf(s outreach.CampaignSettings) builderForm {
	f := builderForm{Name: s.Name, Type: s.OutreachType, DailyLimit: strconv.Itoa(s.DailyLimit),
		Timezone: s.Schedule.Timezone, Days: s.Schedule.WorkingDays, Start: s.Schedule.StartTime, End: s.Schedule.EndTime,
		Terms: map[string]termForm{}, Ranges: map[string]rangeForm{}}
	f.Seats = append([]string(nil), s.AccountIDs...)
	for _, r := range termRules {
		if rule := s.HardFilters.Term(r.Key); rule != nil {
			f.Terms[r.Key] = termForm{Include: strings.Join(rule.Include, "\n"), Exclude: strings.Join(rule.Exclude, "\n")}
		}
	}
	for _, r := range rangeRules {
		if rule := s.HardFilters.Range(r.Key); rule != nil {
			f.Ranges[r.Key] = rangeForm{Min: intText(rule.Min), Max: intText(rule.Max)}
		}
	}
	for _, st := range s.Sequence {
		sf := stepForm{Type: stepMessage, Wait: strconv.Itoa(st.DelayDays), Text: st.Text}
		if st.Type == outreach.StepConnect {
			sf.Type = stepInvite
		}
		if len(st.Attachments) > 0 {
			b, _ := json.Marshal(st.Attachments) // attachments always encode
			sf.Attachments = string(b)
		}
		f.Steps = append(f.Steps, sf)
	}
	return f
}

func intText(p *int) string {
	if p == nil {
		return ""
	}
	return fmt.Sprint(*p)
}
