package outreach

import "testing"

func TestDerivedID(t *testing.T) {
	ev := NewID("evt")
	a, b := DerivedID("dlv", ev, "dst_1"), DerivedID("dlv", ev, "dst_1")
	if a != b {
		t.Fatalf("same inputs, two ids: %s %s", a, b)
	}
	if !ValidID("dlv", a) {
		t.Fatalf("%s is not a valid dlv id", a)
	}
	if c := DerivedID("dlv", ev, "dst_2"); c == a {
		t.Fatalf("two destinations share id %s", c)
	}
	if c := DerivedID("dlv", NewID("evt"), "dst_1"); c == a {
		t.Fatalf("two events share id %s", c)
	}
	// The time prefix is the event's, so derived ids sort with their events.
	if a[4:13] != ev[4:13] {
		t.Fatalf("time prefix %s, event's %s", a[4:13], ev[4:13])
	}
	if !ValidID("dlv", DerivedID("dlv", "not-an-id", "x")) {
		t.Fatal("a parent that is not an id must still give a valid id")
	}
}
