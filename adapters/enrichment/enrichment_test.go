package enrichment

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"outreachd/outreach"
)

func newSim(t *testing.T, cfg SimConfig) *Simulator {
	t.Helper()
	s, err := NewSimulator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSimulatorDeterministic(t *testing.T) {
	ctx := context.Background()
	a, b, other := newSim(t, SimConfig{Seed: 1}), newSim(t, SimConfig{Seed: 1}), newSim(t, SimConfig{Seed: 2})
	differs := false
	for i := range 200 {
		req := outreach.LookupRequest{ProfileKey: fmt.Sprintf("linkedin.com/in/p-%d", i)}
		pa, errA := a.Enrich(ctx, req)
		pb, errB := b.Enrich(ctx, req)
		if !reflect.DeepEqual(pa, pb) || (errA == nil) != (errB == nil) {
			t.Fatalf("%s: same seed, different answers: %+v / %+v", req.ProfileKey, pa, pb)
		}
		po, _ := other.Enrich(ctx, req)
		differs = differs || !reflect.DeepEqual(pa, po)
	}
	if !differs {
		t.Fatal("a different seed gave the same 200 people")
	}
}

func TestSimulatorCoverage(t *testing.T) {
	ctx := context.Background()
	s := newSim(t, SimConfig{Seed: 5})
	var notFound, noIndustry, noSize, full int
	for i := range 1000 {
		p, err := s.Enrich(ctx, outreach.LookupRequest{ProfileKey: fmt.Sprintf("k%d", i)})
		switch {
		case errors.Is(err, ErrNotFound):
			notFound++
			continue
		case err != nil:
			t.Fatal(err)
		case !p.Found:
			t.Fatal("found person without Found")
		}
		if p.Industry == nil {
			noIndustry++
		}
		if p.CompanySize == nil {
			noSize++
		}
		if p.Role != nil && p.Company != nil && p.Industry != nil && p.Location != nil && p.FollowerCount != nil {
			full++
		}
	}
	// Rough shares, so that unknown-only rejections and not-found leads occur in a demo.
	if notFound == 0 || notFound > 60 || noIndustry < 50 || noSize < 80 || full < 500 {
		t.Fatalf("notFound=%d noIndustry=%d noSize=%d full=%d", notFound, noIndustry, noSize, full)
	}
}

func TestSimulatorKeepsPushedFields(t *testing.T) {
	s := newSim(t, SimConfig{})
	for i := range 50 {
		req := outreach.LookupRequest{ProfileKey: fmt.Sprintf("k%d", i), Company: "Acme GmbH", Title: "CFO", Location: "Vienna, Austria"}
		p, err := s.Enrich(context.Background(), req)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil || *p.Company != "Acme GmbH" || *p.Role != "CFO" || *p.Location != "Vienna, Austria" {
			t.Fatalf("%+v, %v", p, err)
		}
		if p.CompanyLinkedInURL != nil && *p.CompanyLinkedInURL != "https://www.linkedin.com/company/acme-gmbh" {
			t.Fatalf("company page %q", *p.CompanyLinkedInURL)
		}
	}
}

func TestSimulatorLatencyHonoursContext(t *testing.T) {
	s := newSim(t, SimConfig{Latency: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := s.Enrich(ctx, outreach.LookupRequest{ProfileKey: "k"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}
