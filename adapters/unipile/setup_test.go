package unipile_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"outreachd/adapters/unipile"
	"outreachd/adapters/unipile/unipilefake"
)

const testKey = "test-key"

// env is a fake Unipile with one seat and two people, and a client pointed at it.
type env struct {
	fake     *unipilefake.Fake
	c        *unipile.Client
	seat     unipilefake.Seat
	ada, bob unipilefake.Person
	ctx      context.Context
	clock    *clock
}

// clock is the fake's clock, moved by the test.
type clock struct {
	mu sync.Mutex
	at time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *clock) advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(d)
	return c.at
}

func newEnv(t *testing.T) *env {
	t.Helper()
	clock := &clock{at: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	fake, err := unipilefake.New(unipilefake.Config{APIKey: testKey, Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	c, err := unipile.NewClient(unipile.Config{DSN: fake.URL(), APIKey: testKey, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	seat, err := fake.AddSeat(unipilefake.Seat{
		Name:    "Sam Seller",
		Owner:   unipilefake.Person{FirstName: "Sam", LastName: "Seller", PublicIdentifier: "sam-seller"},
		Premium: true, SalesNavigator: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{fake: fake, c: c, seat: seat, ctx: context.Background(), clock: clock}
	e.ada = e.person(t, unipilefake.Person{
		FirstName: "Ada", LastName: "Lovelace", PublicIdentifier: "ada-lovelace", Headline: "Analyst",
		Location: "London", Position: "Head of Engines", Company: "Analytical Ltd", CompanyID: "77",
	})
	e.bob = e.person(t, unipilefake.Person{FirstName: "Bob", LastName: "Babbage", PublicIdentifier: "bob-babbage"})
	return e
}

func (e *env) person(t *testing.T, p unipilefake.Person) unipilefake.Person {
	t.Helper()
	p, err := e.fake.AddPerson(p)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// receiver starts a webhook receiver answering statuses in turn, then 200.
func (e *env) receiver(t *testing.T, statuses ...int) *unipilefake.Receiver {
	t.Helper()
	rc := unipilefake.NewReceiver(statuses...)
	t.Cleanup(rc.Close)
	return rc
}

// connected makes p a relation of the seat through an accepted invitation without a note.
func (e *env) connected(t *testing.T, p unipilefake.Person) {
	t.Helper()
	if _, err := e.c.Invite(e.ctx, e.seat.ID, p.ProviderID, ""); err != nil {
		t.Fatal(err)
	}
	if err := e.fake.AcceptInvitation(e.seat.ID, p.ProviderID, unipilefake.AcceptOptions{}); err != nil {
		t.Fatal(err)
	}
}

func mustClass(t *testing.T, err error, want unipile.Class) {
	t.Helper()
	if got := unipile.ClassOf(err); got != want {
		t.Fatalf("class of %v = %q, want %q", err, got, want)
	}
	if !errors.Is(err, want) {
		t.Fatalf("errors.Is(%v, %q) is false", err, want)
	}
}
