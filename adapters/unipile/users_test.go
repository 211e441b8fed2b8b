package unipile_test

import (
	"testing"

	"outreachd/adapters/unipile"
	"outreachd/adapters/unipile/unipilefake"
)

func TestGetProfile(t *testing.T) {
	e := newEnv(t)
	for _, identifier := range []string{"ada-lovelace", "ADA-Lovelace", e.ada.ProviderID} {
		p, err := e.c.GetProfile(e.ctx, e.seat.ID, identifier, unipile.ProfileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.ProviderID != e.ada.ProviderID || p.PublicIdentifier != "ada-lovelace" || p.FirstName != "Ada" ||
			p.LastName != "Lovelace" || p.Headline != "Analyst" || p.Location != "London" {
			t.Fatalf("profile by %q = %+v", identifier, p)
		}
		if p.NetworkDistance != unipile.DistanceSecond || p.IsRelationship || p.Invitation != nil || len(p.WorkExperience) != 0 {
			t.Fatalf("profile of a stranger without sections = %+v", p)
		}
	}

	// With the experience section, the current position; with a pending invitation, its state.
	if _, err := e.c.Invite(e.ctx, e.seat.ID, e.ada.ProviderID, ""); err != nil {
		t.Fatal(err)
	}
	p, err := e.c.GetProfile(e.ctx, e.seat.ID, "ada-lovelace", unipile.ProfileOptions{Sections: []string{"experience", "about"}})
	if err != nil {
		t.Fatal(err)
	}
	if q := e.fake.Requests()[len(e.fake.Requests())-1].Query; q.Get("linkedin_sections") != "experience,about" || q.Get("account_id") != e.seat.ID {
		t.Fatalf("query = %v", q)
	}
	pos, ok := p.CurrentPosition()
	if !ok || pos.Position != "Head of Engines" || pos.Company != "Analytical Ltd" || pos.CompanyID != "77" || !pos.Current {
		t.Fatalf("position = %+v (%v)", pos, ok)
	}
	if p.Invitation == nil || p.Invitation.Type != "SENT" || p.Invitation.Status != "PENDING" {
		t.Fatalf("invitation = %+v", p.Invitation)
	}
	if err := e.fake.AcceptInvitation(e.seat.ID, e.ada.ProviderID, unipilefake.AcceptOptions{}); err != nil {
		t.Fatal(err)
	}
	p, err = e.c.GetProfile(e.ctx, e.seat.ID, e.ada.ProviderID, unipile.ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.NetworkDistance != unipile.DistanceFirst || !p.IsRelationship || p.Invitation != nil {
		t.Fatalf("profile of a relation = %+v", p)
	}

	_, err = e.c.GetProfile(e.ctx, e.seat.ID, "nobody-here", unipile.ProfileOptions{})
	mustClass(t, err, unipile.ClassNotFound)
	before := len(e.fake.Requests())
	_, err = e.c.GetProfile(e.ctx, e.seat.ID, " ", unipile.ProfileOptions{})
	mustClass(t, err, unipile.ClassRejected)
	if len(e.fake.Requests()) != before {
		t.Fatal("an empty identifier was sent")
	}
	// An identifier with a slash stays one path segment.
	_, err = e.c.GetProfile(e.ctx, e.seat.ID, "a/b", unipile.ProfileOptions{})
	mustClass(t, err, unipile.ClassNotFound)
	if got := e.fake.Requests()[len(e.fake.Requests())-1].Pattern; got != "/api/v1/users/{identifier}" {
		t.Fatalf("a/b was routed to %q", got)
	}
}

func TestOwnProfileAndCompany(t *testing.T) {
	e := newEnv(t)
	me, err := e.c.GetOwnProfile(e.ctx, e.seat.ID)
	if err != nil {
		t.Fatal(err)
	}
	if me.ProviderID != e.seat.Owner.ProviderID || me.FirstName != "Sam" || !me.Premium || me.SalesNavigator == nil || me.SalesNavigator.ContractID == "" {
		t.Fatalf("own profile = %+v", me)
	}

	co := e.fake.AddCompany(unipilefake.Company{
		PublicIdentifier: "analytical", Name: "Analytical Ltd", Website: "https://analytical.example",
		Industry: "Machinery", EmployeeCount: 42, Country: "GB", City: "London",
	})
	for _, id := range []string{"analytical", co.ID} {
		got, err := e.c.GetCompany(e.ctx, e.seat.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		hq, ok := got.Headquarters()
		if got.ID != co.ID || got.Name != "Analytical Ltd" || got.EmployeeCount != 42 || got.Website != "https://analytical.example" ||
			len(got.Industry) != 1 || !ok || hq.City != "London" || hq.Country != "GB" {
			t.Fatalf("company by %q = %+v", id, got)
		}
	}
	_, err = e.c.GetCompany(e.ctx, e.seat.ID, "no-such-company")
	mustClass(t, err, unipile.ClassNotFound)
}
