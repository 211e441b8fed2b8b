package main_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"outreachd/adapters/unipile/unipilefake"
	"outreachd/internal/testenv"
)

// callLog is a reverse proxy in front of the fake Unipile through which one process reaches
// it: it keeps the calls that process made.
type callLog struct {
	srv   *httptest.Server
	mu    sync.Mutex
	calls []string // "POST /api/v1/users/invite"
}

func newCallLog(t *testing.T, target string) *callLog {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	c := &callLog{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.calls = append(c.calls, r.Method+" "+r.URL.Path)
		c.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// count is how many calls of method went to path, where a segment {id} stands for any.
func (c *callLog) count(method, path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	want := strings.Split(method+" "+path, "/")
	n := 0
	for _, call := range c.calls {
		got := strings.Split(call, "/")
		if len(got) != len(want) {
			continue
		}
		same := true
		for i := range want {
			same = same && (want[i] == got[i] || want[i] == "{id}")
		}
		if same {
			n++
		}
	}
	return n
}

// roundRobin is the load balancer in front of the instances: PUBLIC_URL, where Unipile's
// webhooks arrive, one instance after the other.
type roundRobin struct {
	srv      *httptest.Server
	mu       sync.Mutex
	backends []*httputil.ReverseProxy
	served   []int
	next     int
}

func newRoundRobin(t *testing.T) *roundRobin {
	t.Helper()
	lb := &roundRobin{}
	lb.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lb.mu.Lock()
		if len(lb.backends) == 0 {
			lb.mu.Unlock()
			http.Error(w, "no instance yet", http.StatusServiceUnavailable)
			return
		}
		i := lb.next % len(lb.backends)
		lb.next++
		lb.served[i]++
		rp := lb.backends[i]
		lb.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(lb.srv.Close)
	return lb
}

func (lb *roundRobin) add(t *testing.T, base string) {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	lb.mu.Lock()
	defer lb.mu.Unlock()
	lb.backends = append(lb.backends, httputil.NewSingleHostReverseProxy(u))
	lb.served = append(lb.served, 0)
}

func (lb *roundRobin) servedBy(i int) int {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.served[i]
}

// TestUnipileTwoInstances runs two `serve` processes on one database and one Unipile, behind
// one public address that spreads Unipile's webhooks over both. Twenty people are pushed,
// invited, accept (some only found by the periodic reconciliation, their new_relation never
// sent), get their first message, and some answer; answers of an invitation and of a first
// message are lost on the way back. Each person gets exactly one invitation and one first
// message, each event reaches the destination once per person, and both processes did the
// work.
func TestUnipileTwoInstances(t *testing.T) {
	t.Parallel()
	start := time.Now()
	fake, seat := newUnipileFake(t)
	lb := newRoundRobin(t)
	dbURL := testenv.DatabaseURL(t)
	logs := []*callLog{newCallLog(t, fake.URL()), newCallLog(t, fake.URL())}
	var srvs []*testenv.Server
	for _, l := range logs {
		env := unipileEnv(l.srv.URL, "PUBLIC_URL="+lb.srv.URL, "UNIPILE_SYNC_INTERVAL=1s", "RATE_LIMIT_PER_MINUTE=100000", "LOG_LEVEL=info")
		s := testenv.StartServer(t, dbURL, env...)
		lb.add(t, s.URL)
		srvs = append(srvs, s)
	}
	u := &unipileRun{t: t, fake: fake, srv: srvs[0], seat: seat, env: unipileEnv(fake.URL())}
	u.db, _ = testenv.OpenStores(t, dbURL, 2)
	waitWebhooksRegistered(t, fake, lb.srv.URL)
	org, _ := u.orgWithSeat()
	sink := newEventSink(t, dbURL, org.ID, "invite_sent", "connection_accepted", "message_sent", "reply_received")
	ps := people(t, fake, "twin", 20)
	cid := launchCampaign(t, org, dbURL, "Twins")
	for _, l := range []unipilefake.LostAnswer{
		{Method: http.MethodPost, Path: "/api/v1/users/invite"},
		{Method: http.MethodPost, Path: "/api/v1/users/invite", Drop: true},
		{Method: http.MethodPost, Path: "/api/v1/chats"},
		{Method: http.MethodPost, Path: "/api/v1/chats", Drop: true},
	} {
		fake.LoseAnswer(l)
	}

	// Half the leads pushed through each instance.
	leads := append(pushPeople(t, org, cid, ps[:10]),
		pushPeople(t, testenv.Org{ID: org.ID, Write: testenv.Client{Base: srvs[1].URL, Key: org.WriteKey}}, cid, ps[10:])...)
	waitStatus(t, org.Read, cid, leads, "connection_sent")
	t.Logf("%s: twenty invited", time.Since(start).Round(time.Millisecond))

	// Two waves of acceptances; every fourth person's new_relation is never sent.
	for wave := range 2 {
		for i := wave * 10; i < wave*10+10; i++ {
			if err := fake.AcceptInvitation(seat.ID, ps[i].ProviderID, unipilefake.AcceptOptions{WithholdNewRelation: i%4 == 0}); err != nil {
				t.Fatal(err)
			}
		}
		waitStatus(t, org.Read, cid, leads[wave*10:wave*10+10], "messaged")
	}
	t.Logf("%s: twenty messaged", time.Since(start).Round(time.Millisecond))

	var repliers []int
	for i := 0; i < len(ps); i += 3 {
		repliers = append(repliers, i)
		if _, err := fake.Reply(seat.ID, ps[i].ProviderID, "Could you send me an email with the details?"); err != nil {
			t.Fatal(err)
		}
	}
	var items []any
	testenv.EventuallyTrue(t, 30*time.Second, "the replies in needs-human", func() bool {
		items, _ = org.Read.Do(t, "GET", "/api/v1/needs-human?limit=200", nil).JSON["data"].([]any)
		return len(items) == len(repliers)
	})
	// The answers are approved through one instance or the other, the last through both at once:
	// the instance serving an approval sends the reply, and one approval of two wins.
	instances := []testenv.Client{{Base: srvs[0].URL, Key: org.WriteKey}, {Base: srvs[1].URL, Key: org.WriteKey}}
	for i, it := range items {
		id := it.(map[string]any)["id"].(string)
		via := instances[i%2 : i%2+1]
		if i == len(items)-1 {
			via = instances
		}
		codes := make([]int, len(via))
		var wg sync.WaitGroup
		for j, c := range via {
			wg.Go(func() {
				r := c.Do(t, "POST", "/api/v1/needs-human/"+id+"/approve", map[string]any{"text": "Happy to: what address should I write to?"})
				if d, _ := r.JSON["data"].(map[string]any); r.Status == 200 && d["status"] != "sent" {
					t.Errorf("approve %s: %s", id, r.Body)
				}
				codes[j] = r.Status
			})
		}
		wg.Wait()
		if n := count(codes, 200); n != 1 || count(codes, 409) != len(via)-1 {
			t.Errorf("approving %s through %d instances: %v; want one 200 and the rest 409", id, len(via), codes)
		}
	}
	fake.WaitWebhooks()
	waitEnginePass(t, u.db)
	sink.settled(t, u.db)
	t.Logf("%s: settled", time.Since(start).Round(time.Millisecond))

	replied := map[int]bool{}
	for _, i := range repliers {
		replied[i] = true
	}
	for i, p := range ps {
		want := map[string]int{"invite_sent": 1, "connection_accepted": 1, "message_sent": 1, "reply_received": 0}
		messages := 1
		if replied[i] { // and answered
			want["reply_received"], want["message_sent"], messages = 1, 2, 2
		}
		for kind, n := range want {
			if got := sink.count(kind, leads[i]); got != n {
				t.Errorf("%s: %d %s events, want %d", p.PublicIdentifier, got, kind, n)
			}
		}
		if got := fake.SentInvitations(seat.ID, p.ProviderID); got != 1 {
			t.Errorf("%s got %d invitations", p.PublicIdentifier, got)
		}
		if got := fake.SentMessages(seat.ID, p.ProviderID); got != messages {
			t.Errorf("%s got %d messages, want %d", p.PublicIdentifier, got, messages)
		}
	}
	var lost, performed int
	for _, r := range fake.Requests() {
		if r.Method == http.MethodPost && (r.Path == "/api/v1/users/invite" || r.Path == "/api/v1/chats") {
			if r.Performed {
				performed++
			}
			if r.Performed && r.Status != http.StatusOK && r.Status != http.StatusCreated {
				lost++
			}
		}
	}
	if lost != 4 || performed != 40 {
		t.Errorf("%d answers lost of %d invitations and messages carried out; want 4 of 40", lost, performed)
	}
	replies := 0
	for i, l := range logs {
		invites, chats := l.count(http.MethodPost, "/api/v1/users/invite"), l.count(http.MethodPost, "/api/v1/chats")
		sent := l.count(http.MethodPost, "/api/v1/chats/{id}/messages")
		t.Logf("instance %d: %d invitations, %d first messages and %d replies sent; %d webhooks received", i+1, invites, chats, sent, lb.servedBy(i))
		if sent < len(repliers)/2 || lb.servedBy(i) == 0 {
			t.Errorf("instance %d did not take its share: %d replies sent, %d webhooks received", i+1, sent, lb.servedBy(i))
		}
		replies += sent
	}
	if replies != len(repliers) {
		t.Errorf("%d replies sent in all, want %d", replies, len(repliers))
	}
	if n := fake.Calls(http.MethodPost, "/api/v1/webhooks", "", ""); n != 3 {
		t.Errorf("the two instances created %d webhooks, want 3", n)
	}
}

func count(list []int, v int) int {
	n := 0
	for _, x := range list {
		if x == v {
			n++
		}
	}
	return n
}
