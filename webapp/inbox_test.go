package webapp_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
	"outreachd/webapp"
)

// fakeLinkedIn is the provider as the Inbox reads it (chats by seat, messages by chat) and the
// engine's reply action, recording what the page asks. (The real send and its checks are tested
// in package engine and, through the page, in TestBrowserInbox.)
type fakeLinkedIn struct {
	mu      sync.Mutex
	chats   map[string][]outreach.Chat // by provider account id
	msgs    map[string][]outreach.ChatMessage
	down    bool
	replies []outreach.ReplyRequest
}

func (f *fakeLinkedIn) ListChats(_ context.Context, account string, _ int) ([]outreach.Chat, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return nil, errors.New("linkedin: 503")
	}
	return f.chats[account], nil
}

func (f *fakeLinkedIn) Messages(_ context.Context, chat string) ([]outreach.ChatMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return nil, errors.New("linkedin: 503")
	}
	return f.msgs[chat], nil
}

func (f *fakeLinkedIn) SendReply(_ context.Context, r outreach.ReplyRequest) (outreach.DraftOutcome, error) {
	if strings.TrimSpace(r.Text) == "" {
		return outreach.DraftOutcome{}, outreach.Invalidf("the reply is empty; write the text to send")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.replies = append(f.replies, r)
	return outreach.DraftOutcome{ChatID: r.ChatID, Status: outreach.DraftSent, Text: r.Text}, nil
}

// inboxEnv is an organization with a seat, a campaign person (ada) and a stranger known only by
// member id (zed), each with a conversation the provider lists.
type inboxEnv struct {
	*env
	li           *fakeLinkedIn
	org, user    string
	other        string
	ada, zed     string // chat ids
	adaProspect  string
	campaignName string
}

const zedMember = "ACoAAZedZedZedZedZedZedZedZedZedZedZe"

func newInboxEnv(t *testing.T) inboxEnv {
	t.Helper()
	li := &fakeLinkedIn{chats: map[string][]outreach.Chat{}, msgs: map[string][]outreach.ChatMessage{}}
	e := newEnvDeps(t, webapp.Config{}, func(_ *env, d *webapp.Deps) { d.Inbox, d.Replies = li, li })
	ie := inboxEnv{env: e, li: li, ada: "chat_ada", zed: "chat_zed", campaignName: "Founders"}
	ie.org, ie.user = e.org("ops@acme.test", "a long enough password")
	ie.other, _ = e.org("eve@other.test", "a long enough password")
	ctx := context.Background()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := e.store.Pool().Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ie.adaProspect = outreach.NewID("prs")
	exec(`INSERT INTO linkedin_accounts (id, org_id, name, provider_account_id) VALUES ('acc_seat', $1, 'Sam Seller', 'pa_seat')`, ie.org)
	exec(`INSERT INTO campaigns (id, org_id, name, status, schedule) VALUES ('cmp_f', $1, 'Founders', 'active', '{}')`, ie.org)
	exec(`INSERT INTO prospects (id, org_id, campaign_id, lead_key, linkedin_id, name, status, source, current_step, next_step_at,
			linkedin_url, role, company, location, headline, filter_verdict)
		VALUES ($1, $2, 'cmp_f', 'in:ada', 'ada', 'Ada Quinn', 'messaged', 'api', 2, now() + interval '2 days',
			'https://www.linkedin.com/in/ada', 'CTO', 'Northwind', 'Dublin, Ireland', 'Builds <b>things</b>', 'accepted')`, ie.adaProspect, ie.org)
	exec(`INSERT INTO chats (id, org_id, account_id, provider_chat_id, lead_key, prospect_id, attendee_name)
		VALUES ('chat_ada', $1, 'acc_seat', 'chat_ada', 'in:ada', $2, 'Ada Quinn')`, ie.org, ie.adaProspect)
	exec(`INSERT INTO chats (id, org_id, account_id, provider_chat_id, attendee_name, attendee_provider_id)
		VALUES ('chat_zed', $1, 'acc_seat', 'chat_zed', 'Zed <i>Stranger</i>', $2)`, ie.org, zedMember)
	t0 := time.Now().Add(-3 * time.Hour)
	li.msgs["chat_ada"] = []outreach.ChatMessage{
		{ID: "m1", Text: "Thanks for connecting, Ada!", At: t0, FromMe: true},
		{ID: "m2", Text: "Sure <script>alert(1)</script> — tell me more", At: t0.Add(time.Hour)},
	}
	li.msgs["chat_zed"] = []outreach.ChatMessage{{ID: "m3", Text: "Who are you?", At: t0.Add(2 * time.Hour)}}
	li.chats["pa_seat"] = []outreach.Chat{
		{ID: "chat_zed", AttendeeName: "Zed <i>Stranger</i>", AttendeeProviderID: zedMember, LastMessage: &li.msgs["chat_zed"][0], UnreadCount: 1},
		{ID: "chat_ada", AttendeeName: "Ada Quinn", ProfileKey: "in:ada", LastMessage: &li.msgs["chat_ada"][1], UnreadCount: 1},
	}
	return ie
}

func TestInboxPages(t *testing.T) {
	t.Parallel()
	e := newInboxEnv(t)
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")

	// The list: campaign people first; everyone on request; lead text as text.
	p := c.get("/app/inbox")
	if p.Status != http.StatusOK || !strings.Contains(p.Body, `href="/app/inbox/chat_ada"`) || strings.Contains(p.Body, "chat_zed") {
		t.Fatalf("campaign people: %d", p.Status)
	}
	if !strings.Contains(p.Body, "Sure &lt;script&gt;alert(1)&lt;/script&gt;") || strings.Contains(p.Body, "<script>alert") {
		t.Fatal("the last message is not shown as text")
	}
	p = c.get("/app/inbox?scope=all")
	if !strings.Contains(p.Body, "chat_zed") || !strings.Contains(p.Body, "Zed &lt;i&gt;Stranger&lt;/i&gt;") || !strings.Contains(p.Body, "not in a campaign") ||
		strings.Index(p.Body, "chat_zed") > strings.Index(p.Body, "chat_ada") {
		t.Fatal("everyone: the stranger is missing, unescaped or out of order")
	}

	// One conversation: oldest first, the person beside it, Reply, Send, Stop, Block.
	p = c.get("/app/inbox/chat_ada")
	first, second := strings.Index(p.Body, "Thanks for connecting, Ada!"), strings.Index(p.Body, "tell me more")
	if p.Status != http.StatusOK || first < 0 || second < first {
		t.Fatalf("the thread: %d, oldest first %d < %d", p.Status, first, second)
	}
	for _, want := range []string{"CTO", "Northwind", "Dublin, Ireland", "Builds &lt;b&gt;things&lt;/b&gt;", `href="https://www.linkedin.com/in/ada"`,
		`<label for="reply">Reply</label>`, ">Send</button>", ">Stop</button>", ">Block</button>"} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the conversation lacks %q", want)
		}
	}
	if p := c.get("/app/inbox/chat_zed"); p.Status != http.StatusOK || strings.Contains(p.Body, "linkedin.com/in/") || !strings.Contains(p.Body, "Not in any of your campaigns") {
		t.Fatal("a stranger known by member id gets a made-up profile link, or no word that they are in no campaign")
	}

	// A reply goes to the engine as the person's, and the page says what became of it.
	p = c.post("/app/inbox/chat_ada/reply", url.Values{"reply": {"Happy to,\r\nhow about Tuesday?"}})
	if p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/app/inbox/chat_ada?sent=sent" {
		t.Fatalf("reply: %d %s", p.Status, p.Header.Get("Location"))
	}
	if got := e.li.replies; len(got) != 1 || got[0] != (outreach.ReplyRequest{OrgID: e.org, ChatID: "chat_ada", Text: "Happy to,\nhow about Tuesday?", Actor: "user:" + e.user}) {
		t.Fatalf("the engine was asked %+v", got)
	}
	if p := c.get("/app/inbox/chat_ada?sent=sent"); !strings.Contains(p.Body, "Sent on LinkedIn.") {
		t.Fatal("no word of the send")
	}
	if p := c.post("/app/inbox/chat_ada/reply", url.Values{"reply": {"  "}}); p.Status != http.StatusBadRequest || !strings.Contains(alert(p.Body), "the reply is empty") {
		t.Fatalf("an empty reply: %d %s", p.Status, alert(p.Body))
	}

	// Stop: as POST /inbox/stop, recorded as the person's; the conversation then says so.
	if p := c.post("/app/inbox/chat_ada/stop", url.Values{}); p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/app/inbox/chat_ada?done=stopped" {
		t.Fatalf("stop: %d to %q; want the word that her running sequence is paused", p.Status, p.Header.Get("Location"))
	}
	var by string
	if err := e.store.Pool().QueryRow(context.Background(), `SELECT stopped_by FROM person_stops WHERE org_id = $1 AND key = 'in:ada'`, e.org).Scan(&by); err != nil || by != "user:"+e.user {
		t.Fatalf("the stop is not recorded as the person's: %q %v", by, err)
	}
	p = c.get("/app/inbox/chat_ada?done=stopped")
	if !strings.Contains(p.Body, "Stopped: nothing more is sent") || strings.Contains(p.Body, `<label for="reply">`) || strings.Contains(p.Body, ">Stop</button>") {
		t.Fatal("the stopped conversation still offers a reply or Stop")
	}

	// Block asks for a reason and says it is permanent until undone; the reason's limit is the API's.
	p = c.post("/app/inbox/chat_zed/block", url.Values{})
	if p.Status != http.StatusOK || !strings.Contains(p.Body, "permanent until undone") || !strings.Contains(p.Body, `<label for="reason">Reason (optional)</label>`) {
		t.Fatalf("block without confirmation: %d", p.Status)
	}
	if p := c.post("/app/inbox/chat_zed/block", url.Values{"confirm": {"yes"}, "reason": {strings.Repeat("x", 501)}}); p.Status != http.StatusBadRequest ||
		!strings.Contains(alert(p.Body), "reason must be at most 500 characters, got 501") {
		t.Fatalf("a long reason: %d %s", p.Status, alert(p.Body))
	}
	if p := c.post("/app/inbox/chat_zed/block", url.Values{"confirm": {"yes"}, "reason": {"rude"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("block: %d", p.Status)
	}
	var reason, addedBy string
	if err := e.store.Pool().QueryRow(context.Background(), `SELECT reason, added_by FROM blacklist
		WHERE org_id = $1 AND type = 'account' AND key = $2 AND blocked_at IS NOT NULL`, e.org, "id:"+zedMember).Scan(&reason, &addedBy); err != nil ||
		reason != "rude" || addedBy != "user:"+e.user {
		t.Fatalf("the block: %q %q %v", reason, addedBy, err)
	}

	// LinkedIn down: no partial inbox, no thread, a clear word.
	e.li.mu.Lock()
	e.li.down = true
	e.li.mu.Unlock()
	if p := c.get("/app/inbox"); p.Status != http.StatusBadGateway || !strings.Contains(p.Body, "LinkedIn did not answer for the seat acc_seat") {
		t.Fatalf("inbox with LinkedIn down: %d", p.Status)
	}
	if p := c.get("/app/inbox/chat_ada"); p.Status != http.StatusBadGateway || !strings.Contains(p.Body, "LinkedIn did not answer") {
		t.Fatalf("conversation with LinkedIn down: %d", p.Status)
	}
}

// TestInboxOfAnotherOrganization: another organization's conversations are not found, and
// nothing is sent, stopped or blocked through their URLs.
func TestInboxOfAnotherOrganization(t *testing.T) {
	t.Parallel()
	e := newInboxEnv(t)
	b := e.client()
	b.mustLogin("eve@other.test", "a long enough password")
	if p := b.get("/app/inbox?scope=all"); p.Status != http.StatusOK || strings.Contains(p.Body, "chat_ada") || !strings.Contains(p.Body, "No LinkedIn seat is connected") {
		t.Fatalf("another organization's inbox: %d", p.Status)
	}
	for _, path := range []string{"/app/inbox/chat_ada", "/app/inbox/chat_nope"} {
		if p := b.get(path); p.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d", path, p.Status)
		}
	}
	for _, action := range []string{"reply", "stop", "block"} {
		if p := b.post("/app/inbox/chat_ada/"+action, url.Values{"reply": {"hi"}, "confirm": {"yes"}}); p.Status != http.StatusNotFound {
			t.Errorf("POST %s: %d", action, p.Status)
		}
	}
	var stops, blocks int
	if err := e.store.Pool().QueryRow(context.Background(), `SELECT (SELECT count(*) FROM person_stops), (SELECT count(*) FROM blacklist)`).Scan(&stops, &blocks); err != nil ||
		stops+blocks != 0 || len(e.li.replies) != 0 {
		t.Fatalf("another organization changed something: %d stops, %d entries, %d replies", stops, blocks, len(e.li.replies))
	}
	// A cross-site post is refused before anything happens.
	a := e.client()
	a.mustLogin("ops@acme.test", "a long enough password")
	if p := a.do(http.MethodPost, "/app/inbox/chat_ada/stop", url.Values{}, "Sec-Fetch-Site", "cross-site"); p.Status != http.StatusForbidden {
		t.Fatalf("cross-site stop: %d", p.Status)
	}
	if _, n, _ := e.store.ListStopped(context.Background(), storage.PeopleQuery{OrgID: e.org, Limit: 5}); n != 0 {
		t.Fatal("the cross-site stop went through")
	}
}
