package outreach

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestPayloadIdentity(t *testing.T) {
	at := time.Now()
	ev := SampleEvent(EventCallBooked, "org_a", at)
	same := NewEvent(ev.Kind, ev.OrgID, at.Add(time.Hour), ev.Data)
	otherOrg := NewEvent(ev.Kind, "org_b", at, ev.Data)
	otherKind := NewEvent(EventAutoBookingCreated, ev.OrgID, at, ev.Data)
	changed := ev
	d := *ev.Data.Booking
	d.Title += "!"
	changed.Data.Booking = &d
	id := func(e Event) []byte {
		b, err := e.Identity()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if !bytes.Equal(id(ev), id(same)) {
		t.Error("the same fact with another id and timestamp must collapse")
	}
	later := SampleEvent(EventReplyPositive, "org_a", at)
	again := NewEvent(later.Kind, later.OrgID, at.Add(time.Minute), later.Data)
	moved := *later.Data.Campaign
	stats := *moved.Stats
	stats.Replies++
	moved.Stats = &stats
	again.Data.Campaign = &moved
	if !bytes.Equal(id(later), id(again)) {
		t.Error("the same fact emitted again after the campaign's stats moved must collapse")
	}
	if later.Data.Campaign.Stats == nil {
		t.Error("Identity changed the event it was given")
	}
	for name, e := range map[string]Event{"org": otherOrg, "kind": otherKind, "data": changed} {
		if bytes.Equal(id(ev), id(e)) {
			t.Errorf("another %s must not collapse", name)
		}
	}
	if bytes.Equal(DedupeKey("dst_1", id(ev)), DedupeKey("dst_2", id(ev))) {
		t.Error("dedupe keys must differ per destination")
	}
}

// Identity relies on encoding/json being canonical for EventData: struct fields in declaration
// order, map keys sorted. Raw JSON or interface values would break that; none may appear.
func TestEventDataEncodesCanonically(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(ty reflect.Type, path string) {
		if seen[ty] {
			return
		}
		seen[ty] = true
		if ty == reflect.TypeFor[json.RawMessage]() {
			t.Errorf("%s is raw JSON: its key order would make identical facts differ", path)
			return
		}
		switch ty.Kind() {
		case reflect.Interface:
			t.Errorf("%s is an interface: its encoding is not fixed by its type", path)
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(ty.Elem(), path+"[]")
		case reflect.Map:
			walk(ty.Elem(), path+"{}")
		case reflect.Struct:
			for f := range ty.Fields() {
				walk(f.Type, path+"."+f.Name)
			}
		}
	}
	walk(reflect.TypeFor[EventData](), "EventData")
}
