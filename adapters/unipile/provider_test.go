package unipile_test

import (
	"errors"
	"strings"
	"testing"

	"outreachd/adapters/unipile/unipilefake"
	"outreachd/outreach"
)

func TestProviderAccounts(t *testing.T) {
	e := newProviderEnv(t)
	accs, err := e.p.Accounts(e.ctx)
	if err != nil || len(accs) != 1 {
		t.Fatalf("accounts: %v %+v", err, accs)
	}
	if a := accs[0]; a.ID != e.seat.ID || a.Status != outreach.AccountOK || !a.SalesNav || a.Name != "Sam Seller" {
		t.Errorf("account %+v", a)
	}
	if _, err := e.p.ConnectAccount(e.ctx, e.orgID, "Someone"); !errors.Is(err, outreach.ErrUnknownAccount) {
		t.Errorf("connect by name: %v, want ErrUnknownAccount", err)
	}
	if _, err := e.p.SendInvite(e.ctx, e.seat.ID, outreach.ProfileRef{ProviderID: e.bob.ProviderID}, ""); err != nil {
		t.Fatal(err)
	}
	h, err := e.p.AccountHealth(e.ctx, e.seat.ID)
	if err != nil || h.Status != outreach.AccountOK || h.PendingInvites != 1 || !h.SalesNav {
		t.Errorf("health: %v %+v", err, h)
	}
	if err := e.fake.Disconnect(e.seat.ID); err != nil {
		t.Fatal(err)
	}
	if h, err := e.p.AccountHealth(e.ctx, e.seat.ID); err != nil || h.Status != outreach.AccountDisconnected {
		t.Errorf("health of a disconnected seat: %v %+v", err, h)
	}
	if _, err := e.p.AccountHealth(e.ctx, "nope"); !errors.Is(err, outreach.ErrUnknownAccount) {
		t.Errorf("health of an unknown account: %v", err)
	}
	if reps, err := e.p.Poll(e.ctx, 0, 10); err != nil || len(reps) != 0 {
		t.Errorf("poll: %v %v; Unipile's news comes by webhook and sync", reps, err)
	}
}

func TestProviderLookUpProfile(t *testing.T) {
	e := newProviderEnv(t)
	e.fake.AddCompany(unipilefake.Company{ID: "77", PublicIdentifier: "analytical", Name: "Analytical Ltd",
		Website: "https://analytical.example", Industry: "Computing", EmployeeCount: 120})
	m, err := e.p.LookUpProfile(e.ctx, e.seat.ID, outreach.ProfileRef{ProfileKey: "in:ada-lovelace"})
	if err != nil {
		t.Fatal(err)
	}
	if m.ProviderID != e.ada.ProviderID || m.Name != "Ada Lovelace" || m.Headline != "Analyst" || m.Company != "Analytical Ltd" {
		t.Errorf("profile %+v", m)
	}
	p := m.Person
	for name, got := range map[string]*string{"role": p.Role, "company": p.Company, "location": p.Location,
		"industry": p.Industry, "size": p.CompanySize, "website": p.CompanyWebsite, "page": p.CompanyLinkedInURL} {
		if got == nil {
			t.Errorf("person block: %s unknown", name)
		}
	}
	if *p.Role != "Head of Engines" || *p.CompanySize != "120" || *p.Industry != "Computing" ||
		*p.CompanyLinkedInURL != "https://www.linkedin.com/company/analytical/" {
		t.Errorf("person block %+v", p)
	}
	if n := e.fake.Calls("GET", "/api/v1/users/{identifier}", "linkedin_sections", "experience"); n != 1 {
		t.Errorf("%d look-ups asked for the experience section, want 1", n)
	}
	if id, ok, err := e.inbox.MemberID(e.ctx, "ada-lovelace"); err != nil || !ok || id != e.ada.ProviderID {
		t.Errorf("the look-up taught %q %v %v", id, ok, err)
	}
	// A profile without a company page: the page's facts stay unknown.
	m, err = e.p.LookUpProfile(e.ctx, e.seat.ID, outreach.ProfileRef{ProviderID: e.bob.ProviderID})
	if err != nil || m.PublicIdentifier != "bob-babbage" || m.Person.Industry != nil || m.Person.Role != nil {
		t.Errorf("bob: %v %+v", err, m)
	}
	if _, err := e.p.LookUpProfile(e.ctx, e.seat.ID, outreach.ProfileRef{ProfileKey: "in:nobody-here"}); !errors.Is(err, outreach.ErrUnknownProfile) {
		t.Errorf("unknown profile: %v", err)
	}
	if _, err := e.p.LookUpProfile(e.ctx, e.seat.ID, outreach.ProfileRef{}); !errors.Is(err, outreach.ErrInvalidProfile) {
		t.Errorf("empty reference: %v", err)
	}
}

func TestProviderInvitations(t *testing.T) {
	e := newProviderEnv(t)
	ada := outreach.ProfileRef{ProfileKey: "in:ada-lovelace"}
	if _, err := e.p.SendInvite(e.ctx, e.seat.ID, ada, strings.Repeat("é", 301)); !errors.Is(err, outreach.ErrNoteTooLong) {
		t.Fatalf("long note: %v", err)
	}
	if n := e.fake.Calls("POST", "/api/v1/users/invite", "", ""); n != 0 {
		t.Fatalf("a refused note reached Unipile %d times", n)
	}
	id, err := e.p.SendInvite(e.ctx, e.seat.ID, ada, "Hello Ada")
	if err != nil || id == "" {
		t.Fatalf("invite: %q %v", id, err)
	}
	// The member id was learned by the look-up: the second call views no profile.
	views := e.fake.Calls("GET", "/api/v1/users/{identifier}", "", "")
	if _, err := e.p.SendInvite(e.ctx, e.seat.ID, ada, ""); !errors.Is(err, outreach.ErrAlreadyInvited) {
		t.Errorf("invite again: %v", err)
	}
	if got := e.fake.Calls("GET", "/api/v1/users/{identifier}", "", ""); got != views {
		t.Errorf("the second invitation viewed the profile again (%d views, want %d)", got, views)
	}
	if retry, _ := outreach.LinkedInRetryable(func() error {
		_, err := e.p.SendInvite(e.ctx, e.seat.ID, ada, "")
		return err
	}()); retry {
		t.Error("an invitation already pending is retryable")
	}
	rel, err := e.p.Relation(e.ctx, e.seat.ID, ada)
	if err != nil || rel.InvitationID != id || rel.Connected || rel.ChatID != "" {
		t.Errorf("relation while pending: %v %+v", err, rel)
	}
	if err := e.p.WithdrawInvite(e.ctx, e.seat.ID, "", ada); err != nil {
		t.Fatalf("withdraw by person: %v", err)
	}
	if err := e.p.WithdrawInvite(e.ctx, e.seat.ID, id, ada); !errors.Is(err, outreach.ErrNoPendingInvite) {
		t.Errorf("withdraw again: %v", err)
	}
	if err := e.p.WithdrawInvite(e.ctx, e.seat.ID, "", ada); !errors.Is(err, outreach.ErrNoPendingInvite) {
		t.Errorf("withdraw none: %v", err)
	}
	e.connected(t, e.bob)
	if _, err := e.p.SendInvite(e.ctx, e.seat.ID, outreach.ProfileRef{ProviderID: e.bob.ProviderID}, ""); !errors.Is(err, outreach.ErrAlreadyConnected) {
		t.Errorf("invite a connection: %v", err)
	}
	if n := e.fake.SentInvitations(e.seat.ID, e.ada.ProviderID); n != 1 {
		t.Errorf("Ada got %d invitations, want 1", n)
	}
}

func TestProviderMessages(t *testing.T) {
	e := newProviderEnv(t)
	if _, _, err := e.p.SendMessage(e.ctx, e.seat.ID, "in:bob-babbage", "Hi Bob"); !errors.Is(err, outreach.ErrNotConnected) {
		t.Fatalf("message a stranger: %v", err)
	}
	e.connected(t, e.bob)
	if _, _, err := e.p.SendMessage(e.ctx, e.seat.ID, "in:bob-babbage", "  "); !errors.Is(err, outreach.ErrEmptyMessage) {
		t.Errorf("empty message: %v", err)
	}
	chat, msg, err := e.p.SendMessage(e.ctx, e.seat.ID, "in:bob-babbage", "Hi Bob")
	if err != nil || chat == "" || msg == "" {
		t.Fatalf("first message: %q %q %v", chat, msg, err)
	}
	if n := e.fake.Calls("POST", "/api/v1/chats", "attendees_ids", e.bob.ProviderID); n != 2 { // refused, then sent
		t.Errorf("%d chats started with Bob's member id (multipart attendees_ids), want 2", n)
	}
	if _, err := e.fake.Reply(e.seat.ID, e.bob.ProviderID, "Hello there"); err != nil {
		t.Fatal(err)
	}
	if c2, _, err := e.p.SendMessage(e.ctx, e.seat.ID, chat, "How are you?"); err != nil || c2 != chat {
		t.Fatalf("into the chat: %q %v", c2, err)
	}
	msgs, err := e.p.Messages(e.ctx, chat)
	if err != nil || len(msgs) != 3 {
		t.Fatalf("messages: %v %+v", err, msgs)
	}
	if !msgs[0].FromMe || msgs[1].FromMe || msgs[1].Text != "Hello there" || msgs[1].SenderID != e.bob.ProviderID ||
		!msgs[2].FromMe || msgs[2].SenderID != e.seat.ID {
		t.Errorf("messages oldest first: %+v", msgs)
	}
	rel, err := e.p.Relation(e.ctx, e.seat.ID, outreach.ProfileRef{ProfileKey: "in:bob-babbage"})
	if err != nil || !rel.Connected || rel.ChatID != chat || rel.InvitationID != "" {
		t.Errorf("relation of a connection: %v %+v", err, rel)
	}
	if _, err := e.p.Messages(e.ctx, "no-such-chat"); !errors.Is(err, outreach.ErrUnknownChat) {
		t.Errorf("unknown chat: %v", err)
	}
	if n := e.fake.SentMessages(e.seat.ID, e.bob.ProviderID); n != 2 {
		t.Errorf("Bob got %d messages, want 2", n)
	}
	chats, err := e.p.ListChats(e.ctx, e.seat.ID, 10)
	if err != nil || len(chats) != 1 {
		t.Fatalf("inbox: %v %+v", err, chats)
	}
	if c := chats[0]; c.ID != chat || c.AttendeeName != "Bob Babbage" || c.AttendeeProviderID != e.bob.ProviderID ||
		c.LastMessage == nil || c.LastMessage.Text != "How are you?" || !c.LastMessage.FromMe || c.UnreadCount != 0 {
		t.Errorf("inbox chat %+v (last %+v)", c, c.LastMessage)
	}
}
