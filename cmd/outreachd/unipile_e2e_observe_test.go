package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"outreachd/internal/testenv"
	"outreachd/storage"
)

// What the end-to-end tests see of the service from outside: the events a destination of
// theirs receives, and the engine's passes (to show that something did not happen).

// eventSink is a destination receiving the service's events: every request it got, kept.
type eventSink struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []sunkEvent
}

// sunkEvent is one request the sink received.
type sunkEvent struct {
	ID      string // webhook-id: the delivery's id, the same on each attempt of it
	Kind    string
	Lead    string // data.prospect.lead_id
	Account string // data.account.account_id
	Data    map[string]any
}

// newEventSink starts a receiver and makes it a destination of org for kinds.
func newEventSink(t *testing.T, dbURL, orgID string, kinds ...string) *eventSink {
	t.Helper()
	s := &eventSink{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var env struct {
			Event string         `json:"event"`
			Data  map[string]any `json:"data"`
		}
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &env); err != nil {
			http.Error(w, "not JSON", http.StatusBadRequest)
			return
		}
		e := sunkEvent{ID: r.Header.Get("webhook-id"), Kind: env.Event, Data: env.Data}
		if p, ok := env.Data["prospect"].(map[string]any); ok {
			e.Lead, _ = p["lead_id"].(string)
		}
		if a, ok := env.Data["account"].(map[string]any); ok {
			e.Account, _ = a["account_id"].(string)
		}
		s.mu.Lock()
		s.got = append(s.got, e)
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(s.srv.Close)
	testenv.Admin(t, dbURL, "destination", "create", "--org", orgID, "--url", s.srv.URL, "--events", strings.Join(kinds, ","))
	return s
}

// events is every request received of kind, in order.
func (s *eventSink) events(kind string) []sunkEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []sunkEvent
	for _, e := range s.got {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// count is how many requests of kind arrived about key (a lead id or our seat id).
func (s *eventSink) count(kind, key string) int {
	n := 0
	for _, e := range s.events(kind) {
		if e.Lead == key || e.Account == key {
			n++
		}
	}
	return n
}

// requests is how many requests arrived in all.
func (s *eventSink) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

// settled waits until the hub has nothing left to send and every attempt it recorded reached
// the sink (deliveries are written in the transaction that commits their event), so that what
// the sink counts is all the service will send of what happened so far: a second event about
// the same fact would be counted, not on its way.
func (s *eventSink) settled(t *testing.T, db *storage.Store) {
	t.Helper()
	testenv.Eventually(t, 20*time.Second, func() (bool, string) {
		var open, attempts, queued int
		if err := db.Pool().QueryRow(context.Background(), `SELECT (SELECT count(*) FROM deliveries WHERE status <> 'succeeded'),
			(SELECT count(*) FROM delivery_attempts), (SELECT count(*) FROM delivery_queue)`).Scan(&open, &attempts, &queued); err != nil {
			t.Fatal(err)
		}
		got := s.requests()
		return open == 0 && queued == 0 && attempts == got,
			fmt.Sprintf("%d deliveries unfinished, %d queue rows, %d attempts for %d requests", open, queued, attempts, got)
	})
}

// waitEnginePass waits until every serving engine has made a whole pass begun after this call:
// an engine writes its heartbeat at the start of each pass, so a heartbeat after now and then
// another one after that one enclose a whole pass. A test that must show something did not
// happen waits for this instead of sleeping.
func waitEnginePass(t *testing.T, db *storage.Store) {
	t.Helper()
	ctx := context.Background()
	var start time.Time
	if err := db.Pool().QueryRow(ctx, `SELECT now()`).Scan(&start); err != nil {
		t.Fatal(err)
	}
	seen := func() map[string]time.Time {
		rows, err := db.Pool().Query(ctx, `SELECT id, seen_at FROM engine_instances`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]time.Time{}
		for rows.Next() {
			var id string
			var at time.Time
			if err := rows.Scan(&id, &at); err != nil {
				t.Fatal(err)
			}
			out[id] = at
		}
		return out
	}
	after := func(than func(id string) time.Time) (map[string]time.Time, bool, string) {
		now := seen()
		for id, at := range now {
			if !at.After(than(id)) {
				return now, false, fmt.Sprintf("engine %s last seen %s", id, at.Format(time.RFC3339Nano))
			}
		}
		return now, len(now) > 0, "no serving engine"
	}
	var first map[string]time.Time
	testenv.Eventually(t, 20*time.Second, func() (bool, string) {
		var ok bool
		var state string
		first, ok, state = after(func(string) time.Time { return start })
		return ok, "a heartbeat after the start: " + state
	})
	testenv.Eventually(t, 20*time.Second, func() (bool, string) {
		_, ok, state := after(func(id string) time.Time { return first[id] })
		return ok, "a second heartbeat: " + state
	})
}
