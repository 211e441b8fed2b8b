package outreach

import (
	"crypto/sha256"
	"encoding/json"
)

// The fan-out rules: which destinations get an event, what each delivery is called, and when two
// payloads are "identical" for the 24-hour duplicate rule. storage applies them inside the
// business transaction that commits the event; they are pure so every writer (serve, the operator
// CLI, a second instance) applies exactly the same ones.

// DeliveryID is the delivery of event eventID to destination destinationID. It is derived, not
// drawn: whoever writes the pair writes the same id, and receivers see it as the webhook-id.
func DeliveryID(eventID, destinationID string) string {
	return DerivedID("dlv", eventID, destinationID)
}

// Identity is what makes two payloads identical for the duplicate rule: the event kind, the
// organization and `data`, canonically encoded. encoding/json writes struct fields in declaration
// order and map keys sorted, and EventData holds nothing else (no raw JSON), so one Marshal is
// canonical. The timestamp is left out on
// purpose: the same fact emitted twice (a retried job, a double click) carries two timestamps,
// and collapsing exactly those is the point. Distinct facts differ in data (ids, texts, times
// inside blocks), so they never collapse. The campaign block's stats are left out for the same
// reason: they are a snapshot of the campaign when the event was emitted, not part of the fact.
func (ev Event) Identity() ([]byte, error) {
	data := ev.Data
	if c := data.Campaign; c != nil && c.Stats != nil {
		bare := *c
		bare.Stats = nil
		data.Campaign = &bare
	}
	canon, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	return append([]byte(string(ev.Kind)+"\x00"+ev.OrgID+"\x00"), canon...), nil
}

// PayloadKey = sha256(payload identity): the key of the duplicate rule, one per payload, under
// which the destinations that got it are kept with the end of each one's window.
func PayloadKey(identity []byte) []byte {
	k := sha256.Sum256(identity)
	return k[:]
}

// DedupeKey = sha256(destination id, NUL, payload identity) was the duplicate rule's key until
// migration 085, one per destination; the fan-out still compares it with the keys kept from before
// that migration until they have all expired.
func DedupeKey(destinationID string, identity []byte) []byte {
	s := sha256.New()
	s.Write([]byte(destinationID))
	s.Write([]byte{0})
	s.Write(identity)
	return s.Sum(nil)
}
