package webapp_test

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
	"outreachd/webapp"
)

// TestTemplatesHaveNoInlineCode: the Content-Security-Policy forbids inline script and style, so
// a style attribute or an inline handler in a template would silently do nothing.
func TestTemplatesHaveNoInlineCode(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(testenv.RepoRoot(), "webapp", "templates")
	bad := regexp.MustCompile(`(?i)\sstyle="|\son[a-z]+="|<script>|<style`)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if m := bad.Find(b); m != nil {
			t.Errorf("%s holds inline code %q", filepath.Base(p), m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDestinationRulesOnThePage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{})
	orgID, _ := e.org("ops@acme.test", "a long enough password")
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")

	refused := []struct {
		name string
		form url.Values
		want string
	}{
		{"private address", url.Values{"url": {"http://127.0.0.1:9/hook"}}, "is refused"},
		{"metadata address", url.Values{"url": {"https://169.254.169.254/latest"}}, "is refused"},
		{"unknown event", url.Values{"url": {"https://1.1.1.7/hook"}, "events": {"lead_accepted, lead_exploded"}}, `unknown event kind &#34;lead_exploded&#34;`},
		{"slack without url or bot", url.Values{"kind": {"slack"}}, "needs an incoming-webhook url"},
		{"blank", url.Values{"url": {""}}, "url: required"},
	}
	for _, tt := range refused {
		p := c.post("/app/destinations", tt.form)
		if p.Status != http.StatusBadRequest || !strings.Contains(p.Body, tt.want) {
			t.Errorf("%s: %d, want 400 naming %q; body has: %s", tt.name, p.Status, tt.want, alert(p.Body))
		}
	}
	// Ten fill the organization; the form then says so and an eleventh is refused.
	for i := 0; i < delivery.MaxDestinationsPerOrg; i++ {
		p := c.post("/app/destinations", url.Values{"url": {fmt.Sprintf("https://1.1.1.%d/hook", i+1)}, "events": {"all"}})
		if p.Status != http.StatusSeeOther {
			t.Fatalf("destination %d: %d %s", i+1, p.Status, alert(p.Body))
		}
	}
	p := c.get("/app/destinations")
	if !strings.Contains(p.Body, "Delete one before adding another") || strings.Contains(p.Body, ">Add destination</button>") {
		t.Fatal("a full organization is still offered the add form")
	}
	p = c.post("/app/destinations", url.Values{"url": {"https://1.1.1.99/hook"}})
	if p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "already has 10 destinations") {
		t.Fatalf("eleventh: %d %s", p.Status, alert(p.Body))
	}
	if list, err := e.dests.ListDestinations(context.Background(), orgID); err != nil || len(list) != 10 {
		t.Fatalf("%d destinations stored (%v)", len(list), err)
	}
}

func TestDestinationEdits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{})
	orgID, _ := e.org("ops@acme.test", "a long enough password")
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")
	var list []delivery.Destination
	for i := 0; i < 2; i++ {
		d, err := e.dests.CreateDestination(context.Background(), delivery.Destination{OrgID: orgID, Name: fmt.Sprintf("d%d", i),
			Kind: outreach.DestinationHTTPS, URL: fmt.Sprintf("https://1.1.1.%d/hook", i+1), Events: []string{"all"}, Enabled: true})
		if err != nil {
			t.Fatal(err)
		}
		list = append(list, d)
	}
	// A secret given by the person is stored sealed and never shown.
	p := c.post("/app/destinations", url.Values{"url": {"https://1.1.1.50/hook"}, "secret": {"whsec_bXlzZWNyZXRteXNlY3JldA"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("with a secret: %d %s", p.Status, alert(p.Body))
	}
	if p := c.get("/app/destinations"); strings.Contains(p.Body, "bXlzZWNyZXRteXNlY3JldA") || !strings.Contains(p.Body, "signed") {
		t.Fatal("the secret is shown, or the destination is not marked signed")
	}
	// A destination's page: edit with the same rules.
	p = c.post("/app/destinations/"+list[1].ID, url.Values{"name": {"Renamed"}, "url": {"http://10.0.0.1/x"}, "events": {"all"}, "enabled": {"on"}})
	if p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "is refused") {
		t.Fatalf("edit to a private address: %d %s", p.Status, alert(p.Body))
	}
	p = c.post("/app/destinations/"+list[1].ID, url.Values{"name": {"Renamed"}, "url": {"https://1.1.1.2/hook"}, "events": {"lead_accepted"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("edit: %d %s", p.Status, alert(p.Body))
	}
	d, _ := e.dests.GetDestination(context.Background(), orgID, list[1].ID)
	if d.Name != "Renamed" || d.Enabled || len(d.Events) != 1 || d.Events[0] != "lead_accepted" {
		t.Fatalf("after the edit: %+v", d)
	}
	// Rotating the secret shows the new one once.
	p = c.post("/app/destinations/"+list[1].ID+"/secret", url.Values{})
	if !regexp.MustCompile(`value="whsec_[^"]+"`).MatchString(p.Body) {
		t.Fatalf("rotate: %d %s", p.Status, alert(p.Body))
	}
	if p := c.get("/app/destinations/" + list[1].ID); strings.Contains(p.Body, "whsec_") {
		t.Fatal("the rotated secret is shown again")
	}
	// A Slack incoming-webhook URL is a credential: never shown whole, kept by an empty edit.
	const hook = "https://hooks.slack.com/services/T0001/B0001/abcdefghijklmnopqrstuvwx"
	sl, err := e.dests.CreateDestination(context.Background(), delivery.Destination{OrgID: orgID, Name: "Slack", Kind: outreach.DestinationSlack,
		URL: hook, Events: []string{"all"}, Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/app/destinations", "/app/destinations/" + sl.ID} {
		if p := c.get(path); p.Status != http.StatusOK || strings.Contains(p.Body, "abcdefghijklmnop") {
			t.Errorf("%s shows the Slack webhook URL whole (%d)", path, p.Status)
		}
	}
	if p := c.post("/app/destinations/"+sl.ID, url.Values{"name": {"Slack alerts"}, "url": {""}, "events": {"all"}, "enabled": {"on"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("edit the Slack destination: %d %s", p.Status, alert(p.Body))
	}
	if got, _ := e.dests.GetDestination(context.Background(), orgID, sl.ID); got.URL != hook || got.Name != "Slack alerts" {
		t.Fatalf("after the edit: %q %q", got.Name, got.URL)
	}
	// The attempt log refuses an unknown filter by name.
	if p := c.get("/app/destinations/" + list[1].ID + "?outcome=maybe"); p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "outcome") {
		t.Fatalf("bad filter: %d", p.Status)
	}
}

// alert extracts the page's error message for failure output.
func alert(body string) string {
	if i := strings.Index(body, `role="alert"`); i >= 0 {
		end := min(len(body), i+300)
		return body[i:end]
	}
	return "(no alert)"
}

func TestAPIKeysPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{})
	orgID, _ := e.org("ops@acme.test", "a long enough password")
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")
	p := c.post("/app/keys", url.Values{"scope": {"read_write"}, "expires_in": {""}})
	m := regexp.MustCompile(`id="new-key" type="text" readonly value="(odk_[A-Za-z0-9_-]+)"`).FindStringSubmatch(p.Body)
	if p.Status != http.StatusOK || m == nil {
		t.Fatalf("create key: %d %s", p.Status, alert(p.Body))
	}
	key := m[1]
	auth, err := e.store.Authenticate(context.Background(), key, e.clock())
	if err != nil || auth.OrgID != orgID || auth.Scope != "read_write" {
		t.Fatalf("the shown key: %+v %v", auth, err)
	}
	p = c.get("/app/keys")
	if strings.Contains(p.Body, key) || !strings.Contains(p.Body, key[:12]+"…") {
		t.Fatal("the key list shows the whole key, or not its prefix")
	}
	// Expiry from the form; an invented lifetime is refused.
	p = c.post("/app/keys", url.Values{"scope": {"read"}, "expires_in": {"720h"}})
	if p.Status != http.StatusOK || !strings.Contains(p.Body, "Your new read key") {
		t.Fatalf("read key with expiry: %d", p.Status)
	}
	if p := c.post("/app/keys", url.Values{"expires_in": {"forever"}}); p.Status != http.StatusBadRequest {
		t.Fatalf("bad expiry: %d", p.Status)
	}
	if p := c.post("/app/keys", url.Values{"scope": {"admin"}}); p.Status != http.StatusBadRequest {
		t.Fatalf("bad scope: %d", p.Status)
	}
	// Revoke.
	p = c.post("/app/keys/"+auth.KeyID+"/revoke", url.Values{})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", p.Status)
	}
	if _, err := e.store.Authenticate(context.Background(), key, e.clock()); err == nil {
		t.Fatal("the revoked key still authenticates")
	}
}

func TestAnotherOrganizationSeesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{})
	ctx := context.Background()
	orgA, _ := e.org("a@acme.test", "a long enough password")
	e.org("b@other.test", "a long enough password")
	a, b := e.client(), e.client()
	a.mustLogin("a@acme.test", "a long enough password")
	b.mustLogin("b@other.test", "a long enough password")
	if p := a.post("/app/destinations", url.Values{"url": {"https://1.1.1.1/hook"}, "name": {"Secret CRM"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("add: %d %s", p.Status, alert(p.Body))
	}
	dests, _ := e.dests.ListDestinations(ctx, orgA)
	key, _, err := e.store.CreateAPIKey(ctx, orgA, storage.ScopeRead, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.store.CreateCampaign(ctx, orgA, storage.NewCampaign{Name: "Hidden campaign", OutreachType: outreach.OutreachOutbound, DailyLimit: 20, Schedule: outreach.DefaultSchedule()})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/app/destinations", "/app/keys", "/app/campaigns", "/app/needs-human"} {
		p := b.get(path)
		if p.Status != http.StatusOK || strings.Contains(p.Body, "Secret CRM") || strings.Contains(p.Body, key.ID) ||
			strings.Contains(p.Body, "Hidden campaign") {
			t.Errorf("%s shows another organization's data (%d)", path, p.Status)
		}
	}
	for _, path := range []string{"/app/destinations/" + dests[0].ID, "/app/campaigns/" + c.ID} {
		if p := b.get(path); p.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, p.Status)
		}
	}
	for _, path := range []string{"/app/destinations/" + dests[0].ID + "/delete", "/app/keys/" + key.ID + "/revoke",
		"/app/campaigns/" + c.ID + "/intake"} {
		if p := b.post(path, url.Values{"status": {"active"}}); p.Status != http.StatusNotFound {
			t.Errorf("POST %s: %d, want 404", path, p.Status)
		}
	}
	if list, _ := e.dests.ListDestinations(ctx, orgA); len(list) != 1 {
		t.Fatal("another organization deleted the destination")
	}
	if keys, _ := e.store.ListAPIKeys(ctx, orgA); keys[0].RevokedAt != nil {
		t.Fatal("another organization revoked the key")
	}
}
