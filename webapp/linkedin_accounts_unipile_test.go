package webapp_test

import (
	"encoding/json"
	"errors"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"outreachd/adapters/unipile"
	"outreachd/adapters/unipile/unipilefake"
	"outreachd/engine"
	"outreachd/outreach"
	"outreachd/webapp"
)

// unipileSeats is Unipile's seat connection against its fake, with the sign-in call-back served
// as serve serves it (POST /api/providers/unipile/accounts, on a server of its own here).
type unipileSeats struct {
	fake  *unipilefake.Fake
	seats *unipile.Seats
}

func newUnipileSeats(t *testing.T, e *env) *unipileSeats {
	t.Helper()
	const key = "test-key"
	fake, err := unipilefake.New(unipilefake.Config{APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	client, err := unipile.NewClient(unipile.Config{DSN: fake.URL(), APIKey: key, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	inbox, err := engine.NewProviderInbox(e.store, "unipile")
	if err != nil {
		t.Fatal(err)
	}
	callbacks := httptest.NewUnstartedServer(nil)
	public := "http://" + callbacks.Listener.Addr().String()
	seats, err := unipile.NewSeats(client, inbox, unipile.SeatsConfig{PublicURL: public, ReturnURL: public + "/app/linkedin-accounts"})
	if err != nil {
		t.Fatal(err)
	}
	rs := unipile.Responder{
		JSON: func(w http.ResponseWriter, status int, v any) {
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(v)
		},
		Fail: func(w http.ResponseWriter, _ *http.Request, err error) {
			status := http.StatusInternalServerError
			if errors.Is(err, outreach.ErrUnauthenticated) {
				status = http.StatusUnauthorized
			}
			http.Error(w, err.Error(), status)
		},
	}
	mux := http.NewServeMux()
	mux.Handle("POST "+unipile.CallbackPath, seats.CallbackHandler(rs))
	callbacks.Config.Handler = mux
	callbacks.Start()
	t.Cleanup(callbacks.Close)
	return &unipileSeats{fake: fake, seats: seats}
}

var refreshTo = regexp.MustCompile(`<meta http-equiv="refresh" content="0; url=([^"]+)">`)

// signInLink is where the page that answers Connect or Reconnect sends the person.
func signInLink(t *testing.T, p page) string {
	t.Helper()
	m := refreshTo.FindStringSubmatch(p.Body)
	if p.Status != http.StatusOK || m == nil {
		t.Fatalf("no sign-in page: %d %s", p.Status, p.Body)
	}
	link := html.UnescapeString(m[1])
	if !strings.Contains(p.Body, `href="`+m[1]+`"`) || !strings.Contains(p.Body, "Continue to LinkedIn sign-in") {
		t.Fatalf("the sign-in page offers no link to %s: %s", link, p.Body)
	}
	return link
}

// TestLinkedInAccountsUnipile: with Unipile, Connect LinkedIn account sends the person to the
// hosted sign-in link outreachd made, and the seat appears once Unipile calls back; Reconnect
// of a seat a person disconnected is at once while Unipile says its account works, and through
// a reconnect link once LinkedIn ended its session. In Chromium, the button lands on the hosted
// page (the pages' policy lets a form lead only to this origin, so a page of ours goes there).
func TestLinkedInAccountsUnipile(t *testing.T) {
	t.Parallel()
	var u *unipileSeats
	e := newSeatsEnv(t, func(e *env, d *webapp.Deps) {
		u = newUnipileSeats(t, e)
		d.SeatLinks = u.seats
	})
	orgID, _ := e.org("ops@acme.test", "correct horse battery")
	c := e.client()
	c.mustLogin("ops@acme.test", "correct horse battery")
	if p := c.get("/app/linkedin-accounts"); !strings.Contains(p.Body, "the account's owner signs in") {
		t.Fatalf("the form does not say how a seat connects: %s", p.Body)
	}

	link := signInLink(t, c.post("/app/linkedin-accounts/connect", url.Values{"name": {"Nora North"}}))
	if !strings.HasPrefix(link, u.fake.URL()+"/hosted/") {
		t.Fatalf("sent to %s, not the fake's hosted page", link)
	}
	if p := c.get("/app/linkedin-accounts"); strings.Contains(p.Body, "Nora North") {
		t.Fatal("the seat is listed before the person signed in")
	}
	accountID, err := u.fake.CompleteHostedAuth(link, unipilefake.Seat{Name: "Nora", Owner: unipilefake.Person{FirstName: "Nora"}})
	if err != nil {
		t.Fatal(err)
	}
	u.fake.WaitWebhooks()
	rows, err := engine.SeatRows(t.Context(), e.store.Pool(), orgID, engineMonday)
	if err != nil || len(rows) != 1 || rows[0].ProviderAccountID != accountID {
		t.Fatalf("seats after the call-back: %+v, %v", rows, err)
	}
	seat := rows[0].AccountID
	if p := c.get("/app/linkedin-accounts"); !strings.Contains(p.Body, "Nora North") || !strings.Contains(p.Body, "Connected: its campaigns send from it.") {
		t.Fatalf("the seat is not on the page: %s", p.Body)
	}

	// Disconnected by a person; Unipile's account works, so Reconnect needs no sign-in.
	if p := c.post("/app/linkedin-accounts/"+seat+"/disconnect", url.Values{"confirm": {"yes"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("disconnect: %d", p.Status)
	}
	links := u.fake.Calls(http.MethodPost, "/api/v1/hosted/accounts/link", "", "")
	if p := c.post("/app/linkedin-accounts/"+seat+"/reconnect", url.Values{}); p.Status != http.StatusSeeOther ||
		!strings.Contains(p.Header.Get("Location"), "done=reconnected") || e.seatRow(orgID, seat).Status != "connected" {
		t.Fatalf("reconnect of a working account: %d %v", p.Status, p.Header)
	}
	if n := u.fake.Calls(http.MethodPost, "/api/v1/hosted/accounts/link", "", ""); n != links {
		t.Fatalf("%d links made to reconnect a working account", n-links)
	}

	// LinkedIn ended the session: Reconnect sends the owner to a reconnect link for the account.
	if p := c.post("/app/linkedin-accounts/"+seat+"/disconnect", url.Values{"confirm": {"yes"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("disconnect: %d", p.Status)
	}
	if err := u.fake.Disconnect(accountID); err != nil {
		t.Fatal(err)
	}
	link = signInLink(t, c.post("/app/linkedin-accounts/"+seat+"/reconnect", url.Values{}))
	if n := u.fake.Calls(http.MethodPost, "/api/v1/hosted/accounts/link", "reconnect_account", accountID); n != 1 {
		t.Fatalf("%d reconnect links for the account", n)
	}
	if _, err := u.fake.CompleteHostedAuth(link, unipilefake.Seat{}); err != nil {
		t.Fatal(err)
	}
	u.fake.WaitWebhooks()
	if row := e.seatRow(orgID, seat); row.Status != "connected" || row.DisconnectedBy != nil {
		t.Fatalf("after the reconnect link: %+v", row)
	}
	if e.errs.Load() != 0 {
		t.Fatalf("%d errors logged", e.errs.Load())
	}

	if testing.Short() {
		return
	}
	b := newBrowser(t, e.srv.URL)
	b.signIn("ops@acme.test")
	b.open("/app/linkedin-accounts")
	b.fill("Seat name", "Omar Okafor")
	b.click(button("Connect LinkedIn account"))
	b.waitText("Unipile hosted sign-in (fake)")
	if loc := b.location(); !strings.HasPrefix(loc, u.fake.URL()+"/hosted/") {
		t.Fatalf("the browser is at %s", loc)
	}
}
