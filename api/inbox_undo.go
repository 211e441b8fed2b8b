package api

import (
	"context"
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
	resume := func(ctx context.Context, orgID string, refs []storage.PersonRef) ([]storage.ResumeResult, error) {
		return s.store.ResumePeople(ctx, orgID, refs, s.domainNow())
	}
	if n, ok := changeTargets(s, w, r, "resumed", resume, resumeItem); ok {
		s.log.Info("inbox: people resumed", "org", PrincipalFrom(r.Context()).OrgID, "by", actorOf(r), "resumed", n)
	}
}

// resumeItem answers one entry of a resume; it counts when the person was stopped.
func resumeItem(t target, x *storage.ResumeResult) (resumeItemJSON, bool) {
	if x == nil {
		return resumeItemJSON{Input: t.input, NotFound: true, Error: t.err}, false
	}
	return resumeItemJSON{Input: t.input, Resumed: x.Found, SequencesResumed: x.SequencesResumed,
		RepliesResumed: x.RepliesResumed, NotFound: !x.Found}, x.Found
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
	unblock := func(ctx context.Context, orgID string, refs []storage.PersonRef) ([]storage.UnblockResult, error) {
		return s.store.UnblockPeople(ctx, orgID, refs)
	}
	if n, ok := changeTargets(s, w, r, "unblocked", unblock, unblockItem); ok {
		s.log.Info("inbox: people unblocked", "org", PrincipalFrom(r.Context()).OrgID, "by", actorOf(r), "unblocked", n)
	}
}

// unblockItem answers one entry of an unblock; it counts when the person was on the
// do-not-contact list.
func unblockItem(t target, x *storage.UnblockResult) (unblockItemJSON, bool) {
	if x == nil {
		return unblockItemJSON{Input: t.input, NotFound: true, Error: t.err}, false
	}
	return unblockItemJSON{Input: t.input, Unblocked: x.Found, RepliesResumed: x.RepliesResumed, NotFound: !x.Found}, x.Found
}

// changeTargets reads a body of people as POST /inbox/stop takes them (once the scope is
// checked) and carries out change on them (changePeople).
func changeTargets[R, J any](s *Server, w http.ResponseWriter, r *http.Request, countKey string,
	change func(ctx context.Context, orgID string, refs []storage.PersonRef) ([]R, error),
	item func(t target, res *R) (J, bool)) (int, bool) {
	var b targetsBody
	if !s.decodeWrite(w, r, &b) {
		return 0, false
	}
	ts, err := parseTargets(b)
	if err != nil {
		s.fail(w, r, err)
		return 0, false
	}
	return changePeople(s, w, r, ts, countKey, change, item)
}
