package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"outreachd/outreach"
)

// The keyed JSON resources that links in event payloads resolve to on PUBLIC_URL, until the
// application's pages exist: inbox_url -> GET /conversations/{chat_id}, reconnect_url ->
// GET /accounts/{account_id}, share_url -> GET /reports/{type}/{day}.

func (s *Server) linkRoutes(v1 *mux.Router) {
	v1.HandleFunc("/conversations/{id}", s.getConversation).Methods(http.MethodGet)
	v1.HandleFunc("/conversations/{id}/reply", s.postConversationReply).Methods(http.MethodPost)
	v1.HandleFunc("/accounts/{id}", s.getAccount).Methods(http.MethodGet)
	v1.HandleFunc("/reports/{type}/{day}", s.getReport).Methods(http.MethodGet)
}

// reportDays is how many days a report of each type covers, from its first day.
var reportDays = map[string]int{outreach.ReportTypeDailyDigest: 1, outreach.ReportTypeWeeklySummary: 7, outreach.ReportTypeMarketAnalysis: 7}

const conversationMessages = 20

type conversationJSON struct {
	ID                 string                      `json:"id"`
	AccountID          string                      `json:"account_id"`
	AttendeeName       string                      `json:"attendee_name"`
	AttendeeProviderID string                      `json:"attendee_provider_id"`
	UnreadCount        int                         `json:"unread_count"`
	RepliesStopped     bool                        `json:"replies_stopped"`
	ProspectID         *string                     `json:"prospect_id"`
	CampaignID         *string                     `json:"campaign_id"`
	Messages           []outreach.ConversationTurn `json:"messages"`
	personJSON
}

func (s *Server) getConversation(w http.ResponseWriter, r *http.Request) {
	org := PrincipalFrom(r.Context()).OrgID
	c, err := s.store.GetConversation(r.Context(), org, mux.Vars(r)["id"], conversationMessages)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := conversationJSON{ID: c.ID, AccountID: c.AccountID, AttendeeName: c.AttendeeName, AttendeeProviderID: c.AttendeeProviderID,
		UnreadCount: c.UnreadCount, RepliesStopped: c.RepliesStopped, ProspectID: c.ProspectID, Messages: c.Messages,
		personJSON: personBlock(outreach.Person{})}
	if c.ProspectID != nil {
		if p, err := s.store.GetProspect(r.Context(), org, *c.ProspectID); err == nil {
			v.CampaignID, v.personJSON = &p.CampaignID, personBlock(p.Person)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": v})
}

type accountJSON struct {
	ID             string  `json:"id"`
	Name           string  `json:"name"`
	Status         string  `json:"status"`
	CooldownUntil  *string `json:"cooldown_until"`
	DisconnectedAt *string `json:"disconnected_at"`
	SNVerdict      *string `json:"sn_verdict"`
	SNChangedAt    *string `json:"sn_changed_at"`
	CreatedAt      string  `json:"created_at"`
}

func (s *Server) getAccount(w http.ResponseWriter, r *http.Request) {
	a, err := s.store.GetOrgLinkedInAccount(r.Context(), PrincipalFrom(r.Context()).OrgID, mux.Vars(r)["id"])
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": accountJSON{ID: a.ID, Name: a.Name, Status: a.Status,
		CooldownUntil: outreach.FormatTimePtr(a.CooldownUntil), DisconnectedAt: outreach.FormatTimePtr(a.DisconnectedAt),
		SNVerdict: a.SNVerdict, SNChangedAt: outreach.FormatTimePtr(a.SNChangedAt), CreatedAt: outreach.FormatTime(a.CreatedAt)}})
}

// getReport answers a report's counters: the organization's campaign activity over the report's
// UTC days (one for daily_digest, seven from {day} for weekly_summary and market_analysis).
func (s *Server) getReport(w http.ResponseWriter, r *http.Request) {
	typ, day := mux.Vars(r)["type"], mux.Vars(r)["day"]
	days, ok := reportDays[typ]
	if !ok {
		s.fail(w, r, outreach.NotFound("report type %q (daily_digest, weekly_summary or market_analysis)", typ))
		return
	}
	from, err := time.Parse(time.DateOnly, day)
	if err != nil {
		s.fail(w, r, invalid("report day %q must be a date written YYYY-MM-DD", day))
		return
	}
	to := from.AddDate(0, 0, days-1)
	stats, err := s.store.OrgPeriodCounts(r.Context(), PrincipalFrom(r.Context()).OrgID, from, to)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	period := day
	if days > 1 {
		period = day + "/" + to.Format(time.DateOnly)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"type": typ, "period": period,
		"from": day, "to": to.Format(time.DateOnly), "stats": stats}})
}

// sampleLinks points a sample's links at this server: its share_url resolves (a report exists
// for every period); its inbox_url and reconnect_url name example ids, which answer 404.
func (s *Server) sampleLinks(ev outreach.Event) outreach.Event {
	d := ev.Data
	if d.NeedsHuman != nil {
		nh := *d.NeedsHuman
		nh.InboxURL = outreach.ConversationURL(s.cfg.PublicURL, d.Message.ChatID)
		d.NeedsHuman = &nh
	}
	if d.Account != nil && d.Account.ReconnectURL != "" {
		a := *d.Account
		a.ReconnectURL = outreach.AccountURL(s.cfg.PublicURL, a.AccountID)
		d.Account = &a
	}
	if d.Report != nil && d.Report.ShareURL != "" {
		rep := *d.Report
		first, _, _ := strings.Cut(rep.Period, "/")
		rep.ShareURL = outreach.ReportURL(s.cfg.PublicURL, rep.Type, first)
		d.Report = &rep
	}
	ev.Data = d
	return ev
}
