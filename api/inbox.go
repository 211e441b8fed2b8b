package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
	"unicode/utf8"

	"outreachd/outreach"
	"outreachd/storage"
)

// InboxReader reads a LinkedIn account's chats live, most recent first, in the LinkedIn port's
// words (a LinkedIn provider implements it as it is); providerAccountID is the provider's id of
// the seat, limit <= 0 means all.
type InboxReader interface {
	ListChats(ctx context.Context, providerAccountID string, limit int) ([]outreach.Chat, error)
}

const (
	inboxReadTimeout  = 20 * time.Second
	maxStopBlockItems = 200
)

type inboxMessageJSON struct {
	Text   string `json:"text"`
	At     string `json:"at"`
	FromMe bool   `json:"from_me"`
}

type inboxItemJSON struct {
	ID                 string            `json:"id"`
	AccountID          string            `json:"account_id"`
	AttendeeName       string            `json:"attendee_name"`
	AttendeeProviderID string            `json:"attendee_provider_id"`
	UnreadCount        int               `json:"unread_count"`
	LastMessage        *inboxMessageJSON `json:"last_message"`
	personJSON
}

// getInbox is GET /inbox: the live conversations of the organization's first five connected
// LinkedIn accounts, most recent first, merged across accounts. It has its own rate budget
// (ratelimit.go) and no pagination.
func (s *Server) getInbox(w http.ResponseWriter, r *http.Request) {
	limit, err := queryInt(r, "limit", 50, 1, 100)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	scope := r.URL.Query().Get("scope")
	switch scope {
	case "":
		scope = "campaign"
	case "campaign", "all":
	default:
		s.fail(w, r, invalid("query parameter scope must be campaign or all, got %q", truncate(scope, 40)))
		return
	}
	if s.deps.Inbox == nil {
		writeError(w, http.StatusServiceUnavailable, CodeNotInProcess, "the live LinkedIn inbox is not available in this process")
		return
	}
	orgID := PrincipalFrom(r.Context()).OrgID
	accounts, err := s.store.InboxAccounts(r.Context(), orgID, outreach.InboxSeats)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	perAccount := limit
	if scope == "campaign" {
		perAccount = outreach.InboxCampaignScan
	}
	chats, failed, err := s.readInboxes(r.Context(), accounts, perAccount)
	if err != nil {
		s.log.Warn("inbox: provider read failed", "org", orgID, "account", failed, "err", err)
		writeError(w, http.StatusBadGateway, CodeLinkedInDown,
			"LinkedIn did not answer for account "+failed+"; retry later")
		return
	}
	people, err := s.store.InboxPeople(r.Context(), orgID, chats)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	data := make([]inboxItemJSON, 0, limit)
	for i, c := range chats {
		if len(data) == limit {
			break
		}
		if scope == "campaign" && people[i] == nil {
			continue
		}
		it := inboxItemJSON{ID: c.Chat.ID, AccountID: c.AccountID, AttendeeName: c.Chat.AttendeeName,
			AttendeeProviderID: c.Chat.AttendeeProviderID, UnreadCount: c.Chat.UnreadCount}
		if m := c.Chat.LastMessage; m != nil {
			it.LastMessage = &inboxMessageJSON{Text: m.Text, At: outreach.FormatTime(m.At), FromMe: m.FromMe}
		}
		if people[i] != nil {
			it.personJSON = personBlock(*people[i])
		}
		data = append(data, it)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "scope": scope})
}

// readInboxes reads every account at once through the configured reader and merges the chats
// (outreach.ReadInboxes). On failure it returns the id of (one) account that failed.
func (s *Server) readInboxes(ctx context.Context, accounts []storage.InboxAccount, perAccount int) ([]outreach.InboxChat, string, error) {
	ctx, cancel := context.WithTimeout(ctx, inboxReadTimeout)
	defer cancel()
	return outreach.ReadInboxes(ctx, s.deps.Inbox.ListChats, accounts, perAccount)
}

// targetsBody is the body of POST /inbox/stop and, with reason, POST /inbox/block. Entries are
// kept raw so that one entry of the wrong type is reported on its own instead of failing the
// whole batch.
type targetsBody struct {
	LinkedInURLs []json.RawMessage `json:"linkedin_urls"`
	LinkedInURL  json.RawMessage   `json:"linkedin_url"`
}

type blockBody struct {
	targetsBody
	Reason *string `json:"reason"`
}

// target is one entry of a stop/block batch: what the client sent and, if it names a person,
// who that is.
type target struct {
	input string
	ref   storage.PersonRef
	err   string // why the entry names nobody; "" when ref is valid
}

func parseTargets(b targetsBody) ([]target, error) {
	if string(b.LinkedInURL) == "null" {
		b.LinkedInURL = nil
	}
	var raws []json.RawMessage
	switch {
	case b.LinkedInURLs != nil && b.LinkedInURL != nil:
		return nil, invalid("send either linkedin_urls or linkedin_url, not both")
	case b.LinkedInURL != nil:
		raws = []json.RawMessage{b.LinkedInURL}
	case b.LinkedInURLs != nil:
		if len(b.LinkedInURLs) == 0 || len(b.LinkedInURLs) > maxStopBlockItems {
			return nil, invalid("linkedin_urls must hold 1 to %d entries, got %d",
				maxStopBlockItems, len(b.LinkedInURLs))
		}
		raws = b.LinkedInURLs
	default:
		return nil, invalid("linkedin_urls (an array of 1 to %d profile URLs or member ids) or linkedin_url is required",
			maxStopBlockItems)
	}
	out := make([]target, len(raws))
	for i, raw := range raws {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			out[i] = target{input: truncate(string(raw), 200), err: "entry must be a string (a profile URL, handle or member id)"}
			continue
		}
		out[i].input = s
		p, err := outreach.NormalizeProfile(s)
		if err != nil {
			out[i].err = err.Error()
			continue
		}
		out[i].ref = storage.NewPersonRef(p)
	}
	return out, nil
}

// changePeople carries out a batch change on the people a request names and answers it, one item
// per entry in request order: change runs once on the entries that name someone (not at all when
// none does), and item builds each entry's answer from its result, or from nil for an entry that
// names nobody, and says whether it counts towards the total the answer gives under countKey. It
// returns that total; on failure it has answered and returns false.
func changePeople[R, J any](s *Server, w http.ResponseWriter, r *http.Request, ts []target, countKey string,
	change func(ctx context.Context, orgID string, refs []storage.PersonRef) ([]R, error),
	item func(t target, res *R) (J, bool)) (int, bool) {
	var refs []storage.PersonRef
	idx := make([]int, len(ts)) // each entry's result in res, -1 for an entry that names nobody
	for i, t := range ts {
		idx[i] = -1
		if t.err == "" {
			idx[i] = len(refs)
			refs = append(refs, t.ref)
		}
	}
	var res []R
	if len(refs) > 0 {
		var err error
		if res, err = change(r.Context(), PrincipalFrom(r.Context()).OrgID, refs); err != nil {
			s.fail(w, r, err)
			return 0, false
		}
	}
	data, n := make([]J, len(ts)), 0
	for i, t := range ts {
		var x *R
		if idx[i] >= 0 {
			x = &res[idx[i]]
		}
		var counted bool
		if data[i], counted = item(t, x); counted {
			n++
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "requested": len(ts), countKey: n})
	return n, true
}

type stopItemJSON struct {
	Input                string `json:"input"`
	MatchedConversations int    `json:"matched_conversations"`
	RepliesStopped       bool   `json:"replies_stopped"`
	FollowupsClosed      int    `json:"followups_closed"`
	CampaignsPaused      int    `json:"campaigns_paused"`
	NotFound             bool   `json:"not_found"`
	Error                string `json:"error,omitempty"`
}

// postInboxStop is POST /inbox/stop.
func (s *Server) postInboxStop(w http.ResponseWriter, r *http.Request) {
	stop := func(ctx context.Context, orgID string, refs []storage.PersonRef) ([]storage.StopResult, error) {
		return s.store.StopPeople(ctx, orgID, refs, actorOf(r), s.domainNow())
	}
	changeTargets(s, w, r, "applied", stop, stopItem)
}

// stopItem answers one entry of a stop; it counts when the person was found.
func stopItem(t target, x *storage.StopResult) (stopItemJSON, bool) {
	if x == nil {
		return stopItemJSON{Input: t.input, NotFound: true, Error: t.err}, false
	}
	return stopItemJSON{Input: t.input, MatchedConversations: x.MatchedConversations, RepliesStopped: x.RepliesStopped,
		FollowupsClosed: x.FollowupsClosed, CampaignsPaused: x.CampaignsPaused, NotFound: !x.Found}, x.Found
}

type blockItemJSON struct {
	Input                string `json:"input"`
	Blocked              bool   `json:"blocked"`
	MatchedConversations int    `json:"matched_conversations"`
	FollowupsClosed      int    `json:"followups_closed"`
	DraftsDismissed      int    `json:"drafts_dismissed"`
	Error                string `json:"error,omitempty"`
}

// postInboxBlock is POST /inbox/block.
func (s *Server) postInboxBlock(w http.ResponseWriter, r *http.Request) {
	var b blockBody
	if !s.decodeWrite(w, r, &b) {
		return
	}
	if b.Reason != nil {
		if err := outreach.CheckBlockReason(*b.Reason); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	ts, err := parseTargets(b.targetsBody)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	block := func(ctx context.Context, orgID string, refs []storage.PersonRef) ([]storage.BlockResult, error) {
		return s.store.BlockPeople(ctx, orgID, refs, b.Reason, actorOf(r), s.domainNow())
	}
	changePeople(s, w, r, ts, "blocked", block, blockItem)
}

// blockItem answers one entry of a block: every person named is blocked, known or not.
func blockItem(t target, x *storage.BlockResult) (blockItemJSON, bool) {
	if x == nil {
		return blockItemJSON{Input: t.input, Error: t.err}, false
	}
	return blockItemJSON{Input: t.input, Blocked: true, MatchedConversations: x.MatchedConversations,
		FollowupsClosed: x.FollowupsClosed, DraftsDismissed: x.DraftsDismissed}, true
}

// truncate shortens s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// actorOf names who made a request, as changes record it: "key:<key id>", or "" when the
// principal is not a key.
func actorOf(r *http.Request) string {
	if id := PrincipalFrom(r.Context()).KeyID; id != "" {
		return "key:" + id
	}
	return ""
}
