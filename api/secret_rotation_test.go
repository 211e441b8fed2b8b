package api_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"outreachd/delivery"
	"outreachd/internal/testenv"
)

// sigReceiver records every delivery's headers and body.
type sigReceiver struct {
	*httptest.Server
	mu  sync.Mutex
	got []received
}

func newSigReceiver(t *testing.T) *sigReceiver {
	rc := &sigReceiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, received{header: r.Header.Clone(), body: b})
		rc.mu.Unlock()
	}))
	t.Cleanup(rc.Close)
	return rc
}

// find waits for the first delivery after the first `after` ones whose body contains marker.
func (rc *sigReceiver) find(t *testing.T, after int, marker string) received {
	t.Helper()
	var r received
	testenv.Eventually(t, 15*time.Second, func() (bool, string) {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		for i := after; i < len(rc.got); i++ {
			if strings.Contains(string(rc.got[i].body), marker) {
				r = rc.got[i]
				return true, ""
			}
		}
		return false, fmt.Sprintf("no delivery with %s among %d", marker, len(rc.got))
	})
	return r
}

func (rc *sigReceiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.got)
}

// TestSecretRotationOverlap: PATCHing a destination's secret keeps the old one for
// SECRET_ROTATION_OVERLAP. Meanwhile webhook-signature carries two v1 signatures (new first) and
// X-Service-Signature is on the new secret, for Test sends and for real events alike; after the
// window only the new secret signs.
func TestSecretRotationOverlap(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "SECRET_ROTATION_OVERLAP=6s", "RATE_LIMIT_PER_MINUTE=100000")
	org := testenv.NewOrg(t, srv)
	rc := newSigReceiver(t)
	const oldSecret, newSecret = "whsec_b2xkLXNlY3JldC1vbGQtc2VjcmV0LW9sZA==", "whsec_bmV3LXNlY3JldC1uZXctc2VjcmV0LW5ldw=="
	d := createDest(t, org.Write, map[string]any{"url": rc.URL + "/hook", "secret": oldSecret, "events": "all"})
	id := d["id"].(string)
	if d["secret_rotation_ends_at"] != nil {
		t.Fatalf("a fresh destination is rotating: %v", d)
	}
	p := org.Write.Do(t, "PATCH", "/api/v1/destinations/"+id, map[string]any{"secret": newSecret})
	wantStatus(t, p, 200)
	ends, _ := data(t, p)["secret_rotation_ends_at"].(string)
	endsAt, err := time.Parse(time.RFC3339Nano, ends)
	if err != nil {
		t.Fatalf("PATCH answer has no secret_rotation_ends_at: %s", p.Body)
	}

	both := func(t *testing.T, r received) {
		t.Helper()
		sigs := strings.Fields(r.header.Get("webhook-signature"))
		if len(sigs) != 2 {
			t.Fatalf("webhook-signature = %q, want two v1 signatures", r.header.Get("webhook-signature"))
		}
		now := time.Now()
		for i, secret := range []string{newSecret, oldSecret} {
			h := r.header.Clone()
			h.Set("webhook-signature", sigs[i])
			if err := delivery.VerifyStandard(secret, h, r.body, now, 0); err != nil {
				t.Errorf("signature %d does not verify with the %s secret: %v", i, []string{"new", "old"}[i], err)
			}
		}
		if err := delivery.VerifyHex(newSecret, r.header, r.body); err != nil {
			t.Errorf("X-Service-Signature is not on the new secret: %v", err)
		}
		if delivery.VerifyHex(oldSecret, r.header, r.body) == nil {
			t.Error("X-Service-Signature verifies with the old secret")
		}
	}
	wantStatus(t, org.Write.Do(t, "POST", "/api/v1/destinations/"+id+"/test", map[string]any{"event": "reply_received"}), 200)
	both(t, rc.find(t, 0, `"test":true`))
	// A real event through the hub.
	camp := cpCreate(t, org.Write, map[string]any{"name": "Rotation"})["id"].(string)
	wantStatus(t, org.Write.Do(t, "POST", "/api/v1/campaigns/"+camp+"/leads", map[string]any{"leads": []any{lead("rot-ron")}}), 202)
	both(t, rc.find(t, 0, `"prospect_added"`))

	// After the window the old secret is dropped: the destination stops showing the rotation
	// at the latest a moment after secret_rotation_ends_at, and only then is the next send checked.
	testenv.Eventually(t, time.Until(endsAt)+time.Second, func() (bool, string) {
		g := org.Read.Do(t, "GET", "/api/v1/destinations/"+id, nil)
		return data(t, g)["secret_rotation_ends_at"] == nil, "rotation still shown: " + string(g.Body)
	})
	n := rc.count()
	wantStatus(t, org.Write.Do(t, "POST", "/api/v1/destinations/"+id+"/test", map[string]any{"event": "reply_received"}), 200)
	r := rc.find(t, n, `"test":true`)
	if sigs := strings.Fields(r.header.Get("webhook-signature")); len(sigs) != 1 {
		t.Fatalf("after the window webhook-signature = %q", r.header.Get("webhook-signature"))
	}
	if err := delivery.VerifyStandard(newSecret, r.header, r.body, time.Now(), 0); err != nil {
		t.Fatal(err)
	}
	if delivery.VerifyStandard(oldSecret, r.header, r.body, time.Now(), 0) == nil {
		t.Fatal("the old secret still signs after the window")
	}
}
