package main_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"outreachd/adapters/unipile/unipilefake"
	"outreachd/internal/testenv"
)

// TestUnipileEndToEnd drives the built binary against a fake Unipile: a seat bound by its id, a
// campaign whose lead is looked up, invited, accepted, messaged, answers with a question for a
// person, whose approved reply goes out; each action reached Unipile exactly once. A seat also
// joins through a sign-in link, and webhooks without the secret change nothing.
func TestUnipileEndToEnd(t *testing.T) {
	t.Parallel()
	u := startUnipile(t)
	ada, err := u.fake.AddPerson(unipilefake.Person{FirstName: "Ada", LastName: "Lovelace", PublicIdentifier: "ada-lovelace",
		Headline: "Head of Engines", Position: "Head of Engines", Company: "Analytical Ltd"})
	if err != nil {
		t.Fatal(err)
	}
	org := testenv.NewOrg(t, u.srv)
	if _, code, errOut := u.admin("account", "connect", "--org", org.ID, "--name", "Ghost", "--provider-account-id", "no-such-account"); code == 0 || !strings.Contains(errOut, "error") {
		t.Fatalf("an account Unipile does not hold: exit %d %s", code, errOut)
	}
	acc, code, errOut := u.admin("account", "connect", "--org", org.ID, "--name", "Sam Seller", "--provider-account-id", u.seat.ID)
	if code != 0 || acc["account_id"] == nil {
		t.Fatalf("connect by id: %d %s", code, errOut)
	}

	cid := launchCampaign(t, org, u.srv.DBURL, "Engines")
	pid := pushPeople(t, org, cid, []unipilefake.Person{ada})[0]
	status := func() any {
		return org.Read.Do(t, "GET", "/api/v1/prospects/"+pid, nil).JSON["data"].(map[string]any)["status"]
	}
	testenv.EventuallyTrue(t, 30*time.Second, "the invitation", func() bool { return status() == "connection_sent" })
	// Enrichment looked the lead up through the seat; the invitation went by the member id it
	// kept, with no second profile view.
	if n := u.fake.Calls(http.MethodGet, "/api/v1/users/{identifier}", "", ""); n != 1 {
		t.Errorf("the lead's profile was looked up %d times, want once", n)
	}
	if lead := org.Read.Do(t, "GET", "/api/v1/leads/"+pid, nil).JSON["data"].(map[string]any); lead["enrichment_status"] != "done" ||
		lead["company"] != "Analytical Ltd" || lead["headline"] != "Head of Engines" {
		t.Errorf("enrichment through the seat: %v, company %v, headline %v", lead["enrichment_status"], lead["company"], lead["headline"])
	}
	limits, code, errOut := u.admin("account", "limits", "--account", acc["account_id"].(string))
	if used, _ := limits["used"].(map[string]any); code != 0 || used["profile_views_today"] != float64(1) || used["invites_today"] != float64(1) {
		t.Errorf("the seat's use: %v (exit %d %s)", limits, code, errOut)
	}
	if err := u.fake.AcceptInvitation(u.seat.ID, ada.ProviderID, unipilefake.AcceptOptions{}); err != nil {
		t.Fatal(err)
	}
	testenv.EventuallyTrue(t, 30*time.Second, "the first message", func() bool { return status() == "messaged" })
	if _, err := u.fake.Reply(u.seat.ID, ada.ProviderID, "Could you send me an email with the details?"); err != nil {
		t.Fatal(err)
	}
	var item map[string]any
	testenv.EventuallyTrue(t, 30*time.Second, "the reply in needs-human", func() bool {
		items, _ := org.Read.Do(t, "GET", "/api/v1/needs-human", nil).JSON["data"].([]any)
		if len(items) == 1 {
			item = items[0].(map[string]any)
		}
		return item != nil
	})
	mine := "Hi Ada, happy to: what address should I write to?"
	r := org.Write.Do(t, "POST", "/api/v1/needs-human/"+item["id"].(string)+"/approve", map[string]any{"text": mine})
	if d, _ := r.JSON["data"].(map[string]any); r.Status != 200 || d["status"] != "sent" {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	inbox := org.Read.Do(t, "GET", "/api/v1/inbox", nil)
	if inbox.Status != 200 || !strings.Contains(string(inbox.Body), mine) {
		t.Fatalf("the live inbox: %d %s", inbox.Status, inbox.Body)
	}
	u.fake.WaitWebhooks()

	// Exactly once each.
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"invitations to Ada", u.fake.SentInvitations(u.seat.ID, ada.ProviderID), 1},
		{"messages to Ada", u.fake.SentMessages(u.seat.ID, ada.ProviderID), 2},
		{"POST /users/invite", u.fake.Calls(http.MethodPost, "/api/v1/users/invite", "", ""), 1},
		{"POST /chats", u.fake.Calls(http.MethodPost, "/api/v1/chats", "", ""), 1},
		{"POST /chats/{id}/messages", u.fake.Calls(http.MethodPost, "/api/v1/chats/{id}/messages", "", ""), 1},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
		}
	}
	for _, d := range u.fake.Deliveries() {
		if d.Status != http.StatusOK {
			t.Errorf("webhook %s answered %d (%s)", d.Event, d.Status, d.Err)
		}
	}

	// Webhooks without the secret are refused.
	resp, err := http.Post(u.srv.URL+e2eWebhookPath, "application/json",
		bytes.NewReader([]byte(`{"event":"new_relation","account_id":"`+u.seat.ID+`","user_provider_id":"x"}`)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a webhook without the secret: %d", resp.StatusCode)
	}

	// A second seat joins through a sign-in link.
	link, code, errOut := u.admin("account", "connect", "--org", org.ID, "--name", "Nora North")
	if code != 0 || link["connect_url"] == nil || link["expires_at"] == nil {
		t.Fatalf("sign-in link: %d %s %v", code, errOut, link)
	}
	nora, err := u.fake.CompleteHostedAuth(link["connect_url"].(string), unipilefake.Seat{Name: "Nora North",
		Owner: unipilefake.Person{FirstName: "Nora", LastName: "North"}})
	if err != nil {
		t.Fatal(err)
	}
	u.fake.WaitWebhooks()
	list, code, errOut := u.admin("account", "list", "--org", org.ID)
	if code != 0 {
		t.Fatalf("account list: %d %s", code, errOut)
	}
	seats := map[string]string{}
	for _, row := range list["data"].([]any) {
		m := row.(map[string]any)
		seats[m["provider_account_id"].(string)] = m["name"].(string) + "/" + m["status"].(string)
	}
	if len(seats) != 2 || seats[u.seat.ID] != "Sam Seller/connected" || seats[nora] != "Nora North/connected" {
		t.Errorf("seats: %v", seats)
	}
}
