package outreach

import (
	"reflect"
	"strings"
	"time"
)

// The event catalogue as integrators read it (GET /event-types): each kind with a one-line
// description, a sample (the one the Test button sends) and the JSON Schema of its data. The
// schema is generated from the catalogue (the kind's required and optional blocks) and from the
// Go types that encode the blocks, so it cannot drift from what the hub sends.

// eventDescriptions holds one line per kind; TestEventTypeCatalogue requires every kind to have one.
var eventDescriptions = map[EventKind]string{
	EventReplyReceived:           "A person reached through a campaign replied on LinkedIn (every reply; subscribing to it also delivers reply_positive and reply_negative).",
	EventReplyPositive:           "A campaign person's reply was classified positive.",
	EventReplyNegative:           "A campaign person's reply was classified negative; they are opted out and not answered.",
	EventNeedsHuman:              "A reply needs a person: the AI could not or must not answer it automatically (reason says why).",
	EventInviteSent:              "A connection request was sent to a prospect.",
	EventConnectionAccepted:      "A prospect accepted the connection request.",
	EventInviteWithdrawn:         "An unanswered connection request was withdrawn (after 21 days).",
	EventMessageSent:             "A message was sent to a prospect (a sequence step or an approved reply).",
	EventCallBooked:              "A call was booked with a prospect (automatically, or marked by PATCH outcome=booked with manual: true).",
	EventAutoBookingCreated:      "The AI booked a slot on the seat's calendar after a booking request.",
	EventAutoBookingFailed:       "A booking request could not be booked automatically (failure_reason says why).",
	EventConversationStalled:     "A positive conversation has been silent for 5 days.",
	EventCampaignStarted:         "A campaign was launched (first move to active).",
	EventCampaignCompleted:       "A campaign completed: every prospect is done.",
	EventProspectAdded:           "A person was added to a campaign (pushed lead, intake URL or other source).",
	EventLeadAccepted:            "A pushed lead was enriched and passed the campaign's filters.",
	EventLeadRejected:            "A pushed lead was rejected by the campaign's filters (reason says which rule).",
	EventPostPublished:           "A LinkedIn post was published.",
	EventPostScheduled:           "A LinkedIn post was scheduled.",
	EventAccountRateLimited:      "LinkedIn rate-limited a seat; invitations wait for the cooldown.",
	EventAccountDisconnected:     "A LinkedIn seat was disconnected and needs to be reconnected.",
	EventAccountReconnected:      "A disconnected LinkedIn seat is connected again.",
	EventSalesNavUnavailable:     "Sales Navigator lapsed or its session died on a seat; classic LinkedIn still works.",
	EventSalesNavRestored:        "Sales Navigator works again on a seat.",
	EventReportGenerated:         "A periodic report (e.g. the weekly summary) was generated.",
	EventMarketAnalysisGenerated: "A market analysis was generated.",
	EventDailyDigest:             "Every morning at 13:05 UTC: the previous UTC day's counters.",
}

// EventType is one kind as GET /event-types describes it.
type EventType struct {
	Kind           EventKind
	Group          EventGroup
	Description    string
	RequiredBlocks []string
	OptionalBlocks []string
	// Sample is the kind's sample event (SampleEvent, marked test), stamped at.
	Sample Event
	// DataSchema is the JSON Schema (draft 2020-12) of the event's data object.
	DataSchema map[string]any
	// EnvelopeSchema is the JSON Schema of the whole body (EventKind.EnvelopeSchema): the fields
	// a destination's filter may name.
	EnvelopeSchema map[string]any
}

// EventTypes lists every kind in catalogue order.
func EventTypes(at time.Time) []EventType {
	out := make([]EventType, 0, len(eventCatalog))
	for _, spec := range eventCatalog {
		k := spec.kind
		out = append(out, EventType{Kind: k, Group: spec.group, Description: eventDescriptions[k],
			RequiredBlocks: k.Blocks(), OptionalBlocks: k.OptionalBlocks(),
			Sample: SampleEvent(k, "org_sample", at), DataSchema: k.DataSchema(), EnvelopeSchema: k.EnvelopeSchema()})
	}
	return out
}

// EnvelopeSchema is the JSON Schema of k's whole envelope, the body a destination receives and
// what a destination's filter is matched against: event (k), timestamp, org_id and data
// (DataSchema). A filter's field paths are the paths of this schema (filter_schema.go checks them
// against it).
func (k EventKind) EnvelopeSchema() map[string]any {
	data := k.DataSchema()
	delete(data, "$schema") // it is the root's alone
	return map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"title":                string(k) + " envelope",
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"event", "timestamp", "org_id", "data"},
		"properties": map[string]any{
			"event":     map[string]any{"type": "string", "const": string(k), "description": "the event kind"},
			"timestamp": map[string]any{"type": "string", "format": "date-time", "description": "when it happened (ISO 8601, UTC, milliseconds)"},
			"org_id":    map[string]any{"type": "string", "description": "the organization"},
			"data":      data,
		},
	}
}

// DataSchema is the JSON Schema of k's data object: exactly the kind's blocks (the required ones
// required), the test marker, and manual on call_booked; each block's fields as the Go type
// encodes them (a field written with omitempty may be absent; the others are required).
func (k EventKind) DataSchema() map[string]any {
	props := map[string]any{"test": map[string]any{"type": "boolean", "description": "true on a sample sent by a destination's Test send"}}
	if k == EventCallBooked {
		props["manual"] = map[string]any{"type": "boolean", "description": "true when marked by PATCH /prospects/{id} outcome=booked"}
	}
	blockTypes := blockGoTypes()
	required := []string{}
	for _, b := range k.Blocks() {
		props[b] = typeSchema(blockTypes[b])
		required = append(required, b)
	}
	for _, b := range k.OptionalBlocks() {
		props[b] = typeSchema(blockTypes[b])
	}
	return map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"title":                string(k) + " data",
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}
}

// blockGoTypes maps each block name to the Go type that encodes it, read from EventData's JSON
// tags so a block added there is described here too.
func blockGoTypes() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	t := reflect.TypeOf(EventData{})
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Type.Kind() == reflect.Pointer {
			out[name] = f.Type.Elem()
		}
	}
	return out
}

// typeSchema describes how encoding/json writes a value of type t.
func typeSchema(t reflect.Type) map[string]any {
	switch t.Kind() {
	case reflect.Pointer:
		return typeSchema(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		// encoding/json writes a nil slice or map as null.
		return map[string]any{"type": []any{"array", "null"}, "items": typeSchema(t.Elem())}
	case reflect.Array:
		return map[string]any{"type": "array", "items": typeSchema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": []any{"object", "null"}, "additionalProperties": typeSchema(t.Elem())}
	case reflect.Struct:
		props := map[string]any{}
		required := []string{}
		// VisibleFields lists an embedded struct's fields right after it, in order, as
		// encoding/json flattens them (ActivityTotals in CampaignStats and ReportStats).
		for _, f := range reflect.VisibleFields(t) {
			tag := f.Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			if name == "-" || !f.IsExported() || (f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct) {
				continue
			}
			if name == "" {
				name = f.Name
			}
			props[name] = typeSchema(f.Type)
			if !strings.Contains(opts, "omitempty") && f.Type.Kind() != reflect.Pointer {
				required = append(required, name)
			}
		}
		return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	}
	return map[string]any{}
}
