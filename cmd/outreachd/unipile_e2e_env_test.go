package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"outreachd/adapters/unipile/unipilefake"
	"outreachd/internal/testenv"
	"outreachd/storage"
)

// What the end-to-end tests of the Unipile provider share: a fake Unipile with one seat, the
// built binary serving against it, a receiver of the service's events, and the calls that make
// and drive a campaign through the API.

const (
	e2eAPIKey = "e2e-key"
	e2eSecret = "e2e-webhook-secret-0123456789"
	// e2eWebhookPath is where Unipile's webhooks reach the service.
	e2eWebhookPath = "/api/providers/unipile/webhook"
)

// unipileRun is the built binary serving with LINKEDIN_PROVIDER=unipile against a fake Unipile.
type unipileRun struct {
	t    *testing.T
	fake *unipilefake.Fake
	srv  *testenv.Server
	env  []string // the provider's settings, for the admin CLI
	seat unipilefake.Seat
	db   *storage.Store // the test's own connections to the service's database
}

// newUnipileFake starts a fake Unipile holding one seat, Sam Seller's.
func newUnipileFake(t *testing.T) (*unipilefake.Fake, unipilefake.Seat) {
	t.Helper()
	fake, err := unipilefake.New(unipilefake.Config{APIKey: e2eAPIKey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	seat, err := fake.AddSeat(unipilefake.Seat{Name: "Sam Seller",
		Owner: unipilefake.Person{FirstName: "Sam", LastName: "Seller", PublicIdentifier: "sam-seller"}})
	if err != nil {
		t.Fatal(err)
	}
	return fake, seat
}

// unipileEnv is the environment of a process on the Unipile at dsn; extra overrides it.
func unipileEnv(dsn string, extra ...string) []string {
	return append([]string{"LINKEDIN_PROVIDER=unipile", "UNIPILE_DSN=" + dsn, "UNIPILE_API_KEY=" + e2eAPIKey,
		"UNIPILE_WEBHOOK_SECRET=" + e2eSecret, "LINKEDIN_ACTION_SPACING=0"}, extra...)
}

// startUnipile serves on a fresh database against a new fake, with extra environment, and waits
// until the service registered its three webhooks.
func startUnipile(t *testing.T, extra ...string) *unipileRun {
	t.Helper()
	fake, seat := newUnipileFake(t)
	u := &unipileRun{t: t, fake: fake, seat: seat, env: unipileEnv(fake.URL())}
	env := append([]string{"RATE_LIMIT_PER_MINUTE=100000", "INBOX_RATE_LIMIT_PER_MINUTE=100000", "LOG_LEVEL=info"}, u.env...)
	u.srv = testenv.StartServer(t, testenv.DatabaseURL(t), append(env, extra...)...)
	u.db, _ = testenv.OpenStores(t, u.srv.DBURL, 2)
	waitWebhooksRegistered(t, fake, u.srv.URL)
	return u
}

// waitWebhooksRegistered waits until the fake holds the service's three webhooks at base.
func waitWebhooksRegistered(t *testing.T, fake *unipilefake.Fake, base string) {
	t.Helper()
	testenv.EventuallyTrue(t, 20*time.Second, "the three webhooks registered", func() bool {
		return fake.Calls(http.MethodPost, "/api/v1/webhooks", "request_url", base+e2eWebhookPath) == 3
	})
}

// admin runs the CLI with the same provider settings as the server.
func (u *unipileRun) admin(args ...string) (map[string]any, int, string) {
	u.t.Helper()
	out, errOut, code := testenv.AdminRawEnv(u.t, u.srv.DBURL, u.env, args...)
	var m map[string]any
	if code == 0 {
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			u.t.Fatalf("admin %v: %q", args, out)
		}
	}
	return m, code, errOut
}

// mustAdmin is admin for a command that must succeed.
func (u *unipileRun) mustAdmin(args ...string) map[string]any {
	u.t.Helper()
	m, code, errOut := u.admin(args...)
	if code != 0 {
		u.t.Fatalf("admin %v: exit %d: %s", args, code, errOut)
	}
	return m
}

// orgWithSeat makes an organization and binds the fake's seat to it; it returns our seat id.
func (u *unipileRun) orgWithSeat() (testenv.Org, string) {
	u.t.Helper()
	org := testenv.NewOrg(u.t, u.srv, "--rate-limit-per-minute", "100000")
	acc := u.mustAdmin("account", "connect", "--org", org.ID, "--name", u.seat.Name, "--provider-account-id", u.seat.ID)
	return org, acc["account_id"].(string)
}

// seatRow is the seat's row in `admin account list`.
func (u *unipileRun) seatRow(orgID string) map[string]any {
	u.t.Helper()
	for _, row := range u.mustAdmin("account", "list", "--org", orgID)["data"].([]any) {
		if m := row.(map[string]any); m["provider_account_id"] == u.seat.ID {
			return m
		}
	}
	u.t.Fatalf("the seat %s is not in the account list of %s", u.seat.ID, orgID)
	return nil
}

// people adds n members named prefix-00… to the fake's network.
func people(t *testing.T, fake *unipilefake.Fake, prefix string, n int) []unipilefake.Person {
	t.Helper()
	out := make([]unipilefake.Person, n)
	for i := range out {
		p, err := fake.AddPerson(unipilefake.Person{FirstName: strings.ToUpper(prefix[:1]) + prefix[1:], LastName: fmt.Sprintf("N%02d", i),
			PublicIdentifier: fmt.Sprintf("%s-%02d", prefix, i), Headline: "Engineer", Company: "Example Ltd"})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = p
	}
	return out
}

// launchCampaign creates a campaign of an invitation and a first message sent as soon as the
// invitation is accepted, open all week all day, launches it and returns its id.
func launchCampaign(t *testing.T, org testenv.Org, dbURL, name string) string {
	t.Helper()
	r := org.Write.Do(t, "POST", "/api/v1/campaigns", map[string]any{"name": name, "daily_limit": 200,
		"schedule": map[string]any{"timezone": "UTC", "workingDays": []int{1, 2, 3, 4, 5, 6, 7}, "startTime": "00:00", "endTime": "23:59"},
		"sequence": []map[string]any{
			{"type": "connect", "text": "Hi {first_name}, I build engines too."},
			{"type": "message", "delay_days": 0, "text": "Thanks for connecting, {first_name}!"}}})
	if r.Status != 200 {
		t.Fatalf("create campaign: %d %s", r.Status, r.Body)
	}
	id := r.JSON["item"].(map[string]any)["id"].(string)
	testenv.Admin(t, dbURL, "campaign", "set-status", "--campaign", id, "--status", "active")
	return id
}

// pushPeople pushes members to a campaign by their profile address and returns their lead ids,
// in order.
func pushPeople(t *testing.T, org testenv.Org, campaignID string, ps []unipilefake.Person) []string {
	t.Helper()
	leads := make([]map[string]any, len(ps))
	for i, p := range ps {
		leads[i] = map[string]any{"linkedin_url": "https://www.linkedin.com/in/" + p.PublicIdentifier, "name": p.FirstName + " " + p.LastName}
	}
	r := org.Write.Do(t, "POST", "/api/v1/campaigns/"+campaignID+"/leads", map[string]any{"leads": leads})
	accepted, _ := r.JSON["accepted"].([]any)
	if r.Status != 202 || len(accepted) != len(ps) {
		t.Fatalf("push %d leads: %d %s", len(ps), r.Status, r.Body)
	}
	ids := make([]string, len(ps))
	for i, a := range accepted {
		ids[i] = a.(map[string]any)["lead_id"].(string)
	}
	return ids
}

// statuses is the status of each prospect of a campaign, by lead id.
func statuses(t *testing.T, c testenv.Client, campaignID string) map[string]string {
	t.Helper()
	r := c.Do(t, "GET", "/api/v1/prospects?limit=200&campaign_id="+campaignID, nil)
	if r.Status != 200 {
		t.Fatalf("list prospects: %d %s", r.Status, r.Body)
	}
	out := map[string]string{}
	for _, it := range r.JSON["data"].([]any) {
		m := it.(map[string]any)
		out[m["id"].(string)], _ = m["status"].(string)
	}
	return out
}

// waitStatus waits until every lead of ids has one of the statuses.
func waitStatus(t *testing.T, c testenv.Client, campaignID string, ids []string, want ...string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() (bool, string) {
		got := statuses(t, c, campaignID)
		var behind []string
		for _, id := range ids {
			if !contains(want, got[id]) {
				behind = append(behind, id+"="+got[id])
			}
		}
		return len(behind) == 0, fmt.Sprintf("%d of %d leads not %v: %v", len(behind), len(ids), want, behind)
	})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// postWebhook sends a body to the service's Unipile webhook with the given Unipile-Auth values
// (none for no header) and returns the status and the answer.
func postWebhook(t *testing.T, base string, body []byte, auth ...string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, base+e2eWebhookPath, strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range auth {
		req.Header.Add("Unipile-Auth", a)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return resp.StatusCode, m
}

// setCampaignStatus pauses or launches (active) a campaign.
func setCampaignStatus(t *testing.T, dbURL, campaignID, status string) {
	t.Helper()
	testenv.Admin(t, dbURL, "campaign", "set-status", "--campaign", campaignID, "--status", status)
}
