package webapp

import (
	"context"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"outreachd/outreach"
)

// The Inbox: the conversations of the organization's seats, read live from the LinkedIn
// provider the way GET /inbox reads them (the same seats, the same order, the same people;
// campaign people first, everyone on request). One conversation (conversation.go) shows its
// messages and the person, takes a reply, and has Stop and Block.

// InboxReader reads the seats' conversations live (the LinkedIn provider): a seat's chats, most
// recent first (limit <= 0: all), and one chat's messages, oldest first.
type InboxReader interface {
	ListChats(ctx context.Context, providerAccountID string, limit int) ([]outreach.Chat, error)
	Messages(ctx context.Context, chatID string) ([]outreach.ChatMessage, error)
}

// Replies sends a person's own reply into a conversation (the outreach engine's SendReply).
type Replies interface {
	SendReply(ctx context.Context, r outreach.ReplyRequest) (outreach.DraftOutcome, error)
}

const (
	inboxRows    = 50
	inboxTimeout = 20 * time.Second
)

func (a *App) inboxRoutes(sub *mux.Router) {
	sub.HandleFunc("/inbox", a.page(a.inboxPage)).Methods(http.MethodGet)
	sub.HandleFunc("/inbox/{id}", a.page(a.conversationPage)).Methods(http.MethodGet)
	sub.HandleFunc("/inbox/{id}/reply", a.page(a.sendReply)).Methods(http.MethodPost)
	sub.HandleFunc("/inbox/{id}/stop", a.page(a.stopFromInbox)).Methods(http.MethodPost)
	sub.HandleFunc("/inbox/{id}/block", a.page(a.blockFromInbox)).Methods(http.MethodPost)
}

type inboxRow struct {
	Chat   outreach.Chat
	Person *outreach.Person // nil for a stranger (in none of the organization's campaigns)
}

type inboxData struct {
	All   bool
	Seats int
	Rows  []inboxRow
	Down  string // the seat LinkedIn did not answer for
}

func (a *App) inboxPage(w http.ResponseWriter, r *http.Request, u User) {
	all := r.URL.Query().Get("scope") == "all"
	d := inboxData{All: all}
	if a.deps.Inbox == nil {
		a.renderError(w, r, http.StatusServiceUnavailable, "The live LinkedIn inbox is not available in this process.")
		return
	}
	ctx := r.Context()
	seats, err := a.store.InboxAccounts(ctx, u.OrgID, outreach.InboxSeats)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	d.Seats = len(seats)
	perSeat := inboxRows
	if !all {
		perSeat = outreach.InboxCampaignScan
	}
	rctx, cancel := context.WithTimeout(ctx, inboxTimeout)
	chats, down, err := outreach.ReadInboxes(rctx, a.deps.Inbox.ListChats, seats, perSeat)
	cancel()
	if err != nil {
		a.log.Warn("webapp: inbox read failed", "org", u.OrgID, "account", down, "err", err)
		d.Down = down
		a.render(w, r, http.StatusBadGateway, "inbox", view{Title: "Inbox", Nav: "inbox", D: d})
		return
	}
	people, err := a.store.InboxPeople(ctx, u.OrgID, chats)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	for i, c := range chats {
		if len(d.Rows) == inboxRows {
			break
		}
		if all || people[i] != nil {
			d.Rows = append(d.Rows, inboxRow{Chat: c.Chat, Person: people[i]})
		}
	}
	a.render(w, r, http.StatusOK, "inbox", view{Title: "Inbox", Nav: "inbox", Flash: flashOf(r), D: d})
}
