package unipile_test

import (
	"context"
	"strings"
	"testing"

	"outreachd/adapters/unipile"
	"outreachd/adapters/unipile/unipilefake"
)

func TestInvite(t *testing.T) {
	e := newEnv(t)
	id, err := e.c.Invite(e.ctx, e.seat.ID, e.ada.ProviderID, "Hello Ada")
	if err != nil {
		t.Fatal(err)
	}
	if id == "" {
		t.Fatal("no invitation id")
	}
	req := e.fake.Requests()[len(e.fake.Requests())-1]
	if req.ContentType != "application/json" || req.Fields.Get("account_id") != e.seat.ID ||
		req.Fields.Get("provider_id") != e.ada.ProviderID || req.Fields.Get("message") != "Hello Ada" {
		t.Fatalf("invite arrived as %s %v", req.ContentType, req.Fields)
	}
	// Without a note, no message field at all.
	if _, err := e.c.Invite(e.ctx, e.seat.ID, e.bob.ProviderID, ""); err != nil {
		t.Fatal(err)
	}
	if f := e.fake.Requests()[len(e.fake.Requests())-1].Fields; f.Has("message") {
		t.Fatalf("an empty note was sent: %v", f)
	}

	for _, tc := range []struct {
		name       string
		providerID string
		note       string
		class      unipile.Class
	}{
		{"invited again", e.ada.ProviderID, "", unipile.ClassAlreadyInvited},
		{"the public slug instead of the member id", "ada-lovelace", "", unipile.ClassRejected},
		{"the seat itself", e.seat.Owner.ProviderID, "", unipile.ClassRejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.c.Invite(e.ctx, e.seat.ID, tc.providerID, tc.note)
			mustClass(t, err, tc.class)
		})
	}
	if n := e.fake.SentInvitations(e.seat.ID, e.ada.ProviderID); n != 1 {
		t.Fatalf("ada got %d invitations", n)
	}

	if err := e.fake.AcceptInvitation(e.seat.ID, e.ada.ProviderID, unipilefake.AcceptOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = e.c.Invite(e.ctx, e.seat.ID, e.ada.ProviderID, "")
	mustClass(t, err, unipile.ClassAlreadyConnected)
}

func TestInviteNoteLength(t *testing.T) {
	e := newEnv(t)
	before := len(e.fake.Requests())
	for _, note := range []string{strings.Repeat("a", 301), strings.Repeat("😀", 151)} {
		_, err := e.c.Invite(e.ctx, e.seat.ID, e.ada.ProviderID, note)
		mustClass(t, err, unipile.ClassRejected)
	}
	if len(e.fake.Requests()) != before {
		t.Fatal("a note over the limit was sent")
	}
	// 150 emoji are 300 UTF-16 units: at the limit, and Unipile's side accepts it too.
	if unipile.NoteLength(strings.Repeat("😀", 150)) != 300 || unipile.NoteLength("é") != 1 {
		t.Fatal("NoteLength does not count UTF-16 units")
	}
	if _, err := e.c.Invite(e.ctx, e.seat.ID, e.ada.ProviderID, strings.Repeat("😀", 150)); err != nil {
		t.Fatal(err)
	}
}

func TestSentInvitationsAndWithdraw(t *testing.T) {
	e := newEnv(t)
	people := []unipilefake.Person{e.ada, e.bob, e.person(t, unipilefake.Person{FirstName: "Cy"})}
	ids := map[string]string{}
	for _, p := range people {
		id, err := e.c.Invite(e.ctx, e.seat.ID, p.ProviderID, "note for "+p.FirstName)
		if err != nil {
			t.Fatal(err)
		}
		ids[p.ProviderID] = id
	}
	sent := collectSent(t, e)
	if len(sent) != 3 {
		t.Fatalf("listed %d pending invitations", len(sent))
	}
	// The fake lists the newest first.
	if sent[0].InvitedUserID != people[2].ProviderID || sent[2].InvitedUserID != e.ada.ProviderID {
		t.Fatalf("order = %s, %s, %s", sent[0].InvitedUser, sent[1].InvitedUser, sent[2].InvitedUser)
	}
	ada := sent[2]
	if ada.ID != ids[e.ada.ProviderID] || ada.InvitedUserPublicID != "ada-lovelace" || ada.InvitedUser != "Ada Lovelace" ||
		ada.InvitationText != "note for Ada" || !ada.ParsedDatetime.Equal(e.clock.now()) {
		t.Fatalf("ada's invitation = %+v", ada)
	}

	if err := e.c.CancelInvitation(e.ctx, e.seat.ID, ids[e.bob.ProviderID]); err != nil {
		t.Fatal(err)
	}
	if got := e.fake.Requests()[len(e.fake.Requests())-1]; got.Method != "DELETE" || got.Query.Get("account_id") != e.seat.ID {
		t.Fatalf("withdraw sent as %s %s?%v", got.Method, got.Path, got.Query)
	}
	if sent := collectSent(t, e); len(sent) != 2 {
		t.Fatalf("%d pending after a withdrawal", len(sent))
	}
	err := e.c.CancelInvitation(e.ctx, e.seat.ID, ids[e.bob.ProviderID])
	mustClass(t, err, unipile.ClassNotFound)
	// LinkedIn refuses to invite again soon after a withdrawal.
	_, err = e.c.Invite(e.ctx, e.seat.ID, e.bob.ProviderID, "")
	mustClass(t, err, unipile.ClassAlreadyInvited)
}

func collectSent(t *testing.T, e *env) []unipile.SentInvitation {
	t.Helper()
	all, err := unipile.Collect(e.ctx, 10, func(ctx context.Context, cursor string) (unipile.Page[unipile.SentInvitation], error) {
		return e.c.ListSentInvitations(ctx, e.seat.ID, unipile.ListOptions{Limit: 100, Cursor: cursor})
	})
	if err != nil {
		t.Fatal(err)
	}
	return all
}

func TestRelations(t *testing.T) {
	e := newEnv(t)
	cy := e.person(t, unipilefake.Person{FirstName: "Cy", LastName: "Young", PublicIdentifier: "cy-young", Headline: "Pitcher"})
	for _, p := range []unipilefake.Person{e.ada, e.bob, cy} {
		e.connected(t, p)
	}
	var pages int
	rels, err := unipile.Collect(e.ctx, 10, func(ctx context.Context, cursor string) (unipile.Page[unipile.Relation], error) {
		pages++
		return e.c.ListRelations(ctx, e.seat.ID, unipile.ListOptions{Cursor: cursor})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rels) != 3 || pages != 2 {
		t.Fatalf("%d relations in %d pages", len(rels), pages)
	}
	r := rels[0]
	if r.MemberID != cy.ProviderID || r.PublicIdentifier != "cy-young" || r.FirstName != "Cy" || r.Headline != "Pitcher" ||
		!r.CreatedAt().Equal(e.clock.now()) || r.MemberURN == "" {
		t.Fatalf("newest relation = %+v", r)
	}
	// Limits outside the documented range are Unipile's 400.
	_, err = e.c.ListRelations(e.ctx, e.seat.ID, unipile.ListOptions{Limit: 1001})
	mustClass(t, err, unipile.ClassRejected)
	_, err = e.c.ListRelations(e.ctx, e.seat.ID, unipile.ListOptions{Cursor: "not-a-cursor"})
	mustClass(t, err, unipile.ClassRejected)
}
