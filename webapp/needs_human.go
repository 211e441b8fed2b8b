package webapp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// The Needs Human desk: the open queue with the lead's message (always shown as text), the AI
// draft and the reason; Approve (confirmed first: it sends on LinkedIn and cannot be undone),
// Edit and approve, Dismiss. Deciding is the engine's one action (Drafts), shared with the API
// and the assistant; this page never sends anything itself.

// Drafts decides needs-human drafts (the outreach engine).
type Drafts interface {
	ApproveDraft(ctx context.Context, d outreach.DraftDecision) (outreach.DraftOutcome, error)
	DismissDraft(ctx context.Context, d outreach.DraftDecision) (outreach.DraftOutcome, error)
}

func (a *App) needsHumanRoutes(sub *mux.Router) {
	sub.HandleFunc("/needs-human", a.page(a.needsHumanPage)).Methods(http.MethodGet)
	sub.HandleFunc("/needs-human/{id}/approve", a.page(a.approveDraft)).Methods(http.MethodPost)
	sub.HandleFunc("/needs-human/{id}/dismiss", a.page(a.dismissDraft)).Methods(http.MethodPost)
}

// draftFlashes are the outcomes of a decision, by the engine's status.
var draftFlashes = map[string]string{
	outreach.DraftSent:      "Sent on LinkedIn.",
	outreach.DraftScheduled: "Approved. LinkedIn is busy for this seat right now; the reply goes out automatically as soon as it is back.",
	"notsent":               "Nothing was sent: the person was stopped or blocked meanwhile, or LinkedIn refused the message (the item is then back in the queue).",
}

const needsHumanPerPage = 50

type needsHumanData struct {
	Items []storage.NeedsHumanItem
	Total int
}

func (a *App) needsHumanPage(w http.ResponseWriter, r *http.Request, u User) {
	items, total, err := a.store.ListNeedsHuman(r.Context(), storage.NeedsHumanQuery{OrgID: u.OrgID, Limit: needsHumanPerPage})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	flash := flashOf(r)
	if f, ok := draftFlashes[r.URL.Query().Get("sent")]; ok {
		flash = f
	}
	a.render(w, r, http.StatusOK, "needs_human", view{Title: "Needs Human", Nav: "needs-human", Flash: flash,
		D: needsHumanData{Items: items, Total: total}})
}

// decisionOf opens Approve and Dismiss: u's decision on the item the path names, which the
// engine (Drafts) carries out. On failure it has answered.
func (a *App) decisionOf(w http.ResponseWriter, r *http.Request, u User) (outreach.DraftDecision, bool) {
	id := mux.Vars(r)["id"]
	if !outreach.ValidID("nhu", id) {
		a.fail(w, r, outreach.NotFound("needs-human item %s", id))
		return outreach.DraftDecision{}, false
	}
	if a.deps.Drafts == nil {
		a.renderError(w, r, http.StatusServiceUnavailable, "Drafts cannot be decided in this process.")
		return outreach.DraftDecision{}, false
	}
	return outreach.DraftDecision{OrgID: u.OrgID, ItemID: id, Actor: "user:" + u.ID}, true
}

// failDecision explains a refused decision on the page.
func (a *App) failDecision(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, outreach.ErrConflict) {
		a.renderError(w, r, http.StatusConflict, "This item was already decided (approved or dismissed) — perhaps by someone else or an assistant. Nothing more was sent.")
		return
	}
	a.fail(w, r, err)
}

func (a *App) approveDraft(w http.ResponseWriter, r *http.Request, u User) {
	d, ok := a.decisionOf(w, r, u)
	if !ok {
		return
	}
	edited := r.PostFormValue("edited") == "yes"
	text := strings.TrimSpace(strings.ReplaceAll(r.PostFormValue("text"), "\r\n", "\n"))
	if edited {
		if text == "" {
			a.fail(w, r, outreach.Invalidf("the reply is empty; write the text to send, or Dismiss the item"))
			return
		}
		if len(text) > outreach.MaxReplyText {
			a.fail(w, r, outreach.Invalidf("the reply is longer than %d characters", outreach.MaxReplyText))
			return
		}
		d.Text = &text
	}
	if r.PostFormValue("confirm") != "yes" {
		a.confirmApproval(w, r, u, d.ItemID, edited, text)
		return
	}
	out, err := a.deps.Drafts.ApproveDraft(r.Context(), d)
	if err != nil {
		a.failDecision(w, r, err)
		return
	}
	a.log.Info("webapp: draft approved", "item", d.ItemID, "status", out.Status, "user", u.ID)
	status := out.Status
	if status == outreach.DraftDismissed {
		status = "notsent"
	}
	http.Redirect(w, r, "/app/needs-human?sent="+status, http.StatusSeeOther)
}

// confirmApproval asks once more, naming the person and quoting exactly what will be sent.
func (a *App) confirmApproval(w http.ResponseWriter, r *http.Request, u User, id string, edited bool, text string) {
	draft, name, open, err := a.store.NeedsHumanDraft(r.Context(), u.OrgID, id)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if !open {
		a.failDecision(w, r, fmt.Errorf("needs-human item %s is not open: %w", id, outreach.ErrConflict))
		return
	}
	fields := map[string]string{"confirm": "yes"}
	quote := draft
	if edited {
		fields["edited"], fields["text"], quote = "yes", text, text
	}
	to := name
	if to == "" {
		to = "this person"
	}
	a.render(w, r, http.StatusOK, "confirm", view{Title: "Approve and send", Nav: "needs-human", D: confirmData{
		Heading: "Send this reply to " + to + " on LinkedIn?",
		Message: []string{"It goes out at once to " + to + " from the campaign's LinkedIn seat, as written below. It cannot be undone."},
		Quote:   quote, Action: "/app/needs-human/" + id + "/approve", Fields: fields, Button: "Approve and send",
		Cancel: "/app/needs-human"}})
}

func (a *App) dismissDraft(w http.ResponseWriter, r *http.Request, u User) {
	d, ok := a.decisionOf(w, r, u)
	if !ok {
		return
	}
	if _, err := a.deps.Drafts.DismissDraft(r.Context(), d); err != nil {
		a.failDecision(w, r, err)
		return
	}
	http.Redirect(w, r, "/app/needs-human?done=dismissed", http.StatusSeeOther)
}
