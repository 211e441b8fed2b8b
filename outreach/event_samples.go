package outreach

import "time"

// sampleBaseURL is where sample links point: a sample cannot know PUBLIC_URL, and example.com
// is reserved, so nobody's real page is linked from a test message.
const sampleBaseURL = "https://app.example.com"

// SampleEvent builds a realistic event of kind k with made-up people and numbers, marked Test
// (data.test = true): the Test button sends it, and tests use it to check every kind end to end.
// Its ids are fresh, so two samples are never collapsed as duplicates. An unknown kind yields
// an event that fails Validate.
func SampleEvent(k EventKind, orgID string, at time.Time) Event {
	at = at.UTC()
	s := newSamples(at)
	d := EventData{Test: true}
	for _, fill := range []func(EventKind, *EventData) bool{s.conversationData, s.campaignData, s.accountData, s.reportData} {
		if fill(k, &d) {
			break
		}
	}
	return NewEvent(k, orgID, at, d)
}

// samples are the made-up blocks one sample event is built from; each kind takes the blocks it
// carries and adjusts them.
type samples struct {
	at           time.Time
	prospect     *ProspectBlock
	stats        *CampaignStats
	campaign     *CampaignBlock
	conversation []ConversationTurn
	reply        *MessageBlock
	booking      *BookingBlock
	account      *AccountBlock
	yesterday    string
}

func (s *samples) ago(d time.Duration) string { return FormatTime(s.at.Add(-d)) }

func newSamples(at time.Time) *samples {
	s := &samples{at: at}
	followers := 2140
	s.prospect = &ProspectBlock{
		Name:               "Jane Doe",
		LinkedInURL:        "https://www.linkedin.com/in/jane-doe-4821",
		LinkedInID:         "ACoAAB3xYz0BcDeFgHiJkLmNoPqRsTuVwXyZ12",
		LeadID:             NewID("prs"),
		Company:            "Acme Analytics",
		JobTitle:           "Head of Growth",
		Industry:           "Computer Software",
		Location:           "Berlin, Germany",
		Headline:           "Growth at Acme Analytics | B2B SaaS",
		CompanyWebsite:     "https://acme-analytics.example.com",
		CompanyLinkedInURL: "https://www.linkedin.com/company/acme-analytics",
		CompanySize:        "51-200",
		FollowerCount:      &followers,
	}
	s.stats = &CampaignStats{
		Prospects:         120,
		ProspectsByStatus: map[string]int{"pending": 40, "connection_sent": 38, "connected": 22, "messaged": 12, "replied": 8},
		ActivityTotals: ActivityTotals{InvitesSent: 80, ConnectionsAccepted: 42, MessagesSent: 51, Replies: 8,
			PositiveReplies: 5, NegativeReplies: 2, Bookings: 2},
	}
	s.campaign = &CampaignBlock{ID: NewID("cmp"), Name: "Q4 Heads of Growth DACH", Stats: s.stats}
	s.conversation = []ConversationTurn{
		{FromMe: true, Text: "Hi Jane, thanks for connecting! We help growth teams cut reporting time in half.", At: s.ago(50 * time.Hour)},
		{FromMe: true, Text: "Would a 20-minute walkthrough next week be useful?", At: s.ago(26 * time.Hour)},
		{FromMe: false, Text: "Sounds interesting - could you send me a few time slots for Thursday?", At: s.ago(2 * time.Minute)},
	}
	s.reply = &MessageBlock{
		Text:               s.conversation[2].Text,
		ChatID:             NewID("chat"),
		Sentiment:          SentimentNeutral,
		RecentConversation: s.conversation,
	}
	s.booking = &BookingBlock{
		StartTime: FormatTime(at.Truncate(24 * time.Hour).Add(48*time.Hour + 15*time.Hour)),
		Provider:  "calendly",
		Title:     "Acme Analytics x Jane Doe - intro call",
	}
	s.account = &AccountBlock{Name: "Sam Seller", AccountID: NewID("acc")}
	s.yesterday = at.AddDate(0, 0, -1).Format(time.DateOnly)
	return s
}

// conversationData fills the kinds about one prospect's conversation; false for other kinds.
func (s *samples) conversationData(k EventKind, d *EventData) bool {
	prospect, campaign, reply, conversation, booking := s.prospect, s.campaign, s.reply, s.conversation, s.booking
	switch k {
	case EventReplyReceived, EventReplyPositive, EventReplyNegative:
		d.Prospect, d.Message, d.Campaign = prospect, reply, campaign
		switch k {
		case EventReplyPositive:
			reply.Sentiment = SentimentPositive
		case EventReplyNegative:
			reply.Sentiment = SentimentNegative
			reply.Text = "Not interested, please remove me from your list."
			conversation[2].Text = reply.Text
		}
	case EventNeedsHuman:
		reply.Text = "Can you just email me the details at jane@acme-analytics.example.com?"
		conversation[2].Text = reply.Text
		d.Prospect, d.Message, d.Campaign = prospect, reply, campaign
		d.NeedsHuman = &NeedsHumanBlock{
			Reason:      ReasonWantsEmail,
			ReasonLabel: ReasonWantsEmail.Label(),
			AIDraft:     "Happy to! Could you confirm the best address to reach you?",
			QueueID:     NewID("nhu"),
			InboxURL:    ConversationURL(sampleBaseURL, reply.ChatID),
		}
	case EventInviteSent, EventConnectionAccepted, EventInviteWithdrawn, EventProspectAdded:
		d.Prospect, d.Campaign = prospect, campaign
	case EventMessageSent:
		d.Prospect, d.Campaign = prospect, campaign
		d.Message = &MessageBlock{Text: conversation[1].Text, ChatID: reply.ChatID, RecentConversation: conversation[:2]}
	case EventCallBooked, EventAutoBookingCreated:
		d.Prospect, d.Campaign, d.Booking = prospect, campaign, booking
	case EventAutoBookingFailed:
		booking.FailureReason = "the requested slot is no longer free"
		d.Prospect, d.Campaign, d.Booking = prospect, campaign, booking
	case EventConversationStalled:
		d.Prospect, d.Campaign = prospect, campaign
		d.Stalled = &StalledBlock{DaysSinceActivity: 9, RecentConversation: []ConversationTurn{
			{FromMe: false, Text: "Interesting, let me check with my team.", At: s.ago(9 * 24 * time.Hour)},
			{FromMe: true, Text: "Of course - shall I follow up next week?", At: s.ago(9*24*time.Hour - time.Hour)},
		}}
	default:
		return false
	}
	return true
}

// campaignData fills the campaign and pushed-lead kinds; false for other kinds.
func (s *samples) campaignData(k EventKind, d *EventData) bool {
	stats := s.stats
	switch k {
	case EventCampaignStarted:
		stats.ProspectsByStatus = map[string]int{"pending": 120}
		stats.InvitesSent, stats.ConnectionsAccepted, stats.MessagesSent = 0, 0, 0
		stats.Replies, stats.PositiveReplies, stats.NegativeReplies, stats.Bookings = 0, 0, 0, 0
		d.Campaign = s.campaign
	case EventCampaignCompleted:
		d.Campaign = s.campaign
	case EventLeadAccepted:
		d.Prospect, d.Campaign = s.prospect, s.campaign
		d.Lead = &LeadBlock{BatchID: NewID("bat")}
	case EventLeadRejected:
		d.Prospect, d.Campaign = s.prospect, s.campaign
		d.Lead = &LeadBlock{BatchID: NewID("bat"), Reason: "company_size 51-200 is outside the filter 201-1000"}
	default:
		return false
	}
	return true
}

// accountData fills the post and LinkedIn-seat kinds; false for other kinds.
func (s *samples) accountData(k EventKind, d *EventData) bool {
	account := s.account
	switch k {
	case EventPostPublished:
		d.Post = &PostBlock{Text: "Three things we learned cutting our reporting time in half.", URL: "https://www.linkedin.com/feed/update/urn:li:activity:7260000000000000000"}
	case EventPostScheduled:
		d.Post = &PostBlock{Text: "Three things we learned cutting our reporting time in half.", ScheduledTime: FormatTime(s.at.Add(20 * time.Hour))}
	case EventAccountRateLimited:
		account.Reason = "weekly invitation limit reached"
		account.CooldownHours, account.CooldownUntil = 24, FormatTime(s.at.Add(24*time.Hour))
		d.Account = account
	case EventAccountDisconnected:
		account.Reason = "session expired"
		account.ReconnectURL = AccountURL(sampleBaseURL, account.AccountID)
		account.Status = "disconnected"
		account.DisconnectedAt = s.ago(3 * time.Minute)
		d.Account = account
	case EventAccountReconnected:
		account.Status, account.ReconnectedAt = "connected", s.ago(time.Minute)
		d.Account = account
	case EventSalesNavUnavailable:
		account.Reason = "Sales Navigator session expired; classic LinkedIn still works"
		account.ReconnectURL = AccountURL(sampleBaseURL, account.AccountID)
		account.SNVerdict, account.PreviousSNVerdict, account.SNChangedAt = SalesNavSessionExpired, SalesNavActive, s.ago(time.Minute)
		d.Account = account
	case EventSalesNavRestored:
		account.SNVerdict, account.PreviousSNVerdict, account.SNChangedAt = SalesNavActive, SalesNavSessionExpired, s.ago(time.Minute)
		d.Account = account
	default:
		return false
	}
	return true
}

// reportData fills the report kinds; false for other kinds.
func (s *samples) reportData(k EventKind, d *EventData) bool {
	at, yesterday := s.at, s.yesterday
	switch k {
	case EventReportGenerated:
		d.Report = &ReportBlock{
			Type:     ReportTypeWeeklySummary,
			Period:   at.AddDate(0, 0, -7).Format(time.DateOnly) + "/" + yesterday,
			ShareURL: ReportURL(sampleBaseURL, ReportTypeWeeklySummary, at.AddDate(0, 0, -7).Format(time.DateOnly)),
			Stats:    &ReportStats{ActivityTotals: ActivityTotals{InvitesSent: 140, ConnectionsAccepted: 61, MessagesSent: 95, Replies: 17, PositiveReplies: 9, NegativeReplies: 4, Bookings: 3}, InvitesWithdrawn: 12},
		}
	case EventMarketAnalysisGenerated:
		d.Report = &ReportBlock{Type: ReportTypeMarketAnalysis, Period: yesterday, ShareURL: ReportURL(sampleBaseURL, ReportTypeMarketAnalysis, yesterday)}
	case EventDailyDigest:
		d.Report = &ReportBlock{
			Type:   ReportTypeDailyDigest,
			Period: yesterday,
			Stats:  &ReportStats{ActivityTotals: ActivityTotals{InvitesSent: 20, ConnectionsAccepted: 9, MessagesSent: 14, Replies: 3, PositiveReplies: 2, NegativeReplies: 1, Bookings: 1}, InvitesWithdrawn: 2},
		}
	default:
		return false
	}
	return true
}
