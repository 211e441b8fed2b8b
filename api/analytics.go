package api

import (
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// Daily analytics bounds.
const (
	maxDailyRangeDays     = 92
	defaultDailyRangeDays = 30 // from defaults to 29 days before to: 30 rows
)

// getAnalytics is GET /analytics: all-time totals of the organization.
func (s *Server) getAnalytics(w http.ResponseWriter, r *http.Request) {
	t, err := s.store.OrgAnalytics(r.Context(), PrincipalFrom(r.Context()).OrgID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{
		"campaigns": t.Campaigns, "total_prospects": t.TotalProspects, "prospects_by_status": t.ProspectsByStatus,
		"outcomes": t.Outcomes,
	}})
}

// dailyRowJSON is one day of GET /analytics/daily: its date, then the eight counters of a
// report (the embedded fields encode in place, in order).
type dailyRowJSON struct {
	Date string `json:"date"`
	outreach.ReportStats
}

// getAnalyticsDaily is GET /analytics/daily. Its errors use the plain shape {"error": "..."}
// (docs/api.md, "Errors").
func (s *Server) getAnalyticsDaily(w http.ResponseWriter, r *http.Request) {
	q, err := s.parseDailyQuery(r)
	if err != nil {
		s.failPlain(w, r, err)
		return
	}
	rows, err := s.store.DailyAnalytics(r.Context(), q)
	if err != nil {
		s.failPlain(w, r, err)
		return
	}
	data := make([]dailyRowJSON, 0, len(rows))
	for _, d := range rows {
		data = append(data, dailyRowJSON{Date: d.Day.Format(time.DateOnly), ReportStats: d.ReportStats})
	}
	meta := map[string]any{"from": q.From.Format(time.DateOnly), "to": q.To.Format(time.DateOnly), "timezone": "UTC"}
	if q.From.Before(storage.SentimentSplitFrom) {
		meta["note"] = "positive_replies and negative_replies are counted from " +
			storage.SentimentSplitFrom.Format(time.DateOnly) + " onward; earlier replies count only in replies"
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "meta": meta})
}

func (s *Server) parseDailyQuery(r *http.Request) (storage.DailyQuery, error) {
	v := r.URL.Query()
	q := storage.DailyQuery{OrgID: PrincipalFrom(r.Context()).OrgID,
		CampaignID: v.Get("campaign_id"), AccountID: v.Get("account_id")}
	today := s.domainNow().UTC().Truncate(24 * time.Hour)
	var err error
	if q.To, err = parseDay(v.Get("to"), "to", today); err != nil {
		return q, err
	}
	if q.From, err = parseDay(v.Get("from"), "from", q.To.AddDate(0, 0, -(defaultDailyRangeDays-1))); err != nil {
		return q, err
	}
	if q.From.After(q.To) {
		return q, invalid("query parameter from (%s) is after to (%s)",
			q.From.Format(time.DateOnly), q.To.Format(time.DateOnly))
	}
	if days := int(q.To.Sub(q.From).Hours()/24) + 1; days > maxDailyRangeDays {
		return q, invalid("the range from %s to %s spans %d days; at most %d are allowed",
			q.From.Format(time.DateOnly), q.To.Format(time.DateOnly), days, maxDailyRangeDays)
	}
	return q, nil
}

// parseDay reads a YYYY-MM-DD query value as a UTC day; "" is def.
func parseDay(raw, name string, def time.Time) (time.Time, error) {
	if raw == "" {
		return def, nil
	}
	d, err := time.Parse(time.DateOnly, raw)
	if err != nil {
		if len(raw) > 40 {
			raw = raw[:40] + "..."
		}
		return time.Time{}, invalid("query parameter %s must be a date written YYYY-MM-DD, got %q", name, raw)
	}
	return d, nil
}

// reportRoutes mounts the reporting endpoints of the outreach engine and stop/block.
func (s *Server) reportRoutes(v1 *mux.Router) {
	v1.HandleFunc("/analytics", s.getAnalytics).Methods(http.MethodGet)
	v1.HandleFunc("/analytics/daily", s.getAnalyticsDaily).Methods(http.MethodGet)
	v1.HandleFunc("/needs-human", s.getNeedsHuman).Methods(http.MethodGet)
	v1.HandleFunc("/needs-human/{id}/approve", s.postNeedsHumanDecision(true)).Methods(http.MethodPost)
	v1.HandleFunc("/needs-human/{id}/dismiss", s.postNeedsHumanDecision(false)).Methods(http.MethodPost)
	v1.HandleFunc("/stalled-leads", s.getStalledLeads).Methods(http.MethodGet)
	v1.HandleFunc("/inbox", s.getInbox).Methods(http.MethodGet)
	v1.HandleFunc("/inbox/stop", s.postInboxStop).Methods(http.MethodPost)
	v1.HandleFunc("/inbox/block", s.postInboxBlock).Methods(http.MethodPost)
	s.inboxUndoRoutes(v1)
}
