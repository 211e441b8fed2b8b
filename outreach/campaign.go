package outreach

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // timezone names validate the same on every host, with or without /usr/share/zoneinfo
	"unicode/utf8"
)

// CampaignStatus is the lifecycle state of a campaign.
type CampaignStatus string

// Campaign statuses. The API only ever creates drafts; the operator (the application's launch
// button, `admin campaign set-status`) moves them on.
const (
	CampaignDraft     CampaignStatus = "draft"
	CampaignActive    CampaignStatus = "active"
	CampaignPaused    CampaignStatus = "paused"
	CampaignCompleted CampaignStatus = "completed"
	CampaignArchived  CampaignStatus = "archived"
)

// campaignMoves lists the allowed transitions. Completed and archived are closed (no new leads,
// 409); archived is final. A running campaign is paused or completed before it is archived, so
// nothing is archived while it still sends.
var campaignMoves = map[CampaignStatus][]CampaignStatus{
	CampaignDraft:     {CampaignActive, CampaignArchived},
	CampaignActive:    {CampaignPaused, CampaignCompleted},
	CampaignPaused:    {CampaignActive, CampaignCompleted, CampaignArchived},
	CampaignCompleted: {CampaignArchived},
	CampaignArchived:  nil,
}

// ParseCampaignStatus accepts exactly the five status names.
func ParseCampaignStatus(s string) (CampaignStatus, error) {
	if _, ok := campaignMoves[CampaignStatus(s)]; !ok {
		return "", invalidf("status %q is not one of draft, active, paused, completed, archived", s)
	}
	return CampaignStatus(s), nil
}

// CanBecome reports whether a campaign in status s may move to next. Staying put is allowed
// (it changes nothing), so repeating a command is harmless.
func (s CampaignStatus) CanBecome(next CampaignStatus) bool {
	if s == next {
		return true
	}
	for _, m := range campaignMoves[s] {
		if m == next {
			return true
		}
	}
	return false
}

// Closed reports a campaign that can no longer take leads (a push answers HTTP 409).
func (s CampaignStatus) Closed() bool { return s == CampaignCompleted || s == CampaignArchived }

// Editable reports a campaign whose settings and sequence may still change: a draft. Once
// launched, a campaign runs on the settings it was launched with.
func (s CampaignStatus) Editable() bool { return s == CampaignDraft }

// Outreach types as stored and as created; reads show outbound as "connect".
const (
	OutreachOutbound = "outbound"
	OutreachInbound  = "inbound"
	outreachConnect  = "connect"
)

// ParseOutreachType reads the create value: "" (outbound), outbound or inbound. "connect", the
// read value of outbound, is accepted too, so a campaign read from the API can be sent back.
func ParseOutreachType(s string) (string, error) {
	switch s {
	case "", OutreachOutbound, outreachConnect:
		return OutreachOutbound, nil
	case OutreachInbound:
		return OutreachInbound, nil
	}
	return "", invalidf("outreach_type %q must be outbound or inbound", s)
}

// OutreachTypeView is the read value of a stored outreach type.
func OutreachTypeView(stored string) string {
	if stored == OutreachOutbound {
		return outreachConnect
	}
	return stored
}

// SourceTypes are the values of source_type.
var SourceTypes = []string{"custom_list", "linkedin_search", "sales_navigator", "search_url",
	"post_engagers", "post_commenters", "post_keywords", "website_visitors"}

// ValidSourceType reports whether s is one of SourceTypes.
func ValidSourceType(s string) bool {
	for _, v := range SourceTypes {
		if v == s {
			return true
		}
	}
	return false
}

// Campaign limits and defaults.
const (
	MaxCampaignNameLen = 200
	DefaultDailyLimit  = 20
	MaxDailyLimit      = 500
)

// ValidateCampaignName trims and checks a campaign name.
func ValidateCampaignName(name string) (string, error) {
	n := strings.TrimSpace(name)
	if n == "" {
		return "", invalidf("name is required and must not be blank")
	}
	if utf8.RuneCountInString(n) > MaxCampaignNameLen {
		return "", invalidf("name is longer than %d characters", MaxCampaignNameLen)
	}
	if strings.ContainsFunc(n, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", invalidf("name must not contain control characters")
	}
	return n, nil
}

// ValidateDailyLimit checks a daily_limit; nil means the default.
func ValidateDailyLimit(v *int) (int, error) {
	if v == nil {
		return DefaultDailyLimit, nil
	}
	if *v < 1 || *v > MaxDailyLimit {
		return 0, invalidf("daily_limit must be between 1 and %d, got %d", MaxDailyLimit, *v)
	}
	return *v, nil
}

// weekdays are the names workingDays uses, in ISO order: index+1 is the ISO weekday (Monday 1).
var weekdays = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// Schedule is when a campaign may send. WorkingDays holds lowercase English day names in week
// order; StartTime and EndTime are "HH:MM" (24-hour) in Timezone, start before end, so a window
// never crosses midnight.
type Schedule struct {
	Timezone    string   `json:"timezone"`
	WorkingDays []string `json:"workingDays"`
	StartTime   string   `json:"startTime"`
	EndTime     string   `json:"endTime"`
}

// DefaultSchedule is every day from 06:00 to 23:00 UTC.
func DefaultSchedule() Schedule {
	return Schedule{Timezone: "UTC", WorkingDays: append([]string(nil), weekdays...), StartTime: "06:00", EndTime: "23:00"}
}

// ParseSchedule reads a schedule object; absent keys keep their defaults and null or an empty
// document is the default schedule. workingDays takes day names (full or three letters, any
// case) or ISO numbers 1 (Monday) to 7 (Sunday), mixed freely; duplicates collapse.
func ParseSchedule(raw []byte) (Schedule, error) {
	s := DefaultSchedule()
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return s, nil
	}
	var in struct {
		Timezone    *string           `json:"timezone"`
		WorkingDays []json.RawMessage `json:"workingDays"`
		StartTime   *string           `json:"startTime"`
		EndTime     *string           `json:"endTime"`
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return Schedule{}, invalidf("schedule: %s (keys: timezone, workingDays, startTime, endTime)", jsonText(err))
	}
	if in.Timezone != nil {
		tz := *in.Timezone
		if tz == "" || tz == "Local" || len(tz) > 64 {
			return Schedule{}, invalidf("schedule.timezone %q is not an IANA time zone name such as Europe/Berlin", tz)
		}
		if _, err := time.LoadLocation(tz); err != nil {
			return Schedule{}, invalidf("schedule.timezone %q is not an IANA time zone name such as Europe/Berlin", tz)
		}
		s.Timezone = tz
	}
	if in.WorkingDays != nil {
		days, err := parseWorkingDays(in.WorkingDays)
		if err != nil {
			return Schedule{}, err
		}
		s.WorkingDays = days
	}
	for _, f := range []struct {
		name string
		in   *string
		out  *string
	}{{"startTime", in.StartTime, &s.StartTime}, {"endTime", in.EndTime, &s.EndTime}} {
		if f.in == nil {
			continue
		}
		if _, ok := clockMinutes(*f.in); !ok {
			return Schedule{}, invalidf("schedule.%s %q must be a 24-hour time HH:MM, e.g. 09:30", f.name, *f.in)
		}
		*f.out = *f.in
	}
	start, _ := clockMinutes(s.StartTime)
	end, _ := clockMinutes(s.EndTime)
	if start >= end {
		return Schedule{}, invalidf("schedule.startTime %s must be before schedule.endTime %s (windows cannot cross midnight)", s.StartTime, s.EndTime)
	}
	return s, nil
}

func parseWorkingDays(raw []json.RawMessage) ([]string, error) {
	if len(raw) == 0 {
		return nil, invalidf("schedule.workingDays is empty; a campaign needs at least one day to send on")
	}
	if len(raw) > 7*3 {
		return nil, invalidf("schedule.workingDays has %d entries; list each day once", len(raw))
	}
	set := map[int]bool{}
	for i, r := range raw {
		var n int
		var name string
		switch {
		case bytes.Equal(r, []byte("null")):
			return nil, invalidf("schedule.workingDays[%d] is null; use a day name or a number 1-7", i)
		case json.Unmarshal(r, &n) == nil:
			if n < 1 || n > 7 {
				return nil, invalidf("schedule.workingDays[%d] = %d; numbers must be 1 (Monday) to 7 (Sunday)", i, n)
			}
		case json.Unmarshal(r, &name) == nil:
			n = dayNumber(name)
			if n == 0 {
				return nil, invalidf("schedule.workingDays[%d] %q is not a day name such as monday or mon", i, name)
			}
		default:
			return nil, invalidf("schedule.workingDays[%d] must be a day name or a number 1-7, got %s", i, r)
		}
		set[n] = true
	}
	var out []string
	for i, d := range weekdays {
		if set[i+1] {
			out = append(out, d)
		}
	}
	return out, nil
}

func dayNumber(name string) int {
	n := strings.ToLower(strings.TrimSpace(name))
	for i, d := range weekdays {
		if n == d || n == d[:3] {
			return i + 1
		}
	}
	return 0
}

// clockMinutes reads "HH:MM" (exactly two digits each) as minutes after midnight.
func clockMinutes(s string) (int, bool) {
	if len(s) != 5 || s[2] != ':' {
		return 0, false
	}
	h, err1 := strconv.Atoi(s[:2])
	m, err2 := strconv.Atoi(s[3:])
	if err1 != nil || err2 != nil || h < 0 || h > 23 || m < 0 || m > 59 || s[0] == '+' || s[3] == '+' {
		return 0, false
	}
	return h*60 + m, true
}
