package webapp_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"outreachd/engine"
	"outreachd/outreach"
	"outreachd/storage"
	"outreachd/webapp"
)

// instantSeats connects seats at once, as the LinkedIn simulator does: a seat's provider id
// follows from its organization and name.
type instantSeats struct{ st *storage.Store }

func (s instantSeats) Connect(ctx context.Context, orgID, name string) (storage.LinkedInAccount, error) {
	return engine.ConnectSeat(ctx, s.st.Pool(), orgID, name, "sim-"+orgID+"-"+name)
}

func (s instantSeats) Reconnect(ctx context.Context, seat storage.LinkedInAccount) (storage.LinkedInAccount, error) {
	return engine.ConnectSeat(ctx, s.st.Pool(), seat.OrgID, seat.Name, seat.ProviderAccountID)
}

// engineMonday is the engine's clock in these tests: a Monday noon, wall clock elsewhere.
var engineMonday = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func newSeatsEnv(t *testing.T, set func(e *env, d *webapp.Deps)) *env {
	t.Helper()
	return newEnvDeps(t, webapp.Config{}, func(e *env, d *webapp.Deps) {
		d.DomainNow = func() time.Time { return engineMonday }
		set(e, d)
	})
}

// seatRow reads a seat as `admin account list` does.
func (e *env) seatRow(orgID, id string) engine.SeatRow {
	e.t.Helper()
	rows, err := engine.SeatRows(context.Background(), e.store.Pool(), orgID, engineMonday)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, r := range rows {
		if r.AccountID == id {
			return r
		}
	}
	e.t.Fatalf("no seat %s in org %s", id, orgID)
	return engine.SeatRow{}
}

// act records LinkedIn actions of a seat at engine time at, as the engine does before a call.
func (e *env) act(orgID, seatID, kind string, n int, at time.Time) {
	e.t.Helper()
	for range n {
		if _, err := e.store.Pool().Exec(context.Background(), `INSERT INTO linkedin_actions (id, org_id, account_id, kind, state, started_at, lease_until)
			VALUES ($1, $2, $3, $4, 'done', $5, now())`, outreach.NewID("lac"), orgID, seatID, kind, at); err != nil {
			e.t.Fatal(err)
		}
	}
}

var seatInURL = regexp.MustCompile(`seat=(acc_[0-9a-z]+)`)

func TestLinkedInAccountsPage(t *testing.T) {
	t.Parallel()
	e := newSeatsEnv(t, func(e *env, d *webapp.Deps) { d.Seats = instantSeats{st: e.store} })
	orgID, userID := e.org("ops@acme.test", "correct horse battery")
	c := e.client()
	c.mustLogin("ops@acme.test", "correct horse battery")

	p := c.get("/app/linkedin-accounts")
	if p.Status != http.StatusOK || !strings.Contains(p.Body, ">Connect LinkedIn account</button>") ||
		!strings.Contains(p.Body, "No LinkedIn account is connected yet") || !strings.Contains(p.Body, "connected at once") {
		t.Fatalf("empty page: %d %s", p.Status, p.Body)
	}
	for _, bad := range []string{"", "   ", strings.Repeat("x", 201), "two\nlines"} {
		p := c.post("/app/linkedin-accounts/connect", url.Values{"name": {bad}})
		if p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "A seat&#39;s name must be 1 to 200 characters on one line.") {
			t.Fatalf("name %q: %d %s", bad, p.Status, p.Body)
		}
	}

	// Connected at once; the name is the seat's, shown as text.
	p = c.post("/app/linkedin-accounts/connect", url.Values{"name": {" Sam <b>Seller</b> "}})
	m := seatInURL.FindStringSubmatch(p.Header.Get("Location"))
	if p.Status != http.StatusSeeOther || m == nil || !strings.Contains(p.Header.Get("Location"), "done=connected") {
		t.Fatalf("connect: %d %v", p.Status, p.Header)
	}
	seat := m[1]
	p = c.get(p.Header.Get("Location"))
	for _, want := range []string{"Sam &lt;b&gt;Seller&lt;/b&gt; is connected", "Connected: its campaigns send from it.",
		"Today counts from midnight to midnight in UTC", "it is Mon 23 Nov 12:00 there now", ">0 / 25<", ">Disconnect</button>"} {
		if !strings.Contains(strings.ReplaceAll(p.Body, "</td>\n      <td class=\"num\">", " / "), want) {
			t.Errorf("the list lacks %q:\n%s", want, p.Body)
		}
	}
	if strings.Contains(p.Body, "<b>Seller") {
		t.Fatal("the seat's name is rendered as HTML")
	}
	if p := c.post("/app/linkedin-accounts/connect", url.Values{"name": {"Sam <b>Seller</b>"}}); !strings.Contains(p.Header.Get("Location"), "done=already") {
		t.Fatalf("connecting the same name again: %d %v", p.Status, p.Header)
	}

	// Today's use against the caps: three invitations today, one yesterday; a cap reached.
	e.act(orgID, seat, "invite", 3, engineMonday.Add(-time.Hour))
	e.act(orgID, seat, "invite", 1, engineMonday.Add(-20*time.Hour))
	e.act(orgID, seat, "profile_view", 2, engineMonday.Add(-time.Minute))
	e.act(orgID, seat, "message", 5, engineMonday.Add(-2*time.Hour))
	if p := c.post("/app/linkedin-accounts/"+seat+"/limits", url.Values{"invites_per_day": {"3"}, "invites_per_week": {"100"},
		"messages_per_day": {"100"}, "profile_views_per_day": {"80"}, "max_pending": {""}}); p.Status != http.StatusSeeOther ||
		!strings.Contains(p.Header.Get("Location"), "done=limits") {
		t.Fatalf("limits: %d %s", p.Status, p.Body)
	}
	row := e.seatRow(orgID, seat)
	if row.Limits.InvitesPerDay != 3 || row.Limits.MaxPending != 500 || row.Used.InvitesToday != 3 || row.Used.InvitesThisWeek != 4 ||
		row.Used.ProfileViewsToday != 2 || row.Used.MessagesToday != 5 {
		t.Fatalf("seat row: %+v", row)
	}
	p = c.get("/app/linkedin-accounts/" + seat)
	for _, want := range []string{"reached: no more until midnight UTC", "Default 25.", "The weekly count is the one LinkedIn restricts on",
		`name="invites_per_day" value="3"`, `name="max_pending" value="500"`, "96 left"} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the seat's page lacks %q", want)
		}
	}

	// Refused values are said next to their fields in the engine's words; nothing is saved.
	p = c.post("/app/linkedin-accounts/"+seat+"/limits", url.Values{"invites_per_day": {"20"}, "invites_per_week": {"-1"},
		"messages_per_day": {"many"}, "profile_views_per_day": {"80"}, "max_pending": {"500"}})
	for _, want := range []string{`id="lim-invites_per_week-err" class="field-error">Invites per week must be between 0 and 100000, got -1.<`,
		`id="lim-messages_per_day-err" class="field-error">Messages per day must be a whole number.<`, `name="messages_per_day" value="many"`} {
		if p.Status != http.StatusBadRequest || !strings.Contains(p.Body, want) {
			t.Errorf("refused limits: %d, lacks %q", p.Status, want)
		}
	}
	if got := e.seatRow(orgID, seat).Limits.InvitesPerDay; got != 3 {
		t.Fatalf("a refused form saved invitations per day = %d", got)
	}

	// Disconnect is confirmed, naming the seat and its campaigns; recorded as the person's.
	camp, err := e.store.CreateCampaign(context.Background(), orgID, storage.NewCampaign{Name: "Founders <i>Dublin</i>", DailyLimit: 20,
		OutreachType: outreach.OutreachOutbound, Schedule: outreach.DefaultSchedule(), AccountIDs: []string{seat}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.SetCampaignStatus(context.Background(), camp.ID, outreach.CampaignActive); err != nil {
		t.Fatal(err)
	}
	// A campaign that lists the seat second, beside a connected seat, goes on through that one.
	ria, err := engine.ConnectSeat(context.Background(), e.store.Pool(), orgID, "Ria Rahman", "pa_ria_"+orgID)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := e.store.CreateCampaign(context.Background(), orgID, storage.NewCampaign{Name: "Pair", DailyLimit: 20,
		OutreachType: outreach.OutreachOutbound, Schedule: outreach.DefaultSchedule(), AccountIDs: []string{ria.ID, seat}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.SetCampaignStatus(context.Background(), pair.ID, outreach.CampaignActive); err != nil {
		t.Fatal(err)
	}
	p = c.post("/app/linkedin-accounts/"+seat+"/disconnect", url.Values{})
	for _, want := range []string{"Disconnect Sam &lt;b&gt;Seller&lt;/b&gt;?", "Campaigns that send from it: “Founders &lt;i&gt;Dublin&lt;/i&gt;”",
		"continue where they stopped once the seat is reconnected", `name="confirm" value="yes"`,
		"Campaigns that send from it and other seats: “Pair”. Their new people go through their other connected seats"} {
		if p.Status != http.StatusOK || !strings.Contains(p.Body, want) {
			t.Errorf("disconnect confirmation: %d, lacks %q", p.Status, want)
		}
	}
	if got := e.seatRow(orgID, seat).Status; got != "connected" {
		t.Fatalf("disconnected before the confirmation: %s", got)
	}
	if p := c.post("/app/linkedin-accounts/"+seat+"/disconnect", url.Values{"confirm": {"yes"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("disconnect: %d %s", p.Status, p.Body)
	}
	if row := e.seatRow(orgID, seat); row.Status != "disconnected" || row.DisconnectedBy == nil || *row.DisconnectedBy != "user:"+userID {
		t.Fatalf("disconnected seat: %+v", row)
	}
	p = c.get("/app/linkedin-accounts")
	if !strings.Contains(p.Body, "by ops@acme.test: outreachd sends nothing from it") || !strings.Contains(p.Body, ">Reconnect</button>") {
		t.Fatalf("the list after the disconnect: %s", p.Body)
	}
	if p := c.post("/app/linkedin-accounts/"+seat+"/reconnect", url.Values{}); p.Status != http.StatusSeeOther ||
		e.seatRow(orgID, seat).Status != "connected" {
		t.Fatalf("reconnect: %d %s", p.Status, p.Body)
	}
	if p := c.post("/app/linkedin-accounts/"+seat+"/reconnect", url.Values{}); p.Status != http.StatusConflict {
		t.Fatalf("reconnecting a connected seat: %d", p.Status)
	}
	if e.errs.Load() != 0 {
		t.Fatalf("%d errors logged", e.errs.Load())
	}
}

// TestLinkedInAccountsIsolation: another organization's seat, on every address of the pages,
// answers 404 and changes nothing; nor does a cross-site form.
func TestLinkedInAccountsIsolation(t *testing.T) {
	t.Parallel()
	e := newSeatsEnv(t, func(e *env, d *webapp.Deps) { d.Seats = instantSeats{st: e.store} })
	orgA, _ := e.org("a@acme.test", "correct horse battery")
	e.org("b@other.test", "correct horse battery")
	seat := e.seat(orgA, "Sam Seller")
	b := e.client()
	b.mustLogin("b@other.test", "correct horse battery")
	if p := b.get("/app/linkedin-accounts"); p.Status != http.StatusOK || strings.Contains(p.Body, "Sam Seller") || strings.Contains(p.Body, seat) {
		t.Fatalf("another organization's list shows the seat: %s", p.Body)
	}
	limits := url.Values{"invites_per_day": {"1"}, "invites_per_week": {"1"}, "messages_per_day": {"1"}, "profile_views_per_day": {"1"}, "max_pending": {"1"}}
	for _, id := range []string{seat, "acc_nope", "acc_" + strings.Repeat("z", 26)} {
		for _, r := range []struct {
			method, path string
			form         url.Values
		}{
			{http.MethodGet, "/app/linkedin-accounts/" + id, nil},
			{http.MethodPost, "/app/linkedin-accounts/" + id + "/limits", limits},
			{http.MethodPost, "/app/linkedin-accounts/" + id + "/disconnect", url.Values{"confirm": {"yes"}}},
			{http.MethodPost, "/app/linkedin-accounts/" + id + "/disconnect", url.Values{}},
			{http.MethodPost, "/app/linkedin-accounts/" + id + "/reconnect", url.Values{}},
		} {
			if p := b.do(r.method, r.path, r.form); p.Status != http.StatusNotFound || strings.Contains(p.Body, "Sam Seller") {
				t.Errorf("%s %s as another organization: %d", r.method, r.path, p.Status)
			}
		}
	}
	a := e.client()
	a.mustLogin("a@acme.test", "correct horse battery")
	for _, h := range [][]string{{"Sec-Fetch-Site", "cross-site"}, {"Origin", "https://evil.example"}} {
		for _, path := range []string{"/limits", "/disconnect"} {
			form := limits
			if path == "/disconnect" {
				form = url.Values{"confirm": {"yes"}}
			}
			if p := a.do(http.MethodPost, "/app/linkedin-accounts/"+seat+path, form, h...); p.Status != http.StatusForbidden {
				t.Errorf("cross-site %s (%s): %d", path, h[0], p.Status)
			}
		}
		if p := a.do(http.MethodPost, "/app/linkedin-accounts/connect", url.Values{"name": {"Eve"}}, h...); p.Status != http.StatusForbidden {
			t.Errorf("cross-site connect (%s): %d", h[0], p.Status)
		}
	}
	if row := e.seatRow(orgA, seat); row.Status != "connected" || row.Limits != engine.DefaultSeatLimits() {
		t.Fatalf("the seat changed: %+v", row)
	}
	if rows, _ := engine.SeatRows(context.Background(), e.store.Pool(), orgA, engineMonday); len(rows) != 1 {
		t.Fatalf("%d seats after a cross-site connect", len(rows))
	}
}

// TestLinkedInAccountsWithoutProvider: a process that cannot connect seats says so.
func TestLinkedInAccountsWithoutProvider(t *testing.T) {
	t.Parallel()
	e := newSeatsEnv(t, func(*env, *webapp.Deps) {})
	e.org("ops@acme.test", "correct horse battery")
	c := e.client()
	c.mustLogin("ops@acme.test", "correct horse battery")
	if p := c.get("/app/linkedin-accounts"); !strings.Contains(p.Body, "cannot be connected in this process") {
		t.Fatalf("page: %s", p.Body)
	}
	if p := c.post("/app/linkedin-accounts/connect", url.Values{"name": {"Sam"}}); p.Status != http.StatusServiceUnavailable {
		t.Fatalf("connect: %d", p.Status)
	}
}
