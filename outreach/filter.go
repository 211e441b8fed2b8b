package outreach

import (
	"bytes"
	"encoding/json"
	"time"
)

// This file is the language of a destination's filter: what a filter may say and mean
// (filter_compile.go compiles it and refuses what the rules refuse, filter_schema.go checks its
// fields against the event catalogue, filter_match.go matches it against events). docs/api.md,
// "Filters", is the integrators' version of this comment.
//
// A filter is a JSON object matched against the event's envelope ({event, timestamp, org_id,
// data}); every member of an object must hold (an implicit $and). A member is one of:
//   - a field path and a literal: the field equals the literal. A path is dotted for depth
//     ("data.campaign.id"), and an object of paths nests the same way:
//     {"data":{"campaign":{"id":"x"}}} is {"data.campaign.id":"x"}.
//   - a field path and an object of operators (and of deeper paths, relative to it): $eq and
//     $neq (a literal), $in and $nin (a non-empty array of literals), $exists (a boolean),
//     $gt, $gte, $lt and $lte (a number, or a time: an RFC 3339 timestamp or a YYYY-MM-DD date).
//   - $and and $or (a non-empty array of objects) and $not (a non-empty object), at the top
//     level or inside a field's object, where the paths in them continue the field's.
//
// The corners. Nested objects as paths, numbers by value, a literal on an array meaning
// "contains" and {} matching everything are as in Convoy's and Outpost's filters; null, missing
// fields and the negations follow MongoDB, whose operators these are; times are this filter's own:
//   - A literal is a string, number, boolean or null; an array or object is never compared
//     (arrays of literals go in $in). Strings compare exactly (case and all); numbers by value
//     (1 == 1.0 == 1e0, as 64-bit floats); true and false only with themselves.
//   - null equals a field whose value is null, never a missing field: {"$exists": false} says
//     "missing". $exists: true holds for any value, null and [] included.
//   - Wherever a path meets an array, the test is tried on each element and holds if it holds
//     for any: a literal on an array field means "contains it", $in means "any element is one of
//     these", and a path through an array of objects ("data.message.recent_conversation.from_me")
//     looks into every element.
//   - $neq, $nin and $not are the exact negations of $eq, $in and their object, so they hold
//     on a missing field ({"data.campaign.id": {"$neq": "x"}} matches an event with no campaign).
//     Every other test on a missing field fails.
//   - $gt and its kin order numbers by value, and times by instant: a time argument and a string
//     field are both read as RFC 3339 timestamps or dates (a date is its midnight UTC), so
//     "2026-01-01" < "2026-01-01T00:00:00.001Z" and time zones are honoured. A field that is
//     not a time, or a number against a time, fails the test. Other strings are not ordered:
//     an argument that is neither a number nor a time is refused.
//   - The empty filter {} matches every event; an empty object anywhere else tests nothing and
//     is refused, as are duplicate names and paths with empty segments or segments that begin
//     with "$".
//
// Limits: at most MaxFilterBytes of JSON once the whitespace between tokens is removed, and at
// most MaxFilterDepth levels of nesting, where the filter object is level 1 and every object or
// array inside a level is one level deeper ({"$or":[{"data.campaign.id":{"$in":["a"]}}]} has 5).

// MaxFilterBytes and MaxFilterDepth bound a filter (see above).
const (
	MaxFilterBytes = 8 << 10
	MaxFilterDepth = 8
)

// filterOperators lists the operators a filter may use, as messages list them.
const filterOperators = "$eq, $neq, $in, $nin, $exists, $gt, $gte, $lt, $lte, $and, $or, $not"

// Filter is a compiled destination filter. It is immutable, safe for concurrent use, and meant
// to be compiled once per destination and kept; a nil *Filter is no filter and matches every
// event.
type Filter struct {
	raw  []byte
	root cond
}

// ParseFilter compiles a filter a client gives for a destination selecting kinds (its event
// selection: empty or "all" means every kind) and checks it against the event catalogue: every
// field must exist in at least one selected kind's envelope and hold the type it is compared
// with. Every refusal is an *InvalidInputError whose message begins with the place in the filter
// ("filter.$or[1].data.campaign.id: ...").
func ParseFilter(raw []byte, kinds []EventKind) (*Filter, error) {
	cat, err := newFilterCatalogue(kinds)
	if err != nil {
		return nil, err
	}
	return compileFilter(raw, cat)
}

// CompileFilter compiles a filter saved earlier (ParseFilter checked it then) with the rules of
// its own structure but not the catalogue check, so the fan-out keeps honouring a saved filter
// when a later release changes an event's fields.
func CompileFilter(raw []byte) (*Filter, error) {
	return compileFilter(raw, nil)
}

// Raw is the filter as given, compacted: what reads show and what is stored (nil for no
// filter). The caller must not modify it.
func (f *Filter) Raw() json.RawMessage {
	if f == nil {
		return nil
	}
	return f.raw
}

// MarshalJSON writes Raw, so a view can carry a *Filter (nil: null).
func (f *Filter) MarshalJSON() ([]byte, error) {
	if f == nil {
		return []byte("null"), nil
	}
	return f.raw, nil
}

func (f *Filter) String() string { return string(f.Raw()) }

func compileFilter(raw []byte, cat *filterCatalogue) (*Filter, error) {
	// Compacting first checks the syntax and bounds what is decoded to MaxFilterBytes; the
	// decoding then reads the client's own text, so a byte a message names is theirs.
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, InvalidField("filter", "%s", syntaxProblem(raw, err))
	}
	if compact.Len() > MaxFilterBytes {
		return nil, InvalidField("filter", "%d bytes of JSON, more than the %d (8 KB) a filter may have", compact.Len(), MaxFilterBytes)
	}
	doc, err := readFilterJSON(raw)
	if err != nil {
		return nil, InvalidField("filter", "%s", err.Error())
	}
	if doc.typ != jObject {
		return nil, InvalidField("filter", "must be a JSON object, got %s", jtypeName(doc.typ))
	}
	c := filterCompiler{cat: cat}
	root, err := c.object(&doc, nil, "filter", 1)
	if err != nil {
		return nil, err
	}
	return &Filter{raw: compact.Bytes(), root: root}, nil
}

// condKind says what a cond is.
type condKind uint8

const (
	condAnd condKind = iota
	condOr
	condNot  // kids[0] fails
	condTest // a test of the values at path
)

// testOp is what a condTest checks; $neq and $nin compile to a condNot of $eq and $in.
type testOp uint8

const (
	opEq testOp = iota
	opIn
	opExists
	opGt
	opGte
	opLt
	opLte
)

// cond is one node of a compiled filter.
type cond struct {
	kind   condKind
	kids   []cond
	op     testOp
	path   []string
	vals   []literal
	exists bool // $exists's argument
}

// literal is a value a filter compares with. A time is a string literal with at set.
type literal struct {
	typ    jtype
	b      bool
	num    float64
	str    string
	at     time.Time
	isTime bool
}
