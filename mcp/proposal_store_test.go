package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

func newOrg(t *testing.T, st *storage.Store) string {
	t.Helper()
	o, err := st.CreateOrg(context.Background(), "Org", nil)
	if err != nil {
		t.Fatal(err)
	}
	return o.ID
}

// TestClaimProposalOnce races confirmations of one proposal: exactly one claims it; the others,
// a later one, another organization's and an expired proposal's are told why not.
func TestClaimProposalOnce(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ps := NewProposals(st)
	ctx := context.Background()
	org, other := newOrg(t, st), newOrg(t, st)
	now := time.Now()
	p, err := ps.create(ctx, proposal{OrgID: org, ProposedBy: "key:key_x", Tool: "create_campaign",
		Arguments: json.RawMessage(`{"name":"x"}`), Summary: "create x", ExpiresAt: now.Add(15 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ps.claim(ctx, other, p.ID, "key:key_o", now); !errors.Is(err, outreach.ErrNotFound) {
		t.Fatalf("another organization's claim: %v", err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, lost := 0, 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := ps.claim(ctx, org, p.ID, "key:key_y", now)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && got.Tool == "create_campaign" && string(got.Arguments) == `{"name": "x"}`:
				won++
			case errors.Is(err, errConfirmed):
				lost++
			default:
				t.Errorf("claim: %+v %v", got, err)
			}
		}()
	}
	wg.Wait()
	if won != 1 || lost != 7 {
		t.Fatalf("won %d, lost %d; want exactly one claim", won, lost)
	}

	old, err := ps.create(ctx, proposal{OrgID: org, ProposedBy: "key:key_x", Tool: "create_campaign",
		Arguments: json.RawMessage(`{}`), Summary: "s", ExpiresAt: now.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ps.claim(ctx, org, old.ID, "key:key_y", now.Add(2*time.Minute)); !errors.Is(err, errExpired) {
		t.Fatalf("expired claim: %v", err)
	}
}

func TestPruneProposals(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ps := NewProposals(st)
	ctx := context.Background()
	org := newOrg(t, st)
	now := time.Now()
	for _, exp := range []time.Time{now.Add(-proposalRetention - time.Hour), now.Add(-time.Hour), now.Add(time.Hour)} {
		if _, err := ps.create(ctx, proposal{OrgID: org, ProposedBy: "key:k", Tool: "t",
			Arguments: json.RawMessage(`{}`), Summary: "s", ExpiresAt: exp}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := ps.Prune(ctx, now); err != nil || n != 1 {
		t.Fatalf("pruned %d, %v; want the one expired over 30 days ago", n, err)
	}
}
