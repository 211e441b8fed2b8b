package unipilefake

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"
	"unicode/utf16"
)

// reinviteDelay is how long LinkedIn refuses a new invitation to someone whose invitation
// was withdrawn.
const reinviteDelay = 21 * 24 * time.Hour

func (f *Fake) invite(w http.ResponseWriter, r *http.Request) {
	var body struct {
		AccountID  string `json:"account_id"`
		ProviderID string `json:"provider_id"`
		Message    string `json:"message"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.seat(w, body.AccountID)
	if !ok {
		return
	}
	p := f.st.people[body.ProviderID] // the member id only: a public slug is not accepted here
	switch {
	case body.ProviderID == "":
		badRequest(w, "provider_id is required.")
		return
	case len(utf16.Encode([]rune(body.Message))) > 300:
		problem(w, http.StatusBadRequest, typeTooManyCharacters, "Too many characters", "The provided content exceeds the character limit.")
		return
	case p == nil || p.ProviderID == a.Owner.ProviderID:
		problem(w, http.StatusUnprocessableEntity, typeInvalidRecipient, "Invalid recipient", "The recipient cannot be reached.")
		return
	case f.st.isRelation(a.ID, p.ProviderID):
		problem(w, http.StatusUnprocessableEntity, typeAlreadyConnected, "Already connected", "You are already connected to this user.")
		return
	case f.st.pendingInvitation(a.ID, p.ProviderID) != nil || f.st.withdrawnSince(a.ID, p.ProviderID, f.now().Add(-reinviteDelay)):
		problem(w, http.StatusUnprocessableEntity, typeAlreadyInvitedRecently, "Already invited recently",
			"An invitation has already been sent recently to this user.")
		return
	}
	f.st.seq++
	in := &invitation{
		id: strconv.FormatInt(7224673722165518336+int64(f.st.seq), 10), accountID: a.ID,
		providerID: p.ProviderID, note: body.Message, sentAt: f.now(), state: "pending",
	}
	f.st.invitations = append(f.st.invitations, in)
	writeJSON(w, http.StatusOK, map[string]any{"object": "UserInvitationSent", "invitation_id": in.id})
}

func (st *state) withdrawnSince(accountID, providerID string, since time.Time) bool {
	return slices.ContainsFunc(st.invitations, func(in *invitation) bool {
		return in.accountID == accountID && in.providerID == providerID && in.state == "withdrawn" && in.closedAt.After(since)
	})
}

// listSent lists the seat's pending invitations, the newest first.
func (f *Fake) listSent(w http.ResponseWriter, r *http.Request, a *account) {
	pending := newestFirst(f.st.invitations, func(in *invitation) bool { return in.accountID == a.ID && in.state == "pending" })
	answerList(f, w, r, "InvitationList", pending, 100, func(in *invitation) any { return renderInvitation(&f.st, in) })
}

func (f *Fake) cancelInvite(w http.ResponseWriter, r *http.Request, a *account) {
	for _, in := range f.st.invitations {
		if in.id == r.PathValue("id") && in.accountID == a.ID && in.state == "pending" {
			in.state, in.closedAt = "withdrawn", f.now()
			writeJSON(w, http.StatusOK, map[string]any{"object": "InvitationCanceled"})
			return
		}
	}
	notFound(w, "Invitation")
}

// listRelations lists the seat's connections, the newest first.
func (f *Fake) listRelations(w http.ResponseWriter, r *http.Request, a *account) {
	rels := newestFirst(f.st.relations, func(rel *relation) bool { return rel.accountID == a.ID })
	answerList(f, w, r, "UserRelationsList", rels, 1000, func(rel *relation) any { return renderRelation(&f.st, rel) })
}

// AcceptOptions tunes AcceptInvitation.
type AcceptOptions struct {
	// WithholdNewRelation keeps the new_relation webhook from ever being sent, as happens
	// with Unipile (it can come hours late, or not at all): only listing relations finds it.
	WithholdNewRelation bool
}

// AcceptInvitation plays the member accepting the seat's pending invitation: they become a
// relation; an invitation with a note opens a chat holding the note (reported as the seat's
// message_received); and the users webhooks get new_relation, unless withheld.
func (f *Fake) AcceptInvitation(accountID, providerID string, opt AcceptOptions) error {
	f.mu.Lock()
	in := f.st.pendingInvitation(accountID, providerID)
	if in == nil {
		f.mu.Unlock()
		return fmt.Errorf("unipilefake: account %s has no pending invitation to %s", accountID, providerID)
	}
	in.state, in.closedAt = "accepted", f.now()
	out := f.connect(accountID, providerID, !opt.WithholdNewRelation)
	if in.note != "" {
		out = append(out, f.write(accountID, providerID, in.note, originNote)...)
	}
	f.mu.Unlock()
	f.send(out)
	return nil
}

// AddRelation makes a member a connection of the seat without an invitation (a connection
// the seat already had), sending no webhook.
func (f *Fake) AddRelation(accountID, providerID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.st.account(accountID) == nil || f.st.people[providerID] == nil {
		return fmt.Errorf("unipilefake: no account %s or member %s", accountID, providerID)
	}
	f.connect(accountID, providerID, false)
	return nil
}

// connect records the relation and, when notify and the seat is OK, builds new_relation.
// Holds f.mu.
func (f *Fake) connect(accountID, providerID string, notify bool) []outbound {
	if !f.st.isRelation(accountID, providerID) {
		f.st.relations = append(f.st.relations, &relation{accountID: accountID, providerID: providerID, createdAt: f.now()})
	}
	a, p := f.st.account(accountID), f.st.people[providerID]
	if !notify || a.status != "OK" {
		return nil
	}
	return f.webhookCalls("users", accountID, "new_relation", func(name string) any {
		return map[string]any{
			"event": "new_relation", "account_id": accountID, "account_type": "LINKEDIN", "webhook_name": name,
			"user_full_name": p.name(), "user_provider_id": p.ProviderID,
			"user_public_identifier": p.PublicIdentifier, "user_profile_url": p.profileURL(),
			"user_picture_url": "https://media.example.com/" + p.PublicIdentifier + ".jpg",
		}
	})
}

// SentInvitations counts the invitations the seat ever sent the member, whatever became of
// them: the count a test compares to 1 to prove nothing was sent twice.
func (f *Fake) SentInvitations(accountID, providerID string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, in := range f.st.invitations {
		if in.accountID == accountID && in.providerID == providerID {
			n++
		}
	}
	return n
}
