package outreach

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCampaignTransitions(t *testing.T) {
	t.Parallel()
	all := []CampaignStatus{CampaignDraft, CampaignActive, CampaignPaused, CampaignCompleted, CampaignArchived}
	allowed := map[[2]CampaignStatus]bool{
		{CampaignDraft, CampaignActive}: true, {CampaignDraft, CampaignArchived}: true,
		{CampaignActive, CampaignPaused}: true, {CampaignActive, CampaignCompleted}: true,
		{CampaignPaused, CampaignActive}: true, {CampaignPaused, CampaignCompleted}: true, {CampaignPaused, CampaignArchived}: true,
		{CampaignCompleted, CampaignArchived}: true,
	}
	for _, from := range all {
		for _, to := range all {
			want := from == to || allowed[[2]CampaignStatus{from, to}]
			if got := from.CanBecome(to); got != want {
				t.Errorf("%s -> %s: %v, want %v", from, to, got, want)
			}
		}
	}
	for _, s := range all {
		if got, err := ParseCampaignStatus(string(s)); err != nil || got != s {
			t.Errorf("parse %s: %v %v", s, got, err)
		}
		if s.Closed() != (s == CampaignCompleted || s == CampaignArchived) {
			t.Errorf("%s closed = %v", s, s.Closed())
		}
	}
	for _, bad := range []string{"", "Active", "launched", "running"} {
		if _, err := ParseCampaignStatus(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("status %q accepted", bad)
		}
	}
}

func TestOutreachType(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, stored, read string }{
		{"", OutreachOutbound, "connect"}, {"outbound", OutreachOutbound, "connect"},
		{"connect", OutreachOutbound, "connect"}, {"inbound", OutreachInbound, "inbound"},
	}
	for _, tc := range cases {
		got, err := ParseOutreachType(tc.in)
		if err != nil || got != tc.stored || OutreachTypeView(got) != tc.read {
			t.Errorf("%q -> %q %v, read %q", tc.in, got, err, OutreachTypeView(got))
		}
	}
	for _, bad := range []string{"Outbound", "email", "both"} {
		if _, err := ParseOutreachType(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseSchedule(t *testing.T) {
	t.Parallel()
	def := DefaultSchedule()
	cases := []struct {
		name string
		raw  string
		want Schedule
		err  string
	}{
		{"absent", ``, def, ""},
		{"null", `null`, def, ""},
		{"empty object", `{}`, def, ""},
		{"partial", `{"startTime":"08:00"}`, Schedule{"UTC", def.WorkingDays, "08:00", "23:00"}, ""},
		{"mixed days", `{"timezone":"Asia/Kolkata","workingDays":[7,"Mon","tuesday",1,"SUN"]}`,
			Schedule{"Asia/Kolkata", []string{"monday", "tuesday", "sunday"}, "06:00", "23:00"}, ""},
		{"full day", `{"startTime":"00:00","endTime":"23:59"}`, Schedule{"UTC", def.WorkingDays, "00:00", "23:59"}, ""},
		{"bad tz", `{"timezone":"Europe/Atlantis"}`, Schedule{}, "timezone"},
		{"path tz", `{"timezone":"../../etc/passwd"}`, Schedule{}, "timezone"},
		{"empty tz", `{"timezone":""}`, Schedule{}, "timezone"},
		{"tz number", `{"timezone":1}`, Schedule{}, "timezone"},
		{"no days", `{"workingDays":[]}`, Schedule{}, "at least one day"},
		{"day 8", `{"workingDays":[8]}`, Schedule{}, "workingDays[0]"},
		{"null day", `{"workingDays":[1,null]}`, Schedule{}, "workingDays[1]"},
		{"bool day", `{"workingDays":[true]}`, Schedule{}, "workingDays[0]"},
		{"day 1.5", `{"workingDays":[1.5]}`, Schedule{}, "workingDays[0]"},
		{"hour 24", `{"endTime":"24:00"}`, Schedule{}, "endTime"},
		{"seconds", `{"startTime":"06:00:00"}`, Schedule{}, "startTime"},
		{"signed", `{"startTime":"+6:00"}`, Schedule{}, "startTime"},
		{"equal", `{"startTime":"10:00","endTime":"10:00"}`, Schedule{}, "before"},
		{"unknown key", `{"tz":"UTC"}`, Schedule{}, `"tz"`},
		{"array", `[1]`, Schedule{}, "schedule"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSchedule([]byte(tc.raw))
			if tc.err != "" {
				if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one naming %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v %v, want %+v", got, err, tc.want)
			}
		})
	}
}

func TestParseSequence(t *testing.T) {
	t.Parallel()
	steps, stripped, err := ParseSequence([]byte(`[
		{"type":"connect","text":"Hi"},
		{"type":"message","delay_days":3,"text":"Deck attached","attachments":[
			{"url":"https://cdn.example.com/deck.pdf","name":"deck.pdf","content_type":"application/pdf"},
			{"url":"JavaScript:alert(1)"},
			{"url":"data:application/pdf;base64,AAAA"},
			{"url":"http://cdn.example.com/a.pdf"},
			{"url":"ftp://cdn.example.com/a.pdf"},
			{"url":"/relative.pdf"},
			{"url":"https://user:pw@cdn.example.com/a.pdf"},
			{"url":"https://cdn.example.com/tool.msi"},
			{"url":"https://cdn.example.com/x%2Ejs"},
			{"url":"https://cdn.example.com/a.pdf","name":"invoice.pdf.scr"},
			{"url":"https://cdn.example.com/a","content_type":"application/x-msdownload"},
			{"url":"https://cdn.example.com/a","content_type":"Text/HTML; charset=utf-8"},
			{"url":"https://cdn.example.com/a b.pdf"},
			{"url":""},
			{"url":"https://cdn.example.com/1.png"},
			{"url":"https://cdn.example.com/2.png"},
			{"url":"https://cdn.example.com/3.png"},
			{"url":"https://cdn.example.com/4.png"},
			{"url":"https://cdn.example.com/5.png"}
		]}]`), OutreachOutbound)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 2 || steps[0].Type != StepConnect || steps[0].Attachments == nil || steps[1].DelayDays != 3 {
		t.Fatalf("steps %+v", steps)
	}
	var kept []string
	for _, a := range steps[1].Attachments {
		kept = append(kept, a.URL)
	}
	wantKept := []string{"https://cdn.example.com/deck.pdf", "https://cdn.example.com/1.png", "https://cdn.example.com/2.png",
		"https://cdn.example.com/3.png", "https://cdn.example.com/4.png"}
	if !reflect.DeepEqual(kept, wantKept) {
		t.Fatalf("kept %v", kept)
	}
	wantReasons := []string{"javascript", "data", "http", "ftp", "absolute", "credentials", ".msi", ".js", ".scr",
		"application/x-msdownload", "text/html", "spaces", "missing", "at most 5"}
	if len(stripped) != len(wantReasons) {
		t.Fatalf("stripped %d: %+v", len(stripped), stripped)
	}
	for i, s := range stripped {
		wantIndex := i + 1
		if i == len(wantReasons)-1 {
			wantIndex = 18 // the sixth safe attachment, after the deck and 1.png-4.png
		}
		if s.Step != 1 || s.Index != wantIndex || !strings.Contains(s.Reason, wantReasons[i]) {
			t.Errorf("stripped[%d] = %+v, want reason naming %q", i, s, wantReasons[i])
		}
	}

	long := `"` + strings.Repeat("x", 2049) + `"`
	_, stripped, err = ParseSequence([]byte(`[{"type":"message","text":"x","attachments":[{"url":`+long+`}]}]`), OutreachInbound)
	if err != nil || len(stripped) != 1 || !strings.Contains(stripped[0].Reason, "longer") || len(stripped[0].URL) > 200 {
		t.Fatalf("over-long url: %+v %v", stripped, err)
	}

	bad := []struct{ raw, ot, says string }{
		{`{}`, OutreachOutbound, "array"},
		{`[{"type":"wait"}]`, OutreachOutbound, "sequence[0].type"},
		{`[{"type":"message","text":" "}]`, OutreachOutbound, "sequence[0].text"},
		{`[{"type":"message","text":"a","delay_days":91}]`, OutreachOutbound, "delay_days"},
		{`[{"type":"connect"},{"type":"connect"}]`, OutreachOutbound, "sequence[1]"},
		{`[{"type":"connect"}]`, OutreachInbound, "inbound"},
		{`[{"type":"connect","attachments":[{"url":"https://x.io/a.pdf"}]}]`, OutreachOutbound, "attachments"},
		{`[{"type":"message","text":"a","attachments":[{"href":"https://x.io"}]}]`, OutreachOutbound, "href"},
		{`[{"type":"message","text":"` + strings.Repeat("y", MaxMessageTextLen+1) + `"}]`, OutreachOutbound, "longer"},
		{`[` + strings.Repeat(`{"type":"message","text":"a"},`, MaxSequenceSteps) + `{"type":"message","text":"a"}]`, OutreachOutbound, "steps"},
	}
	for _, tc := range bad {
		if _, _, err := ParseSequence([]byte(tc.raw), tc.ot); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%.60s: err %v, want one naming %q", tc.raw, err, tc.says)
		}
	}
	if steps, stripped, err := ParseSequence(nil, OutreachOutbound); err != nil || steps == nil || stripped == nil || len(steps) != 0 {
		t.Errorf("absent sequence: %v %v %v", steps, stripped, err)
	}
}

func TestCampaignNameAndLimits(t *testing.T) {
	t.Parallel()
	if n, err := ValidateCampaignName("  Q4 DACH  "); err != nil || n != "Q4 DACH" {
		t.Fatalf("%q %v", n, err)
	}
	if _, err := ValidateCampaignName(strings.Repeat("ü", MaxCampaignNameLen)); err != nil {
		t.Fatalf("200 runes refused: %v", err)
	}
	for _, bad := range []string{"", "  ", strings.Repeat("a", MaxCampaignNameLen+1), "a\nb", "a\x00b"} {
		if _, err := ValidateCampaignName(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("name %q accepted", bad)
		}
	}
	one, five, zero, big := 1, 500, 0, 501
	for _, tc := range []struct {
		in   *int
		want int
		ok   bool
	}{{nil, DefaultDailyLimit, true}, {&one, 1, true}, {&five, 500, true}, {&zero, 0, false}, {&big, 0, false}} {
		got, err := ValidateDailyLimit(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("daily limit %v: %d %v", tc.in, got, err)
		}
	}
	for _, o := range []string{"booked", "converted", "interested", "lost"} {
		if got, err := ParseOutcome(o); err != nil || string(got) != o {
			t.Errorf("outcome %s: %v", o, err)
		}
	}
	for _, o := range []string{"", "BOOKED", "won", "booked "} {
		if _, err := ParseOutcome(o); !errors.Is(err, ErrInvalid) {
			t.Errorf("outcome %q accepted", o)
		}
	}
}
