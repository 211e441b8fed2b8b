package webapp_test

import (
	"context"
	"fmt"
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

// desk records the decisions the page asks of the engine and answers like it: one decision per
// item, then outreach.ErrConflict. (The engine's own rules and the real send are tested in
// package engine and, through the page, in TestBrowser.)
type desk struct {
	st      *storage.Store
	mu      sync.Mutex
	calls   []outreach.DraftDecision
	decided map[string]bool
}

func (d *desk) decide(dec outreach.DraftDecision, status string) (outreach.DraftOutcome, error) {
	var org string
	err := d.st.Pool().QueryRow(context.Background(), `SELECT org_id FROM needs_human WHERE id = $1`, dec.ItemID).Scan(&org)
	if err != nil || org != dec.OrgID {
		return outreach.DraftOutcome{}, fmt.Errorf("needs-human item %s: %w", dec.ItemID, outreach.ErrNotFound)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.decided[dec.ItemID] {
		return outreach.DraftOutcome{}, fmt.Errorf("item %s already decided: %w", dec.ItemID, outreach.ErrConflict)
	}
	d.decided[dec.ItemID] = true
	d.calls = append(d.calls, dec)
	return outreach.DraftOutcome{ItemID: dec.ItemID, Status: status, At: time.Now()}, nil
}

func (d *desk) ApproveDraft(_ context.Context, dec outreach.DraftDecision) (outreach.DraftOutcome, error) {
	return d.decide(dec, outreach.DraftSent)
}

func (d *desk) DismissDraft(_ context.Context, dec outreach.DraftDecision) (outreach.DraftOutcome, error) {
	return d.decide(dec, outreach.DraftDismissed)
}

func addItem(t *testing.T, st *storage.Store, orgID, message, draft string) string {
	t.Helper()
	id := outreach.NewID("nhu")
	if _, err := st.Pool().Exec(context.Background(), `INSERT INTO needs_human (id, org_id, chat_id, name, message, ai_draft, reason, waiting_since)
		VALUES ($1, $2, 'chat_x', 'Ada Lovelace', $3, $4, 'wants_call', now())`, id, orgID, message, draft); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestNeedsHumanDesk(t *testing.T) {
	t.Parallel()
	d := &desk{decided: map[string]bool{}}
	e := newEnvWith(t, webapp.Config{}, d)
	d.st = e.store
	orgID, userID := e.org("ops@acme.test", "a long enough password")
	otherOrg, _ := e.org("eve@other.test", "a long enough password")
	first := addItem(t, e.store, orgID, `Call me <script>alert(1)</script> tomorrow`, "Happy to, what time suits you?")
	second := addItem(t, e.store, orgID, "Not now", "Understood, thanks.")
	foreign := addItem(t, e.store, otherOrg, "Other org", "Other draft")
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")

	p := c.get("/app/needs-human")
	if !strings.Contains(p.Body, "Call me &lt;script&gt;alert(1)&lt;/script&gt; tomorrow") || strings.Contains(p.Body, "<script>alert") {
		t.Fatal("the lead's message is not shown as text")
	}
	if strings.Contains(p.Body, "Other draft") || !strings.Contains(p.Body, "2 open") {
		t.Fatal("the queue is not the organization's own")
	}
	// Approve asks first and decides nothing until confirmed.
	p = c.post("/app/needs-human/"+first+"/approve", url.Values{})
	if p.Status != http.StatusOK || !strings.Contains(p.Body, "cannot be undone") || !strings.Contains(p.Body, "Happy to, what time suits you?") {
		t.Fatalf("approve without confirmation: %d", p.Status)
	}
	if len(d.calls) != 0 {
		t.Fatal("the engine was asked before the person confirmed")
	}
	p = c.post("/app/needs-human/"+first+"/approve", url.Values{"confirm": {"yes"}})
	if p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/app/needs-human?sent=sent" {
		t.Fatalf("confirmed approve: %d %s", p.Status, p.Header.Get("Location"))
	}
	if len(d.calls) != 1 || d.calls[0].Text != nil || d.calls[0].Actor != "user:"+userID || d.calls[0].OrgID != orgID {
		t.Fatalf("decision asked: %+v", d.calls)
	}
	if p := c.get("/app/needs-human?sent=sent"); !strings.Contains(p.Body, "Sent on LinkedIn.") {
		t.Fatal("no word of the send")
	}
	// Twice: the engine refuses, the page says it was already decided.
	if p := c.post("/app/needs-human/"+first+"/approve", url.Values{"confirm": {"yes"}}); p.Status != http.StatusConflict {
		t.Fatalf("second approval: %d", p.Status)
	}
	// Edit and approve: the edited text, confirmed, is what the engine gets; blank is refused.
	if p := c.post("/app/needs-human/"+second+"/approve", url.Values{"edited": {"yes"}, "text": {"   "}}); p.Status != http.StatusBadRequest {
		t.Fatalf("blank edit: %d", p.Status)
	}
	p = c.post("/app/needs-human/"+second+"/approve", url.Values{"edited": {"yes"}, "text": {"Thanks Ada,\r\nspeak soon."}})
	if !strings.Contains(p.Body, "Thanks Ada,\nspeak soon.") {
		t.Fatalf("the confirmation does not quote the edited text: %d", p.Status)
	}
	c.post("/app/needs-human/"+second+"/approve", url.Values{"edited": {"yes"}, "text": {"Thanks Ada,\nspeak soon."}, "confirm": {"yes"}})
	if len(d.calls) != 2 || d.calls[1].Text == nil || *d.calls[1].Text != "Thanks Ada,\nspeak soon." {
		t.Fatalf("edited decision: %+v", d.calls)
	}
	// Another organization's item is not found; nothing is decided.
	for _, action := range []string{"approve", "dismiss"} {
		if p := c.post("/app/needs-human/"+foreign+"/"+action, url.Values{"confirm": {"yes"}}); p.Status != http.StatusNotFound {
			t.Errorf("%s another organization's item: %d", action, p.Status)
		}
	}
	if p := c.post("/app/needs-human/"+foreign+"/approve", url.Values{}); p.Status != http.StatusNotFound {
		t.Errorf("the confirmation page of another organization's item: %d", p.Status)
	}
	if len(d.calls) != 2 {
		t.Fatalf("decisions: %+v", d.calls)
	}
}
