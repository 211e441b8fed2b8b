package storage_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// undoWorld is an organization with one seat, one campaign and people placed in it by hand.
type undoWorld struct {
	t        *testing.T
	st       *storage.Store
	org      string
	campaign string
	seat     string
}

func newUndoWorld(t *testing.T) undoWorld {
	t.Helper()
	st := testenv.Store(t)
	o, err := st.CreateOrg(context.Background(), "Undo org", nil)
	if err != nil {
		t.Fatal(err)
	}
	w := undoWorld{t: t, st: st, org: o.ID, campaign: outreach.NewID("cmp"), seat: outreach.NewID("acc")}
	pcExec(t, st, `INSERT INTO campaigns (id, org_id, name, status, schedule, engine_next_at)
		VALUES ($1, $2, 'Founders', 'active', '{}', $3)`, w.campaign, w.org, time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC))
	pcExec(t, st, `INSERT INTO linkedin_accounts (id, org_id, name, provider_account_id) VALUES ($1, $2, 'Seat', $1)`, w.seat, w.org)
	return w
}

// person adds a prospect at step with its next step due at next (nil: none), a chat, and an
// open follow-up due at next.
func (w undoWorld) person(handle string, step int, next *time.Time) (prospect, chat string) {
	w.t.Helper()
	prospect, chat = outreach.NewID("prs"), outreach.NewID("cht")
	pcExec(w.t, w.st, `INSERT INTO prospects (id, org_id, campaign_id, lead_key, linkedin_id, name, status, source,
			current_step, next_step_at, linkedin_url, filter_verdict)
		VALUES ($1, $2, $3, 'in:' || $4, $4, initcap($4) || ' Person', 'connected', 'api', $5, $6,
			'https://www.linkedin.com/in/' || $4, 'accepted')`, prospect, w.org, w.campaign, handle, step, next)
	pcExec(w.t, w.st, `INSERT INTO chats (id, org_id, account_id, provider_chat_id, lead_key, prospect_id, attendee_name)
		VALUES ($1, $2, $3, $1, 'in:' || $4, $5, $4)`, chat, w.org, w.seat, handle, prospect)
	if next != nil {
		pcExec(w.t, w.st, `INSERT INTO followups (id, org_id, prospect_id, chat_id, due_at, step) VALUES ($1, $2, $3, $4, $5, $6)`,
			outreach.NewID("fup"), w.org, prospect, chat, *next, step)
	}
	return prospect, chat
}

func ref(t *testing.T, input string) storage.PersonRef {
	t.Helper()
	p, err := outreach.NormalizeProfile(input)
	if err != nil {
		t.Fatal(err)
	}
	return storage.NewPersonRef(p)
}

type seqState struct {
	Step      int
	Next      *time.Time
	Paused    bool
	Stopped   bool // replies stopped on the prospect
	OpenFups  int
	FupDue    *time.Time
	CampNext  time.Time
	ChatStops bool
}

func (w undoWorld) state(prospect, chat string) seqState {
	w.t.Helper()
	var s seqState
	err := w.st.Pool().QueryRow(context.Background(), `SELECT p.current_step, p.next_step_at, p.paused_at IS NOT NULL,
			p.replies_stopped_at IS NOT NULL,
			(SELECT count(*) FROM followups f WHERE f.prospect_id = p.id AND f.closed_at IS NULL),
			(SELECT max(due_at) FROM followups f WHERE f.prospect_id = p.id AND f.closed_at IS NULL),
			c.engine_next_at, (SELECT replies_stopped_at IS NOT NULL FROM chats WHERE id = $2)
		FROM prospects p JOIN campaigns c ON c.id = p.campaign_id WHERE p.id = $1`, prospect, chat).
		Scan(&s.Step, &s.Next, &s.Paused, &s.Stopped, &s.OpenFups, &s.FupDue, &s.CampNext, &s.ChatStops)
	if err != nil {
		w.t.Fatal(err)
	}
	return s
}

// TestResumeRestoresTheExactPosition: a stop keeps the step and the time left until the next
// step; a resume days later gives both back, counted from the resume, with the follow-up open
// again and the campaign looked at by then.
func TestResumeRestoresTheExactPosition(t *testing.T) {
	t.Parallel()
	w := newUndoWorld(t)
	ctx := context.Background()
	t0 := time.Date(2030, 3, 2, 10, 0, 0, 0, time.UTC)
	next := t0.Add(2*24*time.Hour + 3*time.Hour) // 51 hours left at the stop
	p, chat := w.person("ada", 2, &next)
	pending, pchat := w.person("ben", 0, nil) // not started: nothing scheduled

	res, err := w.st.StopPeople(ctx, w.org, []storage.PersonRef{ref(t, "ada"), ref(t, "linkedin.com/in/ben")}, "user:usr_1", t0)
	if err != nil || !res[0].Found || res[0].CampaignsPaused != 1 || res[0].FollowupsClosed != 1 {
		t.Fatalf("stop: %+v %v", res, err)
	}
	if s := w.state(p, chat); !s.Paused || s.Next != nil || s.OpenFups != 0 || !s.Stopped || !s.ChatStops {
		t.Fatalf("after the stop: %+v", s)
	}
	stopped, total, err := w.st.ListStopped(ctx, storage.PeopleQuery{OrgID: w.org, Limit: 10})
	if err != nil || total != 2 || len(stopped) != 2 {
		t.Fatalf("stopped list: %d %+v %v", total, stopped, err)
	}
	var ada storage.StoppedPerson
	for _, sp := range stopped {
		if sp.Key == "in:ada" {
			ada = sp
		}
	}
	if ada.Name != "Ada Person" || ada.Value != "https://www.linkedin.com/in/ada" || *ada.StoppedBy != "user:usr_1" ||
		len(ada.Sequences) != 1 || ada.Sequences[0].CurrentStep != 2 || *ada.Sequences[0].TimeLeft != 51*time.Hour {
		t.Fatalf("ada as listed: %+v %+v", ada, ada.Sequences)
	}
	if got, _, _ := w.st.ListStopped(ctx, storage.PeopleQuery{OrgID: w.org, Text: "BEN p", Limit: 10}); len(got) != 1 || got[0].Key != "in:ben" {
		t.Fatalf("search by name: %+v", got)
	}

	t1 := t0.Add(5 * 24 * time.Hour)
	rr, err := w.st.ResumePeople(ctx, w.org, []storage.PersonRef{ref(t, "https://www.linkedin.com/in/ada/"), ref(t, "ben"), ref(t, "nobody")}, t1)
	if err != nil || !rr[0].Found || rr[0].SequencesResumed != 1 || !rr[0].RepliesResumed || !rr[1].Found || rr[2].Found {
		t.Fatalf("resume: %+v %v", rr, err)
	}
	want := t1.Add(51 * time.Hour)
	s := w.state(p, chat)
	if s.Paused || s.Step != 2 || s.Next == nil || !s.Next.Equal(want) || s.Stopped || s.ChatStops ||
		s.OpenFups != 1 || !s.FupDue.Equal(want) || !s.CampNext.Equal(want) {
		t.Fatalf("after the resume: %+v, want the next step at %s", s, want)
	}
	if s := w.state(pending, pchat); s.Paused || s.Next != nil || s.Stopped {
		t.Fatalf("the person not started yet after the resume: %+v (the engine admits them as before)", s)
	}
	if _, total, _ := w.st.ListStopped(ctx, storage.PeopleQuery{OrgID: w.org, Limit: 10}); total != 0 {
		t.Fatalf("still listed as stopped: %d", total)
	}
	// A second resume finds nobody stopped.
	if rr, _ := w.st.ResumePeople(ctx, w.org, []storage.PersonRef{ref(t, "ada")}, t1); rr[0].Found {
		t.Fatalf("resumed twice: %+v", rr)
	}
}

// TestBlockThenUnblock: a block lists the person as blocked (not stopped), ends their sequence
// for good; unblocking takes the entry off the list and lets replies reach them again, while the
// ended sequence stays ended. Removing a company entry is plain.
func TestBlockThenUnblock(t *testing.T) {
	t.Parallel()
	w := newUndoWorld(t)
	ctx := context.Background()
	t0 := time.Date(2030, 3, 2, 10, 0, 0, 0, time.UTC)
	next := t0.Add(time.Hour)
	p, chat := w.person("cleo", 1, &next)
	if _, err := w.st.StopPeople(ctx, w.org, []storage.PersonRef{ref(t, "cleo")}, "", t0); err != nil {
		t.Fatal(err)
	}
	reason := "asked us to stop"
	if _, err := w.st.BlockPeople(ctx, w.org, []storage.PersonRef{ref(t, "cleo")}, &reason, "user:usr_2", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, n, _ := w.st.ListStopped(ctx, storage.PeopleQuery{OrgID: w.org, Limit: 10}); n != 0 {
		t.Fatalf("a blocked person is still listed as stopped (%d)", n)
	}
	blocked, n, err := w.st.ListBlocked(ctx, storage.PeopleQuery{OrgID: w.org, Text: "asked", Limit: 10})
	if err != nil || n != 1 || blocked[0].Name != "Cleo Person" || *blocked[0].Reason != reason || *blocked[0].BlockedBy != "user:usr_2" {
		t.Fatalf("blocked list: %d %+v %v", n, blocked, err)
	}
	if _, n, _ := w.st.ListBlacklist(ctx, storage.BlacklistQuery{OrgID: w.org, ListedOnly: true, Limit: 10}); n != 0 {
		t.Fatalf("the block shows among the listed entries (%d)", n)
	}
	ur, err := w.st.UnblockPeople(ctx, w.org, []storage.PersonRef{ref(t, "linkedin.com/in/CLEO"), ref(t, "dan")})
	if err != nil || !ur[0].Found || !ur[0].RepliesResumed || ur[1].Found {
		t.Fatalf("unblock: %+v %v", ur, err)
	}
	s := w.state(p, chat)
	if s.Next != nil || s.Stopped || s.ChatStops {
		t.Fatalf("after the unblock: %+v (replies may reach them; the ended sequence stays ended)", s)
	}
	var status string
	if err := w.st.Pool().QueryRow(ctx, `SELECT status FROM prospects WHERE id = $1`, p).Scan(&status); err != nil || status != "opted_out" {
		t.Fatalf("status %q %v", status, err)
	}
	if _, n, _ := w.st.ListBlacklist(ctx, storage.BlacklistQuery{OrgID: w.org, Limit: 10}); n != 0 {
		t.Fatalf("the entry is still listed (%d)", n)
	}

	if _, err := w.st.AddBlacklist(ctx, w.org, []storage.BlacklistEntry{{Type: "company", Key: "name:globex", Value: "Globex 50%_off"}}); err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]int{"globex": 1, "50%_": 1, "5_%": 0, "%": 1, "initech": 0} {
		if _, n, _ := w.st.ListBlacklist(ctx, storage.BlacklistQuery{OrgID: w.org, Text: text, Limit: 10}); n != want {
			t.Errorf("search %q found %d, want %d", text, n, want)
		}
	}
	for i, want := range []bool{true, false} {
		if found, err := w.st.RemoveBlacklist(ctx, w.org, outreach.BlacklistKey{Type: "company", Key: "name:globex"}); err != nil || found != want {
			t.Fatalf("remove #%d: %v %v", i+1, found, err)
		}
	}
}

// An upgrade from release 085, which kept no list of the people stopped or blocked: migration 086
// lists a stopped prospect and a stopped stranger, and marks as blocks the entries a block made
// (with a reason, or stamped with the person's stop time), not an entry added to the list.
func TestUpgradeListsPeopleStoppedAndBlocked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := testenv.OpenStores(t, testenv.EmptyDatabaseURL(t), 4)
	if err := st.MigrateThrough(ctx, "085_delivery_dedupe_per_payload"); err != nil {
		t.Fatal(err)
	}
	o, err := st.CreateOrg(ctx, "o", nil)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, q := range []string{
		`INSERT INTO campaigns (id, org_id, name, status, schedule) VALUES ('cmp_u', $1, 'C', 'active', '{}')`,
		`INSERT INTO linkedin_accounts (id, org_id, name, provider_account_id) VALUES ('acc_u', $1, 'Seat', 'acc_u')`,
		// stopped: a prospect, and a stranger known only by a chat
		`INSERT INTO prospects (id, org_id, campaign_id, lead_key, linkedin_id, name, status, source, linkedin_url, replies_stopped_at, paused_at)
			VALUES ('prs_stop', $1, 'cmp_u', 'in:sam', 'sam', 'Sam', 'connected', 'api', 'https://www.linkedin.com/in/sam', $2, $2)`,
		`INSERT INTO chats (id, org_id, account_id, provider_chat_id, attendee_name, attendee_provider_id, replies_stopped_at)
			VALUES ('cht_x', $1, 'acc_u', 'cht_x', 'Xena', 'ACoAAXenaXenaXenaXenaXenaXenaXenaXe', $2)`,
		// blocked without a reason: the entry carries the person's stop time
		`INSERT INTO prospects (id, org_id, campaign_id, lead_key, linkedin_id, name, status, source, replies_stopped_at)
			VALUES ('prs_blk', $1, 'cmp_u', 'in:bo', 'bo', 'Bo', 'opted_out', 'api', $2)`,
		`INSERT INTO blacklist (org_id, type, key, value, created_at) VALUES ($1, 'account', 'in:bo', 'bo', $2)`,
		// blocked with a reason; and an entry added to the list
		`INSERT INTO blacklist (org_id, type, key, value, reason, created_at) VALUES ($1, 'account', 'in:rae', 'rae', 'rude', $2)`,
		`INSERT INTO blacklist (org_id, type, key, value, created_at) VALUES ($1, 'account', 'in:lee', 'lee', $2::timestamptz - interval '1 day')`,
	} {
		args := []any{o.ID}
		if strings.Contains(q, "$2") {
			args = append(args, at)
		}
		pcExec(t, st, q, args...)
	}
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	stopped, _, err := st.ListStopped(ctx, storage.PeopleQuery{OrgID: o.ID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range stopped {
		got[p.Key] = p.Name + " " + p.Value
	}
	if len(got) != 2 || got["in:sam"] != "Sam https://www.linkedin.com/in/sam" ||
		got["id:ACoAAXenaXenaXenaXenaXenaXenaXenaXe"] != "Xena ACoAAXenaXenaXenaXenaXenaXenaXenaXe" {
		t.Fatalf("stopped after the upgrade: %v", got)
	}
	blocked, _, err := st.ListBlocked(ctx, storage.PeopleQuery{OrgID: o.ID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, b := range blocked {
		keys[b.Key] = true
	}
	if len(keys) != 2 || !keys["in:bo"] || !keys["in:rae"] {
		t.Fatalf("blocked after the upgrade: %v", keys)
	}
	if listed, _, _ := st.ListBlacklist(ctx, storage.BlacklistQuery{OrgID: o.ID, ListedOnly: true, Limit: 10}); len(listed) != 1 || listed[0].Key != "in:lee" {
		t.Fatalf("listed entries after the upgrade: %+v", listed)
	}
}
