package testenv

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Collector is a local OTLP/HTTP trace receiver: it decodes every export request the
// OpenTelemetry SDK's exporter sends to /v1/traces (protobuf, gzipped or not) and keeps its spans,
// or only counts them (Discard), for the load driver's traced runs.
type Collector struct {
	// Discard counts the spans without keeping them.
	Discard bool

	mu       sync.Mutex
	spans    []Span
	count    int
	requests int
}

// Span is one exported span, as the collector decoded it.
type Span struct {
	Service      string // the resource's service.name
	Name         string
	Kind         tracepb.Span_SpanKind
	TraceID      string // hex, as in a traceparent header
	SpanID       string
	ParentSpanID string // "" for a root
	Attributes   map[string]any
	Links        []SpanRef
	StatusCode   tracepb.Status_StatusCode
	Status       string
}

// SpanRef names a span by its trace and span ids (hex).
type SpanRef struct{ TraceID, SpanID string }

// StartCollector runs a Collector on a local HTTP server for the test; its URL is the value
// of OTEL_EXPORTER_OTLP_ENDPOINT.
func StartCollector(t testing.TB) (*Collector, string) {
	t.Helper()
	c := &Collector{}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	return c, srv.URL
}

// ServeHTTP answers one export request.
func (c *Collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
		http.Error(w, "not an OTLP/HTTP trace export: "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	raw, err := io.ReadAll(body)
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(raw, &req)
	}
	if err != nil {
		http.Error(w, fmt.Sprintf("undecodable export request: %v", err), http.StatusBadRequest)
		return
	}
	c.add(&req)
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (c *Collector) add(req *coltracepb.ExportTraceServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	for _, rs := range req.GetResourceSpans() {
		service, _ := attributes(rs.GetResource().GetAttributes())["service.name"].(string)
		for _, ss := range rs.GetScopeSpans() {
			c.count += len(ss.GetSpans())
			if c.Discard {
				continue
			}
			for _, s := range ss.GetSpans() {
				sp := Span{Service: service, Name: s.GetName(), Kind: s.GetKind(), TraceID: hex.EncodeToString(s.GetTraceId()),
					SpanID: hex.EncodeToString(s.GetSpanId()), ParentSpanID: hex.EncodeToString(s.GetParentSpanId()),
					Attributes: attributes(s.GetAttributes()), StatusCode: s.GetStatus().GetCode(), Status: s.GetStatus().GetMessage()}
				for _, l := range s.GetLinks() {
					sp.Links = append(sp.Links, SpanRef{TraceID: hex.EncodeToString(l.GetTraceId()), SpanID: hex.EncodeToString(l.GetSpanId())})
				}
				c.spans = append(c.spans, sp)
			}
		}
	}
}

// attributes reads OTLP attributes into Go values: string, int64, bool or float64.
func attributes(kvs []*commonpb.KeyValue) map[string]any {
	out := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		switch v := kv.GetValue().GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			out[kv.GetKey()] = v.StringValue
		case *commonpb.AnyValue_IntValue:
			out[kv.GetKey()] = v.IntValue
		case *commonpb.AnyValue_BoolValue:
			out[kv.GetKey()] = v.BoolValue
		case *commonpb.AnyValue_DoubleValue:
			out[kv.GetKey()] = v.DoubleValue
		}
	}
	return out
}

// Spans returns the spans kept so far.
func (c *Collector) Spans() []Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Span(nil), c.spans...)
}

// Counts reports the spans and the export requests received so far.
func (c *Collector) Counts() (spans, requests int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count, c.requests
}
