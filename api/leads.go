package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// Limits of a push; the limits of one lead are the domain's (outreach.LeadInput.Check).
const (
	maxLeadsPerPush   = 100
	maxIdempotencyKey = 200
)

// leadRoutes mounts the lead, blacklist, conversion and intake endpoints.
// Conversions and intake sit on root, outside /api/v1: conversions behind the same key
// authentication and rate limit as v1 (keyed), intake authenticated by its URL's token.
func (s *Server) leadRoutes(v1, root *mux.Router) {
	v1.HandleFunc("/campaigns/{id}/leads", s.pushLeads).Methods(http.MethodPost)
	v1.HandleFunc("/campaigns/{id}/leads", s.listLeads).Methods(http.MethodGet)
	v1.HandleFunc("/leads/{id}", s.getLead).Methods(http.MethodGet)
	v1.HandleFunc("/blacklist", s.postBlacklist).Methods(http.MethodPost)
	v1.HandleFunc("/blacklist", s.getBlacklist).Methods(http.MethodGet)
	v1.HandleFunc("/blacklist", s.deleteBlacklist).Methods(http.MethodDelete)
	root.Handle("/api/webhooks/conversions", s.keyed(s.postConversion)).Methods(http.MethodPost)
	root.HandleFunc("/api/webhooks/leads/{token}", s.postIntake).Methods(http.MethodPost)
}

func (s *Server) pushLeads(w http.ResponseWriter, r *http.Request) {
	if !requireWrite(w, r) {
		return
	}
	batchID, err := batchIDFrom(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var body struct {
		Leads []json.RawMessage `json:"leads"`
	}
	if err := decodeJSON(r, &body); err != nil {
		s.fail(w, r, err)
		return
	}
	if len(body.Leads) == 0 || len(body.Leads) > maxLeadsPerPush {
		s.fail(w, r, invalid("leads must be an array of 1 to %d leads, got %d", maxLeadsPerPush, len(body.Leads)))
		return
	}
	leads := make([]storage.PushLead, len(body.Leads))
	warnings := make([][]string, len(body.Leads))
	for i, raw := range body.Leads {
		in, warn, err := decodePushLead(raw)
		if err != nil {
			s.fail(w, r, fmt.Errorf("leads[%d]%w", i, err))
			return
		}
		leads[i], warnings[i] = storage.PushLead{Index: i, Input: in}, warn
	}
	res, err := s.store.PushLeads(r.Context(), storage.PushRequest{OrgID: PrincipalFrom(r.Context()).OrgID,
		CampaignID: mux.Vars(r)["id"], BatchID: batchID, DefaultSource: outreach.SourceAPI, Leads: leads})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, pushView(res, len(leads), func(i int) []string { return warnings[i] }))
}

// pushLeadBody is one lead of a push as its known fields decode; every other field is an extra
// column (see decodePushLead).
type pushLeadBody struct {
	outreach.LeadInput
	linkedInURL *string // nil when absent or null: the one field a lead needs
}

// pushLeadFields are the fields pushLeadBody reads, with where each goes (a *string, **string or
// *map[string]any, for encoding/json). Names are matched regardless of case and a name sent
// twice keeps its last value, as Go's decoder matches and keeps struct fields. They are in name
// order because a lead with several fields of the wrong type is refused naming the first of
// them in that order: the messages are the API's, and that is the field they have always named
// (the fields used to be decoded from a re-encoded map, whose keys encoding/json sorts).
var pushLeadFields = [...]struct {
	name string
	dst  func(*pushLeadBody) any
}{
	{"company", func(b *pushLeadBody) any { return &b.Company }},
	{"data", func(b *pushLeadBody) any { return &b.Data }},
	{"email", func(b *pushLeadBody) any { return &b.Email }},
	{"first_name", func(b *pushLeadBody) any { return &b.FirstName }},
	{"headline", func(b *pushLeadBody) any { return &b.Headline }},
	{"last_name", func(b *pushLeadBody) any { return &b.LastName }},
	{"linkedin_url", func(b *pushLeadBody) any { return &b.linkedInURL }},
	{"location", func(b *pushLeadBody) any { return &b.Location }},
	{"name", func(b *pushLeadBody) any { return &b.Name }},
	{"source", func(b *pushLeadBody) any { return &b.Source }},
	{"title", func(b *pushLeadBody) any { return &b.Title }},
}

// decodePushLead reads one lead of a push. The known fields are decoded strictly (a wrong type
// or an over-long value is still the caller's 400, naming the field); every other field is an
// extra column of the client's export, kept in data by outreach.AddExtraFields, which says what
// it could not keep. The error names the field and starts with "." or " ", for the caller to
// put the lead's place in front.
//
// A push decodes up to 100 of these per call, so each field's value is decoded once, straight
// into its place, from the object's one split.
func decodePushLead(raw json.RawMessage) (outreach.LeadInput, []string, error) {
	var known [len(pushLeadFields)]json.RawMessage
	var extras []outreach.LeadField
	if err := outreach.EachLeadField(raw, func(f outreach.LeadField) {
		if i := pushLeadField(f.Key); i >= 0 {
			known[i] = f.Value // a name sent twice keeps its last value
		} else {
			extras = append(extras, f)
		}
	}); err != nil {
		return outreach.LeadInput{}, nil, invalid(" must be a JSON object")
	}
	var b pushLeadBody
	for i, f := range pushLeadFields {
		if known[i] == nil {
			continue
		}
		if err := decodeLeadField(f.name, known[i], f.dst(&b)); err != nil {
			return outreach.LeadInput{}, nil, err
		}
	}
	if b.linkedInURL == nil {
		return outreach.LeadInput{}, nil, invalid(".linkedin_url is required")
	}
	in := b.LeadInput
	in.LinkedInURL, in.Source = *b.linkedInURL, strings.TrimSpace(in.Source)
	// The client's own data is checked as sent (its limits are the contract's); the extras are
	// added after, within what is left of the 20 pairs.
	if err := in.Check(); err != nil {
		return outreach.LeadInput{}, nil, fmt.Errorf(".%w", err)
	}
	var warnings []string
	in.Data, warnings = outreach.AddExtraFields(in.Data, extras)
	return in, warnings, nil
}

// pushLeadField is the index in pushLeadFields of the field a key names, or -1.
func pushLeadField(key string) int {
	for i, f := range pushLeadFields {
		if strings.EqualFold(f.name, key) {
			return i
		}
	}
	return -1
}

// decodeLeadField decodes the value of the known field name into dst. A plain string into a
// text field, the common case, needs no decoder; anything else is encoding/json's to decode and
// to refuse, and its type error is worded as for a field of the lead.
func decodeLeadField(name string, val json.RawMessage, dst any) error {
	if s, ok := outreach.PlainJSONString(val); ok {
		switch dst := dst.(type) {
		case *string:
			*dst = s
			return nil
		case **string:
			text := s // a variable of this case alone: only here does the text need a place of its own
			*dst = &text
			return nil
		}
	}
	err := json.Unmarshal(val, dst)
	if err == nil {
		return nil
	}
	if typ, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		typ.Field = name // decoded on its own, the value has no field path
	}
	// `field "x" must be a string, got number` reads `.x must be a string, got number`. The
	// value is valid JSON (EachLeadField checked it), so a type error is all there can be.
	ie := outreach.JSONInputError(err, name)
	if ie.Field != "" {
		return invalid(".%s %s", ie.Field, ie.Problem)
	}
	return invalid(": %s", ie.Message)
}

// batchIDFrom is the Idempotency-Key header when sent (it becomes the batch_id), else a new id.
func batchIDFrom(r *http.Request) (string, error) {
	key := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	if key == "" {
		return outreach.NewID("bat"), nil
	}
	if len(key) > maxIdempotencyKey {
		return "", invalid("Idempotency-Key header is %d bytes long, at most %d are allowed", len(key), maxIdempotencyKey)
	}
	if !utf8.ValidString(key) || strings.IndexFunc(key, unicode.IsControl) >= 0 {
		return "", invalid("Idempotency-Key header must be printable UTF-8 text")
	}
	return key, nil
}

type acceptedJSON struct {
	LeadID     string   `json:"lead_id"`
	LinkedInID string   `json:"linkedin_id"`
	Name       string   `json:"name"`
	Created    bool     `json:"created"`
	Warnings   []string `json:"warnings"`
}

type rejectedJSON struct {
	Input    string   `json:"input"`
	Reason   string   `json:"reason"`
	Message  string   `json:"message"`
	LeadID   string   `json:"lead_id,omitempty"`
	Warnings []string `json:"warnings"`
}

type pushCounts struct {
	Received   int  `json:"received"`
	Accepted   int  `json:"accepted"`
	Rejected   int  `json:"rejected"`
	Duplicates int  `json:"duplicates"`
	Unreadable *int `json:"unreadable,omitempty"`
}

type pushJSON struct {
	BatchID    string         `json:"batch_id"`
	CampaignID string         `json:"campaign_id"`
	Accepted   []acceptedJSON `json:"accepted"`
	Rejected   []rejectedJSON `json:"rejected"`
	Counts     pushCounts     `json:"counts"`
}

// pushView renders a push's result; warningsOf gives the warnings of the lead at an index of
// the request (never nil in the answer: an entry without warnings carries []).
func pushView(res storage.PushResult, received int, warningsOf func(index int) []string) pushJSON {
	v := pushJSON{BatchID: res.BatchID, CampaignID: res.CampaignID, Accepted: []acceptedJSON{}, Rejected: []rejectedJSON{}}
	warn := func(i int) []string {
		if w := warningsOf(i); w != nil {
			return w
		}
		return []string{}
	}
	for _, a := range res.Accepted {
		v.Accepted = append(v.Accepted, acceptedJSON{LeadID: a.LeadID, LinkedInID: a.LinkedInID, Name: a.Name, Created: a.Created, Warnings: warn(a.Index)})
	}
	for _, rj := range res.Rejected {
		v.Rejected = append(v.Rejected, rejectedJSON{Input: rj.Input, Reason: rj.Reason, Message: rj.Message, LeadID: rj.LeadID, Warnings: warn(rj.Index)})
	}
	v.Counts = pushCounts{Received: received, Accepted: len(v.Accepted), Rejected: len(v.Rejected), Duplicates: res.Duplicates}
	return v
}

// leadJSON is a lead as GET /campaigns/{id}/leads and GET /leads/{id} show it. Email and Data
// are what the push kept besides the person block: the pushed email and the extra columns.
type leadJSON struct {
	LeadID            string  `json:"lead_id"`
	CampaignID        string  `json:"campaign_id"`
	LinkedInID        string  `json:"linkedin_id"`
	Name              string  `json:"name"`
	Status            string  `json:"status"`
	Contacted         bool    `json:"contacted"`
	EnrichmentStatus  string  `json:"enrichment_status"`
	FilterVerdict     string  `json:"filter_verdict"`
	FilterReason      *string `json:"filter_reason"`
	FilterUnknownOnly *bool   `json:"filter_unknown_only,omitempty"`
	BatchID           *string `json:"batch_id"`
	Source            string  `json:"source"`
	personJSON
	Email     *string        `json:"email"`
	Data      map[string]any `json:"data"`
	CreatedAt string         `json:"created_at"`
	UpdatedAt string         `json:"updated_at"`
}

// leadView renders a lead with filter_reason recalculated against the campaign's filters as
// they stand now: with final=true once enrichment is over (unknown facts then reject), with
// final=false while it is pending or was skipped (unknown facts cannot reject yet).
func leadView(p storage.Prospect, f outreach.HardFilters) leadJSON {
	now := f.Recheck(p.Person, p.EnrichmentStatus)
	v := leadJSON{LeadID: p.ID, CampaignID: p.CampaignID, LinkedInID: p.LinkedInID, Name: p.Name, Status: p.Status,
		Contacted: p.Contacted, EnrichmentStatus: p.EnrichmentStatus, FilterVerdict: p.FilterVerdict, BatchID: p.BatchID,
		Source: p.Source, personJSON: personBlock(p.Person), Email: p.Email, Data: p.Data,
		CreatedAt: outreach.FormatTime(p.CreatedAt), UpdatedAt: outreach.FormatTime(p.UpdatedAt)}
	if v.Data == nil {
		v.Data = map[string]any{}
	}
	if now.Reason != "" {
		v.FilterReason = &now.Reason
	}
	if p.FilterVerdict == outreach.VerdictRejected {
		unknownOnly := now.Verdict == outreach.VerdictRejected && now.UnknownOnly
		v.FilterUnknownOnly = &unknownOnly
	}
	return v
}

func (s *Server) listLeads(w http.ResponseWriter, r *http.Request) {
	page, err := parsePage(r, 200)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	lq := storage.LeadQuery{BatchID: q.Get("batch_id"), Source: q.Get("source"), Limit: page.Limit, Offset: page.Offset}
	if len(lq.BatchID) > maxIdempotencyKey {
		s.fail(w, r, invalid("query parameter batch_id is longer than %d bytes", maxIdempotencyKey))
		return
	}
	if len(lq.Source) > outreach.MaxLeadSourceLen {
		s.fail(w, r, invalid("query parameter source is longer than %d characters", outreach.MaxLeadSourceLen))
		return
	}
	leads, total, filters, err := s.store.ListLeads(r.Context(), PrincipalFrom(r.Context()).OrgID, mux.Vars(r)["id"], lq)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	data := make([]leadJSON, 0, len(leads))
	for _, p := range leads {
		data = append(data, leadView(p, filters))
	}
	page.Total = total
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "pagination": page})
}

func (s *Server) getLead(w http.ResponseWriter, r *http.Request) {
	p, filters, err := s.store.GetLead(r.Context(), PrincipalFrom(r.Context()).OrgID, mux.Vars(r)["id"])
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": leadView(p, filters)})
}
