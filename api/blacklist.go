package api

import (
	"net/http"

	"outreachd/outreach"
	"outreachd/storage"
)

const maxBlacklistEntries = 500

type blacklistEntryBody struct {
	Value *string `json:"value"`
	Type  *string `json:"type"`
}

type blacklistRejectedJSON struct {
	Value  string `json:"value"`
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

// postBlacklist adds do-not-contact entries. A bad entry is reported in
// rejected and never fails the call; only a body that is not the documented shape is a 400.
// added and already_present are counts; an entry repeated within one call is already present
// the second time.
func (s *Server) postBlacklist(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Entries []blacklistEntryBody `json:"entries"`
	}
	if !s.decodeWrite(w, r, &body) {
		return
	}
	if len(body.Entries) == 0 || len(body.Entries) > maxBlacklistEntries {
		s.fail(w, r, invalid("entries must be an array of 1 to %d entries, got %d", maxBlacklistEntries, len(body.Entries)))
		return
	}
	rejected := []blacklistRejectedJSON{}
	by, now := nonEmpty(actorOf(r)), s.domainNow()
	var fresh []storage.BlacklistEntry
	seen := map[outreach.BlacklistKey]bool{}
	repeats := 0
	for _, e := range body.Entries {
		value, typ := deref(e.Value), deref(e.Type)
		var reason string
		switch {
		case e.Value == nil:
			reason = "value is required"
		case e.Type == nil:
			reason = "type is required: account or company"
		}
		if reason == "" {
			k, err := outreach.ParseBlacklistValue(value, typ)
			if err != nil {
				reason = err.Error()
			} else if seen[k] {
				repeats++
				continue
			} else {
				seen[k] = true
				fresh = append(fresh, storage.BlacklistEntry{Type: k.Type, Key: k.Key, Value: value, AddedBy: by, CreatedAt: now})
				continue
			}
		}
		rejected = append(rejected, blacklistRejectedJSON{Value: clipText(value, 300), Type: clipText(typ, 40), Reason: reason})
	}
	added, err := s.store.AddBlacklist(r.Context(), PrincipalFrom(r.Context()).OrgID, fresh)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	accepted := len(fresh) + repeats
	writeJSON(w, http.StatusOK, map[string]any{
		"added":           added,
		"already_present": accepted - added,
		"rejected":        rejected,
		"counts":          map[string]int{"received": len(body.Entries), "accepted": accepted, "rejected": len(rejected)},
	})
}

type blacklistJSON struct {
	Value     string  `json:"value"`
	Type      string  `json:"type"`
	Reason    *string `json:"reason"`
	CreatedAt string  `json:"created_at"`
}

// getBlacklist is GET /blacklist: a page of the list, newest first; q keeps the entries whose
// value or reason contains it.
func (s *Server) getBlacklist(w http.ResponseWriter, r *http.Request) {
	typ := r.URL.Query().Get("type")
	if typ != "" && typ != outreach.BlacklistAccount && typ != outreach.BlacklistCompany {
		s.fail(w, r, invalid("query parameter type must be account or company, got %q", clipText(typ, 40)))
		return
	}
	q, page, err := peopleQuery(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	entries, total, err := s.store.ListBlacklist(r.Context(), storage.BlacklistQuery{OrgID: q.OrgID,
		Type: typ, Text: q.Text, Limit: page.Limit, Offset: page.Offset})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	data := make([]blacklistJSON, 0, len(entries))
	for _, e := range entries {
		data = append(data, blacklistJSON{Value: e.Value, Type: e.Type, Reason: e.Reason, CreatedAt: outreach.FormatTime(e.CreatedAt)})
	}
	page.Total = total
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "pagination": page})
}

// deleteBlacklist is DELETE /blacklist?type=…&value=…: takes one entry off the list, matched the
// way it was added (any spelling of the same profile or company). Removing an account entry
// unblocks the person (POST /inbox/unblock).
func (s *Server) deleteBlacklist(w http.ResponseWriter, r *http.Request) {
	if !requireWrite(w, r) {
		return
	}
	v := r.URL.Query()
	if !v.Has("value") || !v.Has("type") {
		s.fail(w, r, invalid("query parameters value and type (account or company) are required"))
		return
	}
	k, err := outreach.ParseBlacklistValue(v.Get("value"), v.Get("type"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	found, err := s.store.RemoveBlacklist(r.Context(), PrincipalFrom(r.Context()).OrgID, k)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !found {
		s.fail(w, r, outreach.NotFound("do-not-contact entry (%s) %s", k.Type, clipText(v.Get("value"), 200)))
		return
	}
	s.log.Info("blacklist: entry removed", "org", PrincipalFrom(r.Context()).OrgID, "by", actorOf(r), "type", k.Type)
	writeJSON(w, http.StatusOK, map[string]any{"removed": map[string]string{"value": v.Get("value"), "type": k.Type}})
}

// clipText shortens an echoed client string to max runes.
func clipText(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max]) + "…"
}
