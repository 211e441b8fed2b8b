package main_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"outreachd/internal/testenv"
)

// hooks is a webhook receiver that keeps the headers of every request it answers (200).
type hooks struct {
	mu      sync.Mutex
	headers []http.Header
	URL     string
}

func newHooks(t *testing.T) *hooks {
	h := &hooks{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.headers = append(h.headers, r.Header.Clone())
		h.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	h.URL = srv.URL
	return h
}

// find returns the headers of the first request whose X-Service-Event is kind and that match
// keep, waiting for one.
func (h *hooks) find(t *testing.T, kind string, keep func(http.Header) bool) http.Header {
	t.Helper()
	var got http.Header
	testenv.EventuallyTrue(t, 20*time.Second, "a webhook request for "+kind, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, hdr := range h.headers {
			if hdr.Get("X-Service-Event") == kind && keep(hdr) {
				got = hdr
				return true
			}
		}
		return false
	})
	return got
}

// traceParent splits a W3C traceparent header into its trace and span ids.
func traceParent(t *testing.T, v string) testenv.SpanRef {
	t.Helper()
	parts := strings.Split(v, "-")
	if len(parts) != 4 || parts[0] != "00" || len(parts[1]) != 32 || len(parts[2]) != 16 || len(parts[3]) != 2 {
		t.Fatalf("traceparent %q is not W3C version 00", v)
	}
	return testenv.SpanRef{TraceID: parts[1], SpanID: parts[2]}
}

// exported waits for an exported span that matches and returns it.
func exported(t *testing.T, c *testenv.Collector, what string, match func(testenv.Span) bool) testenv.Span {
	t.Helper()
	var got testenv.Span
	testenv.Eventually(t, 20*time.Second, func() (bool, string) {
		spans := c.Spans()
		for _, s := range spans {
			if match(s) {
				got = s
				return true, ""
			}
		}
		return false, fmt.Sprintf("%s not among %d exported spans", what, len(spans))
	})
	return got
}

// spanRefIs matches the span it names.
type spanRefIs testenv.SpanRef

func (ref spanRefIs) match(s testenv.Span) bool {
	return s.TraceID == ref.TraceID && s.SpanID == ref.SpanID
}

// The span of a client that traces its calls to the API.
const callerTrace, callerSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"

// destinationAt creates a destination of org at url that receives prospect_added.
func destinationAt(t *testing.T, org testenv.Org, url string) string {
	t.Helper()
	r := org.Write.Do(t, "POST", "/api/v1/destinations", map[string]any{"url": url + "/hook", "events": []string{"prospect_added"}})
	if r.Status != 201 {
		t.Fatalf("create destination: %d %s", r.Status, r.Body)
	}
	return r.JSON["data"].(map[string]any)["id"].(string)
}

// pushTraced pushes one lead named name to a new campaign, as the caller's span: one
// prospect_added event.
func pushTraced(t *testing.T, org testenv.Org, name string) {
	t.Helper()
	r := org.Write.Do(t, "POST", "/api/v1/campaigns", map[string]any{"name": "Traces " + name})
	if r.Status != 200 {
		t.Fatalf("create campaign: %d %s", r.Status, r.Body)
	}
	campaign := r.JSON["item"].(map[string]any)["id"].(string)
	slug := strings.ToLower(strings.ReplaceAll(name, " ", "-"))
	if r := org.Write.Do(t, "POST", "/api/v1/campaigns/"+campaign+"/leads", map[string]any{"leads": []map[string]any{
		{"linkedin_url": "https://www.linkedin.com/in/" + slug, "name": name}}},
		"traceparent", "00-"+callerTrace+"-"+callerSpan+"-01"); r.Status != 202 {
		t.Fatalf("push: %d %s", r.Status, r.Body)
	}
}

// With OTEL_EXPORTER_OTLP_ENDPOINT set, a pushed lead is traced from the API request to the
// receiver: the webhook request carries a traceparent naming an exported delivery attempt span,
// which links to the exported span of the transaction that committed the event, a child of the
// request's span (service outreachd, the route template, the organization, continuing the
// caller's trace). A Test send from the operator CLI is traced in the CLI's own process.
func TestTracesFromRequestToReceiver(t *testing.T) {
	t.Parallel()
	collector, endpoint := testenv.StartCollector(t)
	rc := newHooks(t)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint, "OTEL_BSP_SCHEDULE_DELAY=50"}
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), env...)
	org := testenv.NewOrg(t, srv)

	dest := destinationAt(t, org, rc.URL)
	pushTraced(t, org, "Tracy Tracewell")

	hdr := rc.find(t, "prospect_added", func(http.Header) bool { return true })
	if err := testenv.LoadOpenAPI(t).CheckWebhookHeaders("event", hdr); err != nil {
		t.Errorf("webhook headers against docs/openapi.yaml: %v", err)
	}
	attemptRef := traceParent(t, hdr.Get("traceparent"))
	attempt := exported(t, collector, "the attempt's span", spanRefIs(attemptRef).match)
	want := map[string]any{"outreachd.destination_id": dest, "outreachd.event_kind": "prospect_added",
		"outreachd.attempt": int64(1), "http.response.status_code": int64(200)}
	for k, v := range want {
		if attempt.Attributes[k] != v {
			t.Errorf("attempt span %s = %v, want %v (%v)", k, attempt.Attributes[k], v, attempt.Attributes)
		}
	}
	if attempt.Name != "delivery.attempt" || attempt.Kind != tracepb.Span_SPAN_KIND_CLIENT || attempt.ParentSpanID != "" ||
		attempt.Service != "outreachd" || len(attempt.Links) != 1 {
		t.Fatalf("attempt span: %+v, want delivery.attempt, a client root span of service outreachd with one link", attempt)
	}
	if attempt.Links[0].TraceID == attempt.TraceID {
		t.Errorf("the attempt's span is in the committing trace %s; it should only link to it", attempt.TraceID)
	}

	committed := exported(t, collector, "the committing transaction's span", spanRefIs(attempt.Links[0]).match)
	if committed.Name != "storage.InTx" || committed.Attributes["outreachd.events"] != int64(1) {
		t.Fatalf("the attempt links to %+v, want the storage.InTx span that committed one event", committed)
	}
	request := exported(t, collector, "the request's span", spanRefIs{TraceID: committed.TraceID, SpanID: committed.ParentSpanID}.match)
	if request.Name != "POST /api/v1/campaigns/{id}/leads" || request.Kind != tracepb.Span_SPAN_KIND_SERVER ||
		request.Service != "outreachd" || request.Attributes["outreachd.org_id"] != org.ID ||
		request.Attributes["http.response.status_code"] != int64(202) || request.Attributes["http.route"] != "/api/v1/campaigns/{id}/leads" {
		t.Fatalf("the transaction's parent: %+v, want the push request's server span", request)
	}
	if request.TraceID != callerTrace || request.ParentSpanID != callerSpan {
		t.Errorf("the request's span is %s/%s, want it to continue the caller's trace %s under %s",
			request.TraceID, request.ParentSpanID, callerTrace, callerSpan)
	}
	fanout := exported(t, collector, "the fan-out's span", func(s testenv.Span) bool {
		return s.Name == "delivery.fanout" && s.ParentSpanID == committed.SpanID
	})
	if fanout.Attributes["outreachd.deliveries"] != int64(1) {
		t.Errorf("fan-out span attributes %v, want 1 delivery", fanout.Attributes)
	}

	// The operator CLI traces its command: a Test send's request names an attempt span whose
	// parent is the command's span, both exported before the command exits.
	out, errOut, code := testenv.AdminRawEnv(t, srv.DBURL, env, "destination", "test", "--destination", dest)
	if code != 0 {
		t.Fatalf("admin destination test: exit %d: %s %s", code, out, errOut)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil || res["ok"] != true {
		t.Fatalf("admin destination test: %s", out)
	}
	cliHdr := rc.find(t, "prospect_added", func(h http.Header) bool { return h.Get("webhook-id") != hdr.Get("webhook-id") })
	cliRef := traceParent(t, cliHdr.Get("traceparent"))
	testAttempt := exported(t, collector, "the Test send's attempt span", spanRefIs(cliRef).match)
	command := exported(t, collector, "the CLI command's span", spanRefIs{TraceID: testAttempt.TraceID, SpanID: testAttempt.ParentSpanID}.match)
	if testAttempt.Attributes["outreachd.trigger"] != "test" || command.Name != "admin destination test" {
		t.Errorf("Test send attempt %+v under %+v, want a test attempt under the admin command's span", testAttempt, command)
	}

	// Ids and kinds only: no key and no lead's text in any span.
	for _, s := range collector.Spans() {
		raw, _ := json.Marshal(s)
		for _, secret := range []string{org.WriteKey, "Tracy Tracewell", "tracy-tracewell"} {
			if strings.Contains(string(raw), secret) {
				t.Errorf("span %s holds %q: %s", s.Name, secret, raw)
			}
		}
	}
}

// Tracing is off without an endpoint, and with OTEL_SDK_DISABLED=true even with one: webhook
// requests carry no traceparent, and the collector named by the endpoint is never called, also
// not by the flush of a graceful stop.
func TestTracesOff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  func(endpoint string) []string
	}{
		{"no endpoint", func(string) []string { return []string{"OTEL_SERVICE_NAME=unused"} }},
		{"SDK disabled", func(endpoint string) []string {
			return []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint, "OTEL_SDK_DISABLED=true", "OTEL_BSP_SCHEDULE_DELAY=50"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			collector, endpoint := testenv.StartCollector(t)
			rc := newHooks(t)
			env := tc.env(endpoint)
			srv := testenv.StartServer(t, testenv.DatabaseURL(t), env...)
			org := testenv.NewOrg(t, srv)
			dest := destinationAt(t, org, rc.URL)
			if r := org.Write.Do(t, "POST", "/api/v1/destinations/"+dest+"/test", nil); r.Status != 200 {
				t.Fatalf("test send: %d %s", r.Status, r.Body)
			}
			pushTraced(t, org, "Una Traced")
			testenv.EventuallyTrue(t, 20*time.Second, "the Test send's and the event's requests", func() bool {
				rc.mu.Lock()
				defer rc.mu.Unlock()
				return len(rc.headers) >= 2
			})
			if !srv.Stop(30 * time.Second) {
				t.Fatal("serve did not stop within 30 s")
			}
			rc.mu.Lock()
			defer rc.mu.Unlock()
			for _, h := range rc.headers {
				if v := h.Get("traceparent"); v != "" {
					t.Errorf("webhook request %s carries traceparent %q with tracing off", h.Get("webhook-id"), v)
				}
			}
			if spans, requests := collector.Counts(); spans != 0 || requests != 0 {
				t.Errorf("the collector got %d export requests (%d spans) with tracing off", requests, spans)
			}
		})
	}
}
