package api

import (
	"context"
	"net/http"

	"github.com/gorilla/mux"

	"outreachd/outreach"
)

// ReplySender sends a person's own reply into a conversation at once, through the same path as
// an approved draft (the outreach engine's SendReply; the application's Inbox uses it too).
type ReplySender interface {
	SendReply(ctx context.Context, r outreach.ReplyRequest) (outreach.DraftOutcome, error)
}

type replyJSON struct {
	ChatID  string `json:"chat_id"`
	DraftID string `json:"draft_id"`
	Status  string `json:"status"`
	Text    string `json:"text"`
	At      string `json:"at"`
}

// postConversationReply is POST /conversations/{id}/reply {"text"}: the client's own text goes
// out at once; stop, block and opt-out are checked again before it does. Irreversible.
func (s *Server) postConversationReply(w http.ResponseWriter, r *http.Request) {
	if !requireWrite(w, r) {
		return
	}
	if s.deps.Replies == nil {
		writeError(w, http.StatusServiceUnavailable, CodeNotInProcess, "replies cannot be sent from this process")
		return
	}
	var in struct {
		Text *string `json:"text"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	if in.Text == nil {
		s.fail(w, r, invalidField("text", "is required: the reply to send"))
		return
	}
	out, err := s.deps.Replies.SendReply(r.Context(), outreach.ReplyRequest{OrgID: PrincipalFrom(r.Context()).OrgID,
		ChatID: mux.Vars(r)["id"], Text: *in.Text, Actor: actorOf(r)})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": replyJSON{ChatID: out.ChatID, DraftID: out.DraftID, Status: out.Status,
		Text: out.Text, At: outreach.FormatTime(out.At)}})
}
