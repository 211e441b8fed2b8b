package delivery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"outreachd/adapters/slack"
	"outreachd/adapters/webhook"
	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// hubEnv is a running hub on a fresh database, with one organization.
type hubEnv struct {
	st  *storage.Store
	ds  *delivery.Store
	hub *delivery.Hub
	reg *prometheus.Registry
	org string
	box *delivery.SecretBox
}

type hubOpts struct {
	schedule       []time.Duration
	timeout        time.Duration
	allowPrivate   bool
	noRun          bool
	perDestination int           // 0: the hub's default
	idleWake       time.Duration // 0: the hub's default
	traces         trace.TracerProvider
}

func startHub(t *testing.T, o hubOpts) *hubEnv {
	t.Helper()
	if o.schedule == nil {
		o.schedule = []time.Duration{0, 200 * time.Millisecond, 400 * time.Millisecond, 600 * time.Millisecond}
	}
	if o.timeout == 0 {
		o.timeout = 2 * time.Second
	}
	st, ds := testenv.Stores(t)
	ctx := context.Background()
	org := testenv.StoreOrg(t, st)
	box, err := delivery.NewSecretBox(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	sender := webhook.NewSender(webhook.Config{Timeout: o.timeout, AllowPrivate: o.allowPrivate})
	sl, err := slack.New(sender.Client(), slack.Config{})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	hub, err := delivery.NewHub(ds, sender, sl, reg, delivery.Config{
		Timeout: o.timeout, RetrySchedule: o.schedule, Secrets: box, PerDestination: o.perDestination, IdleWake: o.idleWake,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), Traces: o.traces,
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &hubEnv{st: st, ds: ds, hub: hub, reg: reg, org: org, box: box}
	if !o.noRun {
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- hub.Run(runCtx) }()
		t.Cleanup(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("hub.Run: %v", err)
				}
			case <-time.After(15 * time.Second):
				t.Error("hub did not stop within 15 s")
			}
		})
	}
	return e
}

// destination creates an https destination of the env's organization.
func (e *hubEnv) destination(t *testing.T, url, secret string, events ...string) delivery.Destination {
	t.Helper()
	d := delivery.Destination{OrgID: e.org, Name: "d", Kind: outreach.DestinationHTTPS, URL: url, Events: events, Enabled: true}
	if secret != "" {
		sealed, err := e.box.Seal(secret)
		if err != nil {
			t.Fatal(err)
		}
		d.SecretSealed = &sealed
	}
	out, err := e.ds.CreateDestination(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// emit commits events in one transaction, as a business change would.
func (e *hubEnv) emit(t *testing.T, evs ...outreach.Event) {
	t.Helper()
	if err := e.st.InTx(context.Background(), func(tx *storage.Tx) error {
		for _, ev := range evs {
			tx.Emit(ev)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// sample is a campaign_started event whose campaign id identifies it at the receiver.
func sample(org string) outreach.Event {
	return outreach.SampleEvent(outreach.EventCampaignStarted, org, time.Now())
}

// received is one request a receiver got.
type received struct {
	at     time.Time
	header http.Header
	body   []byte
}

// campaignID reads the identifying campaign id out of a received envelope.
func (r received) campaignID() string {
	var ev outreach.Event
	_ = json.Unmarshal(r.body, &ev)
	if ev.Data.Campaign == nil {
		return ""
	}
	return ev.Data.Campaign.ID
}

// receiver is a local HTTP endpoint that records every request and answers with handle.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []received
	notify chan struct{}
}

func newReceiver(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int)) *receiver {
	t.Helper()
	rc := &receiver{notify: make(chan struct{}, 1)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, received{at: time.Now(), header: r.Header.Clone(), body: body})
		n := len(rc.got)
		rc.mu.Unlock()
		select {
		case rc.notify <- struct{}{}:
		default:
		}
		if handle != nil {
			handle(w, r, n)
		}
	}))
	t.Cleanup(func() { rc.CloseClientConnections(); rc.Close() })
	return rc
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// waitFor waits until cond holds over the requests received, or fails after d.
func (rc *receiver) waitFor(t *testing.T, d time.Duration, what string, cond func([]received) bool) []received {
	t.Helper()
	deadline := time.After(d)
	for {
		got := rc.requests()
		if cond(got) {
			return got
		}
		select {
		case <-rc.notify:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out after %s waiting for %s; got %d requests", d, what, len(got))
		}
	}
}

func atLeast(n int) func([]received) bool { return func(r []received) bool { return len(r) >= n } }

// waitFinished waits until every delivery of the destination is finished and returns them.
func (e *hubEnv) waitFinished(t *testing.T, destID string, want int, d time.Duration) []delivery.DeliveryLogEntry {
	t.Helper()
	var list []delivery.DeliveryLogEntry
	testenv.Eventually(t, d, func() (bool, string) {
		var err error
		list, _, err = e.ds.DeliveryLog(context.Background(), e.org, delivery.DeliveryLogQuery{DestinationID: destID, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		done := 0
		for _, l := range list {
			if l.Status != delivery.DeliveryPending {
				done++
			}
		}
		return len(list) >= want && done == len(list),
			fmt.Sprintf("deliveries of %s not finished: %d of %d (want %d)", destID, done, len(list), want)
	})
	return list
}

func isNotFound(err error) bool { return errors.Is(err, outreach.ErrNotFound) }
