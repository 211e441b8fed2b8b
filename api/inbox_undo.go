package api

import (
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// Undoing stop and block, and reading who is stopped or blocked (the application's Do not
// contact page does the same through the same storage calls): GET /inbox/stopped,
// POST /inbox/resume, GET /inbox/blocked, POST /inbox/unblock.

const maxPeopleSearch = 200

func (s *Server) inboxUndoRoutes(v1 *mux.Router) {
	v1.HandleFunc("/inbox/stopped", s.getStopped).Methods(http.MethodGet)
	v1.HandleFunc("/inbox/resume", s.postInboxResume).Methods(http.MethodPost)
	v1.HandleFunc("/inbox/blocked", s.getBlocked).Methods(http.MethodGet)
	v1.HandleFunc("/inbox/unblock", s.postInboxUnblock).Methods(http.MethodPost)
}

// peopleQuery reads q, limit and offset.
func peopleQuery(r *http.Request) (storage.PeopleQuery, Page, error) {
	page, err := parsePage(r, 200)
	if err != nil {
		return storage.PeopleQuery{}, page, err
	}
	q := r.URL.Query().Get("q")
	if len([]rune(q)) > maxPeopleSearch {
		return storage.PeopleQuery{}, page, invalid("query parameter q must be at most %d characters", maxPeopleSearch)
	}
	return storage.PeopleQuery{OrgID: PrincipalFrom(r.Context()).OrgID, Text: q, Limit: page.Limit, Offset: page.Offset}, page, nil
}

type pausedSequenceJSON struct {
	ProspectID  string `json:"prospect_id"`
	CampaignID  string `json:"campaign_id"`
	CurrentStep int    `json:"current_step"`
	// NextStepInSeconds is the time that was left until the next step when it stopped: what a
	// resume gives back. Null when no step was scheduled yet.
	NextStepInSeconds *int64 `json:"next_step_in_seconds"`
}

type stoppedJSON struct {
	LinkedInURL string               `json:"linkedin_url"`
	Name        *string              `json:"name"`
	StoppedAt   string               `json:"stopped_at"`
	StoppedBy   *string              `json:"stopped_by"`
	Sequences   []pausedSequenceJSON `json:"sequences"`
}

// getStopped is GET /inbox/stopped: the people stopped and not resumed, newest first.
func (s *Server) getStopped(w http.ResponseWriter, r *http.Request) {
	q, page, err := peopleQuery(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	people, total, err := s.store.ListStopped(r.Context(), q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	data := make([]stoppedJSON, 0, len(people))
	for _, p := range people {
		v := stoppedJSON{LinkedInURL: p.Value, Name: nonEmpty(p.Name), StoppedAt: outreach.FormatTime(p.StoppedAt),
			StoppedBy: p.StoppedBy, Sequences: []pausedSequenceJSON{}}
		for _, sq := range p.Sequences {
			j := pausedSequenceJSON{ProspectID: sq.ProspectID, CampaignID: sq.CampaignID, CurrentStep: sq.CurrentStep}
			if sq.TimeLeft != nil {
				secs := int64(*sq.TimeLeft / time.Second)
				j.NextStepInSeconds = &secs
			}
			v.Sequences = append(v.Sequences, j)
		}
		data = append(data, v)
	}
	page.Total = total
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "pagination": page})
}

type blockedJSON struct {
	LinkedInURL string  `json:"linkedin_url"`
	Name        *string `json:"name"`
	Reason      *string `json:"reason"`
	BlockedAt   string  `json:"blocked_at"`
	BlockedBy   *string `json:"blocked_by"`
}

// getBlocked is GET /inbox/blocked: the people blocked (account entries made by a block),
// newest first.
func (s *Server) getBlocked(w http.ResponseWriter, r *http.Request) {
	q, page, err := peopleQuery(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	people, total, err := s.store.ListBlocked(r.Context(), q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	data := make([]blockedJSON, 0, len(people))
	for _, p := range people {
		data = append(data, blockedJSON{LinkedInURL: p.Value, Name: nonEmpty(p.Name), Reason: p.Reason,
			BlockedAt: outreach.FormatTime(p.BlockedAt), BlockedBy: p.BlockedBy})
	}
	page.Total = total
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "pagination": page})
}

type resumeItemJSON struct {
	Input            string `json:"input"`
	Resumed          bool   `json:"resumed"`
	SequencesResumed int    `json:"sequences_resumed"`
	RepliesResumed   bool   `json:"replies_resumed"`
	NotFound         bool   `json:"not_found"`
	Error            string `json:"error,omitempty"`
}

// postInboxResume is POST /inbox/resume: undoes POST /inbox/stop.
func (s *Server) postInboxResume(w http.ResponseWriter, r *http.Request) {
	ts, refs, idx, ok := s.targetsOf(w, r)
	if !ok {
		return
	}
	var res []storage.ResumeResult
	var err error
	if len(refs) > 0 {
		if res, err = s.store.ResumePeople(r.Context(), PrincipalFrom(r.Context()).OrgID, refs, s.domainNow()); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	n := 0
	data := itemsOf(ts, idx, res, func(t target) resumeItemJSON {
		return resumeItemJSON{Input: t.input, NotFound: true, Error: t.err}
	}, func(t target, x storage.ResumeResult) resumeItemJSON {
		if x.Found {
			n++
		}
		return resumeItemJSON{Input: t.input, Resumed: x.Found, SequencesResumed: x.SequencesResumed,
			RepliesResumed: x.RepliesResumed, NotFound: !x.Found}
	})
	s.log.Info("inbox: people resumed", "org", PrincipalFrom(r.Context()).OrgID, "by", actorOf(r), "resumed", n)
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "requested": len(ts), "resumed": n})
}

type unblockItemJSON struct {
	Input          string `json:"input"`
	Unblocked      bool   `json:"unblocked"`
	RepliesResumed bool   `json:"replies_resumed"`
	NotFound       bool   `json:"not_found"`
	Error          string `json:"error,omitempty"`
}

// postInboxUnblock is POST /inbox/unblock: takes people off the do-not-contact list.
func (s *Server) postInboxUnblock(w http.ResponseWriter, r *http.Request) {
	ts, refs, idx, ok := s.targetsOf(w, r)
	if !ok {
		return
	}
	var res []storage.UnblockResult
	var err error
	if len(refs) > 0 {
		if res, err = s.store.UnblockPeople(r.Context(), PrincipalFrom(r.Context()).OrgID, refs); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	n := 0
	data := itemsOf(ts, idx, res, func(t target) unblockItemJSON {
		return unblockItemJSON{Input: t.input, NotFound: true, Error: t.err}
	}, func(t target, x storage.UnblockResult) unblockItemJSON {
		if x.Found {
			n++
		}
		return unblockItemJSON{Input: t.input, Unblocked: x.Found, RepliesResumed: x.RepliesResumed, NotFound: !x.Found}
	})
	s.log.Info("inbox: people unblocked", "org", PrincipalFrom(r.Context()).OrgID, "by", actorOf(r), "unblocked", n)
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "requested": len(ts), "unblocked": n})
}

// targetsOf checks the scope and reads a body of people (as POST /inbox/stop takes them); on
// failure it has answered.
func (s *Server) targetsOf(w http.ResponseWriter, r *http.Request) ([]target, []storage.PersonRef, []int, bool) {
	if !requireWrite(w, r) {
		return nil, nil, nil, false
	}
	var b targetsBody
	if err := decodeJSON(r, &b); err != nil {
		s.fail(w, r, err)
		return nil, nil, nil, false
	}
	ts, err := parseTargets(b)
	if err != nil {
		s.fail(w, r, err)
		return nil, nil, nil, false
	}
	refs, idx := validTargets(ts)
	return ts, refs, idx, true
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
