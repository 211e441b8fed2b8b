package unipilefake_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"outreachd/adapters/unipile/unipilefake"
)

const key = "k"

func start(t *testing.T) (*unipilefake.Fake, unipilefake.Seat, unipilefake.Person) {
	t.Helper()
	f, err := unipilefake.New(unipilefake.Config{APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	seat, err := f.AddSeat(unipilefake.Seat{Name: "seat", Owner: unipilefake.Person{FirstName: "Sam"}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.AddPerson(unipilefake.Person{FirstName: "Ada", PublicIdentifier: "ada"})
	if err != nil {
		t.Fatal(err)
	}
	return f, seat, p
}

// call sends a raw request and returns the status and the decoded JSON answer.
func call(t *testing.T, f *unipilefake.Fake, method, path, apiKey, contentType string, body []byte) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, f.URL()+path, bytes.NewReader(body))
	if apiKey != "" {
		req.Header.Set("X-API-KEY", apiKey)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func TestConfig(t *testing.T) {
	for _, c := range []unipilefake.Config{{}, {APIKey: "k", PageSize: -1}} {
		if _, err := unipilefake.New(c); err == nil {
			t.Errorf("New(%+v) accepted it", c)
		}
	}
}

// Every refusal is an RFC 7807 document with the type Unipile uses.
func TestProblems(t *testing.T) {
	f, seat, ada := start(t)
	invite := fmt.Appendf(nil, `{"account_id":%q,"provider_id":%q,"message":%q}`, seat.ID, ada.ProviderID, strings.Repeat("x", 301))
	var form bytes.Buffer
	w := multipart.NewWriter(&form)
	_ = w.WriteField("account_id", seat.ID)
	_ = w.WriteField("provider_id", ada.ProviderID)
	w.Close()
	for _, tc := range []struct {
		name, method, path, key, contentType string
		body                                 []byte
		status                               int
		typ                                  string
	}{
		{"no key", "GET", "/api/v1/accounts", "", "", nil, 401, "errors/missing_credentials"},
		{"wrong key", "GET", "/api/v1/accounts", "nope", "", nil, 401, "errors/missing_credentials"},
		{"unknown route", "GET", "/api/v1/nothing/here", key, "", nil, 404, "errors/resource_not_found"},
		{"unknown account", "GET", "/api/v1/users/ada?account_id=nope", key, "", nil, 404, "errors/resource_not_found"},
		{"no account id", "GET", "/api/v1/users/ada", key, "", nil, 400, "errors/invalid_parameters"},
		{"note too long", "POST", "/api/v1/users/invite", key, "application/json", invite, 400, "errors/too_many_characters"},
		{"invite as a form", "POST", "/api/v1/users/invite", key, w.FormDataContentType(), form.Bytes(), 400, "errors/invalid_parameters"},
		{"bad limit", "GET", "/api/v1/accounts?limit=0", key, "", nil, 400, "errors/invalid_parameters"},
		{"bad cursor", "GET", "/api/v1/accounts?cursor=b2Zmc2V0Oi0x", key, "", nil, 400, "errors/invalid_parameters"},
		{"chats after without millis", "GET", "/api/v1/chats?account_id=" + seat.ID + "&after=2025-01-01T00:00:00Z", key, "", nil, 400, "errors/invalid_parameters"},
		{"link expiry without millis", "POST", "/api/v1/hosted/accounts/link", key, "application/json",
			[]byte(`{"type":"create","providers":["LINKEDIN"],"api_url":"https://x","expiresOn":"2999-01-01T00:00:00Z"}`), 400, "errors/invalid_parameters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := call(t, f, tc.method, tc.path, tc.key, tc.contentType, tc.body)
			if status != tc.status || body["type"] != tc.typ || body["status"] != float64(tc.status) || body["title"] == "" || body["detail"] == "" {
				t.Fatalf("answer %d %v, want %d %s", status, body, tc.status, tc.typ)
			}
		})
	}
	if n := f.SentInvitations(seat.ID, ada.ProviderID); n != 0 {
		t.Fatalf("a refused invitation was recorded (%d)", n)
	}
	if n := f.Calls("POST", "/api/v1/users/invite", "provider_id", ada.ProviderID); n != 2 {
		t.Fatalf("the log counts %d invitation calls to ada, want 2", n)
	}
}

// Knobs fail the next calls of a route a given number of times, then let them through.
func TestFailNextByPattern(t *testing.T) {
	f, seat, _ := start(t)
	f.FailNext(unipilefake.Failure{Method: "GET", Path: "/api/v1/accounts/{id}", Times: 2, Status: 503})
	path := "/api/v1/accounts/" + seat.ID
	for i, want := range []int{503, 503, 200} {
		if status, body := call(t, f, "GET", path, key, "", nil); status != want {
			t.Fatalf("call %d answered %d %v, want %d", i, status, body, want)
		}
	}
}

// Concurrent invitations to one person: exactly one is sent, the others are refused.
func TestConcurrentInvitations(t *testing.T) {
	f, seat, ada := start(t)
	body := fmt.Appendf(nil, `{"account_id":%q,"provider_id":%q}`, seat.ID, ada.ProviderID)
	var wg sync.WaitGroup
	statuses := make(chan int, 20)
	for range 20 {
		wg.Go(func() {
			status, _ := call(t, f, "POST", "/api/v1/users/invite", key, "application/json", body)
			statuses <- status
		})
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[200] != 1 || count[422] != 19 || f.SentInvitations(seat.ID, ada.ProviderID) != 1 {
		t.Fatalf("answers %v, %d held", count, f.SentInvitations(seat.ID, ada.ProviderID))
	}
}

// Webhooks go only to enabled registrations of the right source that cover the account and
// list the event.
func TestWebhookSelection(t *testing.T) {
	f, seat, ada := start(t)
	if err := f.AddRelation(seat.ID, ada.ProviderID); err != nil {
		t.Fatal(err)
	}
	good, disabled, otherAccount, otherEvent := unipilefake.NewReceiver(), unipilefake.NewReceiver(), unipilefake.NewReceiver(), unipilefake.NewReceiver()
	for _, rc := range []*unipilefake.Receiver{good, disabled, otherAccount, otherEvent} {
		defer rc.Close()
	}
	for _, reg := range []string{
		fmt.Sprintf(`{"source":"messaging","request_url":%q,"account_ids":[%q]}`, good.URL(), seat.ID),
		fmt.Sprintf(`{"source":"messaging","request_url":%q,"enabled":false}`, disabled.URL()),
		fmt.Sprintf(`{"source":"messaging","request_url":%q,"account_ids":["another"]}`, otherAccount.URL()),
		fmt.Sprintf(`{"source":"messaging","request_url":%q,"events":["message_read"]}`, otherEvent.URL()),
		fmt.Sprintf(`{"source":"users","request_url":%q}`, otherEvent.URL()),
	} {
		if status, body := call(t, f, "POST", "/api/v1/webhooks", key, "application/json", []byte(reg)); status != 201 || body["object"] != "WebhookCreated" {
			t.Fatalf("create %s: %d %v", reg, status, body)
		}
	}
	if _, err := f.Reply(seat.ID, ada.ProviderID, "hello"); err != nil {
		t.Fatal(err)
	}
	f.WaitWebhooks()
	if len(good.Calls()) != 1 || len(disabled.Calls())+len(otherAccount.Calls())+len(otherEvent.Calls()) != 0 {
		t.Fatalf("calls: good %d, disabled %d, other account %d, other event %d",
			len(good.Calls()), len(disabled.Calls()), len(otherAccount.Calls()), len(otherEvent.Calls()))
	}
	d := f.Deliveries()
	if len(d) != 1 || d[0].Event != "message_received" || d[0].Attempts != 1 || d[0].Status != 200 {
		t.Fatalf("deliveries = %+v", d)
	}
	if _, err := f.Reply(seat.ID, "ACoAAnobody", "x"); err == nil {
		t.Fatal("a stranger replied")
	}
}

// A receiver that never answers 200 gets Unipile's call and its retries, then no more.
func TestWebhookGivesUp(t *testing.T) {
	f, err := unipilefake.New(unipilefake.Config{APIKey: key, WebhookAttempts: 3, WebhookRetryDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seat, _ := f.AddSeat(unipilefake.Seat{Owner: unipilefake.Person{FirstName: "S"}})
	rc := unipilefake.NewReceiver(500, 500, 500, 500)
	defer rc.Close()
	call(t, f, "POST", "/api/v1/webhooks", key, "application/json", fmt.Appendf(nil, `{"source":"account_status","request_url":%q}`, rc.URL()))
	if err := f.Disconnect(seat.ID); err != nil {
		t.Fatal(err)
	}
	f.WaitWebhooks()
	if d := f.Deliveries(); len(rc.Calls()) != 3 || len(d) != 1 || d[0].Attempts != 3 || d[0].Status != 500 {
		t.Fatalf("%d calls, deliveries %+v", len(rc.Calls()), d)
	}
}
