package webapp

import (
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"outreachd/outreach"
)

// BuilderValues is a form as the builder's page sends it, with steps given as type, wait, text
// (the external tests use it too).
func BuilderValues(op string, steps ...[3]string) url.Values {
	v := url.Values{"name": {"Berlin founders"}, "type": {"outbound"}, "daily_limit": {"25"},
		"timezone": {"Europe/Berlin"}, "day": {"monday", "wednesday"}, "start": {"09:00"}, "end": {"17:30"},
		"f_roles_include": {"CTO\n\n  founder  \n"}, "f_companies_exclude": {"Globex"}, "f_company_size_min": {"10"},
		"f_company_size_max": {""}, "op": {op}}
	for _, s := range steps {
		v["step_type"] = append(v["step_type"], s[0])
		v["step_wait"] = append(v["step_wait"], s[1])
		v["step_text"] = append(v["step_text"], s[2])
		v["step_attachments"] = append(v["step_attachments"], "")
	}
	return v
}

// settingsOf is what saving the form v (with Save) stores.
func settingsOf(t *testing.T, v url.Values) (builderForm, outreach.CampaignSettings) {
	t.Helper()
	f, op, err := decodeBuilder(v)
	if err != nil || op.Kind != "save" {
		t.Fatalf("decode: %v %+v", err, op)
	}
	req, err := f.request()
	if err != nil {
		t.Fatal(err)
	}
	in, _, err := req.Create()
	if err != nil {
		t.Fatal(err)
	}
	return f, in
}

func TestDecodeBuilder(t *testing.T) {
	t.Parallel()
	two := [][3]string{{"invite", "0", "Hi {{first_name}}"}, {"message", "2", "Thanks"}}
	t.Run("the form becomes the API's request", func(t *testing.T) {
		f, in := settingsOf(t, BuilderValues("save", two...))
		want := outreach.CampaignSettings{Name: "Berlin founders", OutreachType: "outbound", DailyLimit: 25,
			Schedule: outreach.Schedule{Timezone: "Europe/Berlin", WorkingDays: []string{"monday", "wednesday"}, StartTime: "09:00", EndTime: "17:30"},
			Sequence: []outreach.SequenceStep{{Type: "connect", Text: "Hi {{first_name}}", Attachments: []outreach.Attachment{}},
				{Type: "message", DelayDays: 2, Text: "Thanks", Attachments: []outreach.Attachment{}}},
			AccountIDs: []string{}}
		ten := 10
		want.HardFilters = outreach.HardFilters{Roles: &outreach.TermRule{Include: []string{"CTO", "founder"}},
			Companies: &outreach.TermRule{Exclude: []string{"Globex"}}, CompanySize: &outreach.RangeRule{Min: &ten}}
		if !reflect.DeepEqual(in, want) {
			t.Fatalf("settings:\n%+v\nwant\n%+v", in, want)
		}
		// And back: the stored settings show the same form (the steps, the terms a line each).
		back := builderFormOf(in)
		if !reflect.DeepEqual(back.Steps, f.Steps) || back.Terms["roles"].Include != "CTO\nfounder" || back.Ranges["company_size"].Min != "10" {
			t.Fatalf("the form of the settings: %+v", back)
		}
	})
	t.Run("the step buttons", func(t *testing.T) {
		three := append(two, [3]string{"message", "3", "Third"})
		cases := []struct {
			op   string
			want []string
		}{
			{"add", []string{"Hi {{first_name}}", "Thanks", "Third", ""}},
			{"up:2", []string{"Hi {{first_name}}", "Third", "Thanks"}},
			{"up:0", []string{"Hi {{first_name}}", "Thanks", "Third"}},
			{"down:0", []string{"Thanks", "Hi {{first_name}}", "Third"}},
			{"down:2", []string{"Hi {{first_name}}", "Thanks", "Third"}},
			{"remove:1", []string{"Hi {{first_name}}", "Third"}},
			{"preview", []string{"Hi {{first_name}}", "Thanks", "Third"}},
		}
		for _, c := range cases {
			t.Run(c.op, func(t *testing.T) {
				f, op, err := decodeBuilder(BuilderValues(c.op, three...))
				if err != nil {
					t.Fatal(err)
				}
				f.apply(op)
				var got []string
				for _, s := range f.Steps {
					got = append(got, s.Text)
				}
				if !reflect.DeepEqual(got, c.want) || f.Name != "Berlin founders" {
					t.Fatalf("steps %q, want %q", got, c.want)
				}
			})
		}
		f, op, _ := decodeBuilder(BuilderValues("add"))
		f.apply(op)
		if f.Steps[0].Type != stepInvite {
			t.Fatalf("the first step added to an outbound campaign is %q", f.Steps[0].Type)
		}
	})
	t.Run("forms no page sends", func(t *testing.T) {
		misaligned := BuilderValues("save", two...)
		misaligned["step_text"] = misaligned["step_text"][:1]
		for name, v := range map[string]url.Values{
			"steps out of line": misaligned,
			"unknown button":    BuilderValues("launch", two...),
			"step out of range": BuilderValues("remove:2", two...),
			"step not a number": BuilderValues("up:x", two...),
		} {
			if _, _, err := decodeBuilder(v); !errors.Is(err, outreach.ErrInvalid) {
				t.Errorf("%s: %v", name, err)
			}
		}
	})
	t.Run("the seats ticked are the campaign's, in the page's order", func(t *testing.T) {
		sam, ann := outreach.NewID("acc"), outreach.NewID("acc")
		v := BuilderValues("save", two...)
		v["seats"] = []string{ann, sam}
		_, in := settingsOf(t, v)
		if !reflect.DeepEqual(in.AccountIDs, []string{ann, sam}) {
			t.Fatalf("account_ids %q, want %q", in.AccountIDs, []string{ann, sam})
		}
		if back := builderFormOf(in); !reflect.DeepEqual(back.Seats, []string{ann, sam}) {
			t.Fatalf("the stored seats show as %q", back.Seats)
		}
	})
	t.Run("what a person types wrong is refused with the API's words", func(t *testing.T) {
		sam := outreach.NewID("acc")
		cases := []struct {
			name    string
			change  func(url.Values)
			says    string
			section string
			step    int
		}{
			{"impossible range", func(v url.Values) { v.Set("f_company_size_max", "5") }, "meta.hard_filters: company_size.min (10) is greater than company_size.max (5), so nobody can pass it", "filters", -1},
			{"range not a number", func(v url.Values) { v.Set("f_company_size_max", "ten") }, `meta.hard_filters: company_size.max must be a whole number, got "ten"`, "filters", -1},
			{"term both ways", func(v url.Values) { v.Set("f_roles_exclude", "cto") }, "roles both includes and excludes", "filters", -1},
			{"no working day", func(v url.Values) { v.Del("day") }, "schedule.workingDays is empty", "schedule", -1},
			{"hours the wrong way", func(v url.Values) { v.Set("end", "08:00") }, "schedule.startTime 09:00 must be before schedule.endTime 08:00", "schedule", -1},
			{"limit", func(v url.Values) { v.Set("daily_limit", "0") }, "daily_limit must be between 1 and 500, got 0", "limit", -1},
			{"limit not a number", func(v url.Values) { v.Set("daily_limit", "") }, "daily_limit must be a whole number", "limit", -1},
			{"blank name", func(v url.Values) { v.Set("name", " ") }, "name is required", "name", -1},
			{"long note", func(v url.Values) { v["step_text"][0] = strings.Repeat("é", 301) }, "sequence[0].text is longer than the 300 characters of an invitation note", "sequence", 0},
			{"empty message", func(v url.Values) { v["step_text"][1] = " " }, "sequence[1].text is required on a message step", "sequence", 1},
			{"invite second", func(v url.Values) { v["step_type"][0], v["step_type"][1] = "message", "invite" }, "sequence[1] is a connect step; the connection request can only be the first step", "sequence", 1},
			{"wait not a number", func(v url.Values) { v["step_wait"][1] = "2.5" }, `sequence[1].delay_days must be a whole number of days, got "2.5"`, "sequence", 1},
			{"invite in inbound", func(v url.Values) { v.Set("type", "inbound") }, "inbound campaign messages people already connected", "sequence", 0},
			{"not a seat", func(v url.Values) { v["seats"] = []string{"Sam"} }, `account_ids[0] "Sam" is not a LinkedIn account id`, "seat", -1},
			{"second seat not a seat", func(v url.Values) { v["seats"] = []string{sam, "Sam"} }, `account_ids[1] "Sam" is not a LinkedIn account id`, "seat", -1},
			{"seat twice", func(v url.Values) { v["seats"] = []string{sam, sam} }, "account_ids[1] " + sam + " is listed twice", "seat", -1},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				v := BuilderValues("save", two...)
				c.change(v)
				f, _, err := decodeBuilder(v)
				if err != nil {
					t.Fatal(err)
				}
				req, err := f.request()
				if err == nil {
					_, _, err = req.Create()
				}
				if err == nil || !strings.Contains(err.Error(), c.says) {
					t.Fatalf("error %v, want one saying %q", err, c.says)
				}
				if section, step := placeError(err); section != c.section || step != c.step {
					t.Fatalf("placed at %s, step %d; want %s, step %d", section, step, c.section, c.step)
				}
			})
		}
	})
	t.Run("attachments set through the API go through unchanged", func(t *testing.T) {
		v := BuilderValues("save", two...)
		v["step_attachments"][1] = `[{"url":"https://files.example.com/deck.pdf","name":"deck.pdf"}]`
		f, _, _ := decodeBuilder(v)
		req, err := f.request()
		if err != nil {
			t.Fatal(err)
		}
		var seq []map[string]json.RawMessage
		if err := json.Unmarshal(req.Sequence, &seq); err != nil || string(seq[1]["attachments"]) != v["step_attachments"][1] {
			t.Fatalf("sequence %s", req.Sequence)
		}
	})
}
