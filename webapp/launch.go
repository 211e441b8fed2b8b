package webapp

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// Launch…: before the person confirms, the page says what will happen — how many leads are
// accepted, waiting for enrichment and rejected, which seats send, the daily limit, and when
// the first invitations go (the next moment inside the schedule on the engine's clock). A
// campaign that could send nothing (no seat; an inbound campaign without steps) is explained
// and not launched.

// launchView is the launch page.
type launchView struct {
	C         storage.Campaign
	Verdicts  map[string]int
	Leads     int
	SendFrom  seatsView
	Steps     []stepView
	First     string // when the first invitations (messages, inbound) go
	FirstNote string
	Clock     string
	Blockers  []string
	Warnings  []string
	Action    string
	Type      string
}

func (a *App) launchPreview(ctx context.Context, u User, c storage.Campaign) (launchView, error) {
	v := launchView{C: c, Action: "/app/campaigns/" + c.ID + "/status", Type: typeLabel(c.OutreachType)}
	var err error
	if v.Verdicts, err = a.store.LeadVerdicts(ctx, u.OrgID, c.ID); err != nil {
		return v, err
	}
	for _, n := range v.Verdicts {
		v.Leads += n
	}
	seats, err := a.store.OrgLinkedInAccounts(ctx, u.OrgID)
	if err != nil {
		return v, err
	}
	sending := sendingSeatsOf(seats, c.AccountIDs)
	inbound := c.OutreachType == outreach.OutreachInbound
	v.SendFrom = sending.view(inbound)
	first := "invitations"
	if inbound {
		first = "messages"
	}
	switch m := sending.missing(); {
	case m != "" && len(seats) > 0:
		v.Blockers = append(v.Blockers, "There is no LinkedIn account to send from: "+m+
			". Tick another under Send from (or none, for the organization's oldest seat), save, and launch.")
	case m != "":
		v.Blockers = append(v.Blockers, "There is no LinkedIn account to send from: "+m+". "+connectSeatHint+
			" Then choose it under Send from, save, and launch.")
	}
	v.Warnings = append(v.Warnings, sending.warnings()...)
	f := builderFormOf(c.Settings())
	for i, s := range f.Steps {
		v.Steps = append(v.Steps, stepView{stepForm: s, Index: i, Num: i + 1, Invite: s.Type == stepInvite})
	}
	switch {
	case len(c.Sequence) == 0 && inbound:
		v.Blockers = append(v.Blockers, "This inbound campaign has no steps, so it has nothing to send. Add a message step and save first.")
	case len(c.Sequence) == 0:
		v.Warnings = append(v.Warnings, "There are no steps: only invitations without a note will go out, and no message after them. Add steps and save first if you want more.")
	}
	if v.Leads == 0 {
		v.Warnings = append(v.Warnings, "There are no leads yet: nothing goes out until leads are imported, pushed or posted to the intake URL. They are contacted as enrichment accepts them.")
	}
	now := a.domainNow()
	win, err := c.Schedule.Window()
	if err != nil {
		return v, fmt.Errorf("campaign %s schedule: %w", c.ID, err)
	}
	open := win.NextOpen(now)
	window := "the schedule is open now"
	if open.After(now) {
		window = "the schedule next opens on " + open.In(win.Location()).Format("Monday 2 January 2006, 15:04 MST")
		if win.Location() != time.UTC {
			window += " (" + open.UTC().Format("15:04 UTC") + ")"
		}
	}
	switch {
	case v.Verdicts[outreach.VerdictAccepted] == 0:
		v.First = fmt.Sprintf("The first %s go once enrichment accepts a lead; %s.", first, window)
	case open.After(now):
		v.First = fmt.Sprintf("The first %s go on %s, when the schedule next opens.", first, strings.TrimPrefix(window, "the schedule next opens on "))
	default:
		v.First = fmt.Sprintf("The first %s go as soon as it is launched: %s.", first, window)
	}
	v.FirstNote = fmt.Sprintf("At most %d a day (invitations and sequence messages together), only inside the schedule: %s.",
		c.DailyLimit, scheduleInWords(c.Schedule))
	v.Clock = a.clockInWords(now)
	return v, nil
}

// clockInWords says which clock the page's times are on, and where it stands.
func (a *App) clockInWords(domain time.Time) string {
	wall := a.now()
	if d := domain.Sub(wall); d > time.Minute || d < -time.Minute {
		return fmt.Sprintf("Times are on the engine's clock, which this service runs faster than real time (a demonstration): it reads %s while the wall clock reads %s.",
			domain.UTC().Format("2006-01-02 15:04 UTC"), wall.UTC().Format("2006-01-02 15:04 UTC"))
	}
	return "Times are on the engine's clock, which is the wall clock: " + domain.UTC().Format("2006-01-02 15:04 UTC") + " now."
}

func typeLabel(outreachType string) string {
	if outreachType == outreach.OutreachInbound {
		return "inbound: messages people already connected"
	}
	return "outbound: starts with a connection request"
}

// scheduleInWords says a schedule as a person reads it.
func scheduleInWords(s outreach.Schedule) string {
	days := make([]string, 0, len(s.WorkingDays))
	for _, d := range s.WorkingDays {
		for _, w := range weekdayLabels {
			if w.Value == d {
				days = append(days, w.Label[:3])
			}
		}
	}
	list := strings.Join(days, ", ")
	if len(days) == 7 {
		list = "every day"
	}
	return fmt.Sprintf("%s, %s–%s %s", list, s.StartTime, s.EndTime, s.Timezone)
}

// showLaunch renders the launch page; blocked answers 409 when a confirmed launch was refused.
func (a *App) showLaunch(w http.ResponseWriter, r *http.Request, u User, c storage.Campaign, status int) {
	v, err := a.launchPreview(r.Context(), u, c)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	msg := ""
	if status == http.StatusConflict {
		msg = "Not launched: " + v.Blockers[0]
	}
	a.render(w, r, status, "launch", view{Title: "Launch " + c.Name, Nav: "campaigns", Error: msg, D: v})
}
