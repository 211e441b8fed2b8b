package outreach

import (
	"testing"
	"time"
)

func TestIDTime(t *testing.T) {
	before := time.Now().Truncate(time.Millisecond)
	id := NewID("evt")
	got, ok := IDTime(id)
	if !ok || got.Before(before) || got.After(time.Now()) {
		t.Fatalf("IDTime(%s) = %v, %v; want about %v", id, got, ok, before)
	}
	if d, ok := IDTime(DerivedID("dlv", id, "dst_x")); !ok || !d.Equal(got) {
		t.Errorf("a derived id carries its parent's time: %v, %v; want %v", d, ok, got)
	}
	for _, bad := range []string{"", "evt", "evt_short", "nounderscore"} {
		if _, ok := IDTime(bad); ok {
			t.Errorf("IDTime(%q) ok", bad)
		}
	}
}
