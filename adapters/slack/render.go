package slack

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"outreachd/outreach"
)

// Slack's own limits (Block Kit reference), and ours for a message read at a glance.
const (
	maxHeaderChars = 150 // header text
	maxFields      = 10  // fields of one section
	maxFieldChars  = 2000
	maxTextChars   = 3000 // text of one section
	maxQuoteChars  = 600  // a lead's message or a draft; the full text is one click away in the app
)

// view is how one kind reads in a channel: an emoji for scanning, and a title built from the
// event's own facts so the header alone says what happened and to whom.
type view struct {
	emoji string
	title func(d outreach.EventData) string
}

var views = map[outreach.EventKind]view{
	outreach.EventReplyReceived:           {":speech_balloon:", func(d outreach.EventData) string { return "Reply from " + person(d) }},
	outreach.EventReplyPositive:           {":large_green_circle:", func(d outreach.EventData) string { return "Positive reply from " + person(d) }},
	outreach.EventReplyNegative:           {":red_circle:", func(d outreach.EventData) string { return "Negative reply from " + person(d) }},
	outreach.EventNeedsHuman:              {":raising_hand:", func(d outreach.EventData) string { return person(d) + " needs a human reply" }},
	outreach.EventInviteSent:              {":envelope_with_arrow:", func(d outreach.EventData) string { return "Invite sent to " + person(d) }},
	outreach.EventConnectionAccepted:      {":handshake:", func(d outreach.EventData) string { return person(d) + " accepted your invite" }},
	outreach.EventInviteWithdrawn:         {":leftwards_arrow_with_hook:", func(d outreach.EventData) string { return "Invite to " + person(d) + " withdrawn" }},
	outreach.EventMessageSent:             {":outbox_tray:", func(d outreach.EventData) string { return "Message sent to " + person(d) }},
	outreach.EventCallBooked:              {":calendar:", callBookedTitle},
	outreach.EventAutoBookingCreated:      {":calendar:", func(d outreach.EventData) string { return "Meeting auto-booked with " + person(d) }},
	outreach.EventAutoBookingFailed:       {":warning:", func(d outreach.EventData) string { return "Auto-booking failed for " + person(d) }},
	outreach.EventConversationStalled:     {":hourglass:", func(d outreach.EventData) string { return "Conversation with " + person(d) + " stalled" }},
	outreach.EventCampaignStarted:         {":rocket:", func(d outreach.EventData) string { return "Campaign started: " + campaign(d) }},
	outreach.EventCampaignCompleted:       {":checkered_flag:", func(d outreach.EventData) string { return "Campaign completed: " + campaign(d) }},
	outreach.EventProspectAdded:           {":bust_in_silhouette:", func(d outreach.EventData) string { return person(d) + " added to " + campaign(d) }},
	outreach.EventLeadAccepted:            {":white_check_mark:", func(d outreach.EventData) string { return "Lead accepted: " + person(d) }},
	outreach.EventLeadRejected:            {":no_entry_sign:", func(d outreach.EventData) string { return "Lead rejected: " + person(d) }},
	outreach.EventPostPublished:           {":mega:", func(outreach.EventData) string { return "Post published on LinkedIn" }},
	outreach.EventPostScheduled:           {":alarm_clock:", func(outreach.EventData) string { return "Post scheduled on LinkedIn" }},
	outreach.EventAccountRateLimited:      {":traffic_light:", func(d outreach.EventData) string { return "LinkedIn account " + account(d) + " is rate-limited" }},
	outreach.EventAccountDisconnected:     {":rotating_light:", func(d outreach.EventData) string { return "LinkedIn account " + account(d) + " disconnected" }},
	outreach.EventAccountReconnected:      {":electric_plug:", func(d outreach.EventData) string { return "LinkedIn account " + account(d) + " reconnected" }},
	outreach.EventSalesNavUnavailable:     {":warning:", func(d outreach.EventData) string { return "Sales Navigator unavailable on " + account(d) }},
	outreach.EventSalesNavRestored:        {":white_check_mark:", func(d outreach.EventData) string { return "Sales Navigator restored on " + account(d) }},
	outreach.EventReportGenerated:         {":bar_chart:", func(outreach.EventData) string { return "Report ready" }},
	outreach.EventMarketAnalysisGenerated: {":mag:", func(outreach.EventData) string { return "Market analysis ready" }},
	outreach.EventDailyDigest:             {":sunrise:", digestTitle},
}

func person(d outreach.EventData) string {
	if d.Prospect != nil && d.Prospect.Name != "" {
		return d.Prospect.Name
	}
	return "a prospect"
}

func campaign(d outreach.EventData) string {
	if d.Campaign != nil && d.Campaign.Name != "" {
		return d.Campaign.Name
	}
	return "a campaign"
}

func account(d outreach.EventData) string {
	if d.Account != nil && d.Account.Name != "" {
		return d.Account.Name
	}
	return "(unnamed)"
}

func callBookedTitle(d outreach.EventData) string {
	if d.Manual {
		return "Call with " + person(d) + " marked as booked"
	}
	return "Call booked with " + person(d)
}

func digestTitle(d outreach.EventData) string {
	if d.Report != nil && d.Report.Period != "" {
		return "Daily digest for " + d.Report.Period
	}
	return "Daily digest"
}

// Title is the one-line summary of ev: the header of the message and its notification text.
func Title(ev outreach.Event) string {
	t := string(ev.Kind)
	if v, ok := views[ev.Kind]; ok {
		t = v.title(ev.Data)
	}
	if ev.Data.Test {
		t = "[TEST] " + t
	}
	return t
}

// Render lays ev out as Block Kit: a header, the message quoted, the facts as fields, links, and
// a context line with the kind and time. text is the fallback Slack shows in notifications and
// in clients that cannot draw blocks; it is mrkdwn, so the title is escaped there (a name like
// "<!channel>" would otherwise ping), while the plain_text header shows it literally.
func Render(ev outreach.Event) (text string, blocks []slack.Block) {
	header := Title(ev)
	text = esc(header)
	if v, ok := views[ev.Kind]; ok {
		header = v.emoji + " " + header
	}
	blocks = append(blocks, slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType, cut(header, maxHeaderChars), true, false)))

	if body := bodyText(ev.Data); body != "" {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(cut(body, maxTextChars)), nil, nil))
	}
	if fs := fields(ev.Data); len(fs) > 0 {
		objs := make([]*slack.TextBlockObject, 0, len(fs))
		for _, f := range fs[:min(len(fs), maxFields)] {
			objs = append(objs, mrkdwn(cut(f, maxFieldChars)))
		}
		blocks = append(blocks, slack.NewSectionBlock(nil, objs, nil))
	}
	if ls := links(ev.Data); len(ls) > 0 {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(strings.Join(ls, "  ·  ")), nil, nil))
	}

	ctx := fmt.Sprintf("`%s` · %s", ev.Kind, when(ev.Timestamp))
	if ev.Data.Test {
		ctx += " · test send with sample data, nothing happened"
	}
	blocks = append(blocks, slack.NewContextBlock("", mrkdwn(ctx)))
	return text, blocks
}

// bodyText is the prose part: what the person wrote, our draft, the reason something failed.
func bodyText(d outreach.EventData) string {
	var parts []string
	if d.Message != nil && d.Message.Text != "" {
		parts = append(parts, quote(d.Message.Text))
	}
	if d.NeedsHuman != nil {
		parts = append(parts, "*Why:* "+esc(d.NeedsHuman.ReasonLabel))
		if d.NeedsHuman.AIDraft != "" {
			parts = append(parts, "*AI draft:*\n"+quote(d.NeedsHuman.AIDraft))
		}
	}
	if d.Stalled != nil {
		if n := len(d.Stalled.RecentConversation); n > 0 {
			last := d.Stalled.RecentConversation[n-1]
			who := "They"
			if last.FromMe {
				who = "We"
			}
			parts = append(parts, "*"+who+" wrote last:*\n"+quote(last.Text))
		}
	}
	if d.Booking != nil && d.Booking.FailureReason != "" {
		parts = append(parts, "*Failed because:* "+esc(d.Booking.FailureReason))
	}
	if d.Lead != nil && d.Lead.Reason != "" {
		parts = append(parts, "*Rejected because:* "+esc(d.Lead.Reason))
	}
	if d.Account != nil && d.Account.Reason != "" {
		parts = append(parts, "*Reason:* "+esc(d.Account.Reason))
	}
	if d.Post != nil && d.Post.Text != "" {
		parts = append(parts, quote(d.Post.Text))
	}
	return strings.Join(parts, "\n")
}

// fields are the short facts, most useful first, since Slack shows at most ten.
func fields(d outreach.EventData) []string {
	var fs []string
	add := func(label, value string) {
		if value != "" {
			fs = append(fs, "*"+label+"*\n"+value)
		}
	}
	if p := d.Prospect; p != nil {
		add("Person", link(p.LinkedInURL, p.Name))
		add("Role", esc(p.JobTitle))
		company := esc(p.Company)
		if company != "" && p.CompanySize != "" {
			company += " (" + esc(p.CompanySize) + ")"
		}
		add("Company", company)
		add("Location", esc(p.Location))
	}
	if d.Campaign != nil {
		add("Campaign", esc(d.Campaign.Name))
	}
	if d.Message != nil && d.Message.Sentiment != "" {
		add("Sentiment", string(d.Message.Sentiment))
	}
	if b := d.Booking; b != nil {
		if b.StartTime != "" {
			add("When", when(b.StartTime))
		}
		add("Meeting", esc(b.Title))
		add("Booked via", esc(b.Provider))
	}
	if d.Stalled != nil {
		add("Quiet for", strconv.Itoa(d.Stalled.DaysSinceActivity)+" days")
	}
	if a := d.Account; a != nil {
		if a.CooldownHours > 0 {
			add("Cooldown", strconv.Itoa(a.CooldownHours)+" h")
		}
		add("Status", esc(a.Status))
		if a.DisconnectedAt != "" {
			add("Disconnected", when(a.DisconnectedAt))
		}
		if a.SNVerdict != "" {
			v := esc(a.SNVerdict)
			if a.PreviousSNVerdict != "" {
				v += " (was " + esc(a.PreviousSNVerdict) + ")"
			}
			add("Sales Navigator", v)
		}
	}
	if p := d.Post; p != nil && p.ScheduledTime != "" {
		add("Goes live", when(p.ScheduledTime))
	}
	if r := d.Report; r != nil {
		add("Period", esc(r.Period))
		if s := r.Stats; s != nil {
			for _, c := range []struct {
				label string
				n     int
			}{
				{"Invites sent", s.InvitesSent}, {"Connections accepted", s.ConnectionsAccepted},
				{"Messages sent", s.MessagesSent}, {"Replies", s.Replies},
				{"Positive replies", s.PositiveReplies}, {"Negative replies", s.NegativeReplies},
				{"Bookings", s.Bookings}, {"Invites withdrawn", s.InvitesWithdrawn},
			} {
				add(c.label, strconv.Itoa(c.n))
			}
		}
	}
	if cs := d.Campaign; cs != nil && cs.Stats != nil && d.Prospect == nil {
		// Only campaign-level events show totals; on a person's event they would drown the person.
		s := cs.Stats
		add("Prospects", strconv.Itoa(s.Prospects))
		add("Invites sent", strconv.Itoa(s.InvitesSent))
		add("Replies", fmt.Sprintf("%d (%d positive)", s.Replies, s.PositiveReplies))
		add("Bookings", strconv.Itoa(s.Bookings))
	}
	return fs
}

func links(d outreach.EventData) []string {
	var ls []string
	add := func(url, label string) {
		if l := link(url, label); l != "" && l != esc(label) {
			ls = append(ls, l)
		}
	}
	if d.NeedsHuman != nil {
		add(d.NeedsHuman.InboxURL, "Answer in the inbox")
	}
	if d.Account != nil {
		add(d.Account.ReconnectURL, "Reconnect the account")
	}
	if d.Report != nil {
		add(d.Report.ShareURL, "Open the report")
	}
	if d.Post != nil {
		add(d.Post.URL, "View the post")
	}
	return ls
}

func mrkdwn(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, s, false, false)
}

// esc escapes the three characters Slack treats as control sequences. Text from leads and
// profiles is untrusted: unescaped, "<!channel>" would ping everyone and "<url|text>" would
// forge a link.
var esc = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace

// urlEsc keeps a URL from ending the <url|label> sequence early.
var urlEsc = strings.NewReplacer("<", "%3C", ">", "%3E", "|", "%7C", " ", "%20").Replace

// link renders label as a link when url is an http(s) URL, else as plain text.
func link(url, label string) string {
	if label == "" {
		label = url
	}
	if !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") {
		return esc(label)
	}
	return "<" + urlEsc(url) + "|" + esc(label) + ">"
}

// quote renders untrusted text as a cut, escaped block quote.
func quote(s string) string {
	s = esc(cut(strings.TrimSpace(s), maxQuoteChars))
	return "> " + strings.ReplaceAll(s, "\n", "\n> ")
}

// when shows a timestamp in each reader's own time zone (Slack's date token), with UTC as the
// fallback text.
func when(ts string) string {
	t, err := time.Parse(outreach.TimeLayout, ts)
	if err != nil {
		return esc(ts)
	}
	return fmt.Sprintf("<!date^%d^{date_short_pretty} at {time}|%s>", t.Unix(), t.UTC().Format("2006-01-02 15:04 UTC"))
}

// cut shortens s to at most n characters, ending in an ellipsis when it had to cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
