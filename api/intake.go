package api

import (
	"errors"
	"net/http"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

type unreadableJSON struct {
	Index  int    `json:"index"`
	Reason string `json:"reason"`
}

type intakeJSON struct {
	OK bool `json:"ok"`
	pushJSON
	Unreadable []unreadableJSON `json:"unreadable"`
}

// postIntake is the no-code intake URL: no key, the token names one campaign.
// Readable rows take exactly the push path of POST /campaigns/{id}/leads; rows that cannot be
// read (not an object, no profile, a field over its limit) are listed in unreadable by their
// zero-based index. The call spends the token's own request budget (IntakeRateLimitPerMinute),
// not the organization's.
func (s *Server) postIntake(w http.ResponseWriter, r *http.Request) {
	token := mux.Vars(r)["token"]
	if len(token) > 200 {
		s.fail(w, r, outreach.NotFound("intake URL"))
		return
	}
	target, err := s.store.ResolveIntakeToken(r.Context(), token)
	if err != nil {
		if errors.Is(err, outreach.ErrNotFound) {
			err = outreach.NotFound("intake URL (unknown, replaced or revoked)")
		}
		s.fail(w, r, err)
		return
	}
	traceOrg(r.Context(), target.OrgID)
	if !s.spend(w, r, Principal{OrgID: target.OrgID}, target.Bucket) {
		return
	}
	batchID, err := batchIDFrom(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	raw, err := readBody(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	parsed, err := outreach.ParseIntake(raw)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	unreadable := []unreadableJSON{}
	var leads []storage.PushLead
	warnings := map[int][]string{}
	for _, row := range parsed.Rows {
		if row.Lead == nil {
			unreadable = append(unreadable, unreadableJSON{Index: row.Index, Reason: row.Unreadable})
			continue
		}
		if err := row.Lead.Check(); err != nil {
			unreadable = append(unreadable, unreadableJSON{Index: row.Index, Reason: err.Error()})
			continue
		}
		leads = append(leads, storage.PushLead{Index: row.Index, Input: *row.Lead})
		warnings[row.Index] = row.Warnings
	}
	res, err := s.store.PushLeads(r.Context(), storage.PushRequest{OrgID: target.OrgID, CampaignID: target.CampaignID,
		BatchID: batchID, DefaultSource: outreach.SourceIntakeURL, Leads: leads})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := intakeJSON{OK: true, pushJSON: pushView(res, len(parsed.Rows), func(i int) []string { return warnings[i] }), Unreadable: unreadable}
	n := len(unreadable)
	out.Counts.Unreadable = &n
	writeJSON(w, http.StatusAccepted, out)
}
