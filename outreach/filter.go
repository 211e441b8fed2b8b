package outreach

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// This file is the language of a destination's filter: what a filter may say, how it is
// compiled, and the rules that refuse a filter before it is saved (filter_schema.go checks its
// fields against the event catalogue, filter_match.go matches it against events). docs/api.md,
// "Filters", is the integrators' version of this comment.
//
// A filter is a JSON object matched against the event's envelope ({event, timestamp, org_id,
// data}); every member of an object must hold (an implicit $and). A member is one of:
//   - a field path and a literal: the field equals the literal. A path is dotted for depth
//     ("data.campaign.id"), and an object of paths nests the same way:
//     {"data":{"campaign":{"id":"x"}}} is {"data.campaign.id":"x"}.
//   - a field path and an object of operators (and of deeper paths, relative to it):
//     $eq, $neq, $in, $nin (a non-empty array of literals), $exists (a boolean),
//     $gt, $gte, $lt, $lte (a number, or a time: an RFC 3339 timestamp or a YYYY-MM-DD date).
//   - $and, $or (a non-empty array of objects) and $not (an object), at the top level or inside
//     a field's object, where the paths in them are relative to that field.
//
// The corners, decided the way Convoy's and Outpost's filters decide them where they agree:
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
// array inside a level is one level deeper ({"$or":[{"data.campaign.id":{"$in":["a"]}}]} has 4).

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
func (f *Filter) MarshalJSON() ([]byte, error) { return f.raw, nil }

func (f *Filter) String() string { return string(f.Raw()) }

func compileFilter(raw []byte, cat *filterCatalogue) (*Filter, error) {
	doc, err := decodeJSON(raw)
	if err != nil {
		return nil, InvalidField("filter", "%s", err.Error())
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, InvalidField("filter", "%s", JSONInputError(err, "filter").Message)
	}
	if compact.Len() > MaxFilterBytes {
		return nil, InvalidField("filter", "%d bytes of JSON, more than the %d (8 KB) a filter may have", compact.Len(), MaxFilterBytes)
	}
	if t := doc.nodes[0].typ; t != jObject {
		return nil, InvalidField("filter", "must be a JSON object, got %s", jtypeName(t))
	}
	c := filterCompiler{doc: &doc, cat: cat}
	root, err := c.object(0, nil, "filter", 1)
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

type filterCompiler struct {
	doc *jdoc
	cat *filterCatalogue // nil: no catalogue check
}

// object compiles the object at node, whose paths are relative to prefix; place names it in
// messages and depth is its level.
func (c *filterCompiler) object(node int32, prefix []string, place string, depth int) (cond, error) {
	if depth > MaxFilterDepth {
		return cond{}, InvalidField(place, "nested deeper than %d levels", MaxFilterDepth)
	}
	out := cond{kind: condAnd}
	seen := map[string]bool{}
	for ch := c.doc.nodes[node].first; ch >= 0; ch = c.doc.nodes[ch].next {
		key := c.doc.nodes[ch].key
		at := place + "." + key
		if seen[key] {
			return cond{}, InvalidField(at, "appears twice")
		}
		seen[key] = true
		kid, err := c.member(ch, key, prefix, place, at, depth)
		if err != nil {
			return cond{}, err
		}
		out.kids = append(out.kids, kid...)
	}
	return out, nil
}

// member compiles one member of an object at place: its conds, all of which must hold.
func (c *filterCompiler) member(node int32, key string, prefix []string, place, at string, depth int) ([]cond, error) {
	n := &c.doc.nodes[node]
	if !strings.HasPrefix(key, "$") {
		path, err := fieldPath(prefix, key, at)
		if err != nil {
			return nil, err
		}
		switch n.typ {
		case jObject:
			if n.first < 0 {
				return nil, InvalidField(at, `an empty object tests nothing (to test that the field is there, write {"$exists": true})`)
			}
			sub, err := c.object(node, path, at, depth+1)
			return []cond{sub}, err
		case jArray:
			return nil, InvalidField(at, `an array is not a value to compare; {"$in": [...]} matches any of several values`)
		}
		t, err := c.test(cond{kind: condTest, op: opEq, path: path, vals: []literal{literalOf(n)}}, at, "")
		return []cond{t}, err
	}
	if _, order := orderOp(key); len(prefix) == 0 && (order || key == "$eq" || key == "$neq" || key == "$in" || key == "$nin" || key == "$exists") {
		return nil, InvalidField(place, `%s needs a field: write {"<field path>": {"%s": ...}}`, key, key)
	}
	switch key {
	case "$and", "$or":
		return c.logical(node, key, prefix, at, depth)
	case "$not":
		if n.typ != jObject || n.first < 0 {
			return nil, InvalidField(place, "$not needs a non-empty object, got %s", describeNode(n))
		}
		sub, err := c.object(node, prefix, at, depth+1)
		return []cond{{kind: condNot, kids: []cond{sub}}}, err
	case "$exists":
		if n.typ != jBool {
			return nil, InvalidField(place, "$exists needs true or false, got %s", describeNode(n))
		}
		t, err := c.test(cond{kind: condTest, op: opExists, path: prefix, exists: n.b}, place, key)
		return []cond{t}, err
	case "$eq", "$neq":
		if n.typ == jArray || n.typ == jObject {
			return nil, InvalidField(place, "%s needs a string, number, boolean or null, got %s", key, describeNode(n))
		}
		t, err := c.test(cond{kind: condTest, op: opEq, path: prefix, vals: []literal{literalOf(n)}}, place, key)
		return negatedIf(key == "$neq", t), err
	case "$in", "$nin":
		t, err := c.in(node, key, prefix, place, at, depth)
		return negatedIf(key == "$nin", t), err
	}
	if op, ok := orderOp(key); ok {
		lit, err := orderLiteral(n, key, place)
		if err != nil {
			return nil, err
		}
		t, err := c.test(cond{kind: condTest, op: op, path: prefix, vals: []literal{lit}}, place, key)
		return []cond{t}, err
	}
	return nil, InvalidField(at, "unknown operator %s (the operators are %s)", key, filterOperators)
}

func (c *filterCompiler) logical(node int32, key string, prefix []string, at string, depth int) ([]cond, error) {
	n := &c.doc.nodes[node]
	if n.typ != jArray || n.first < 0 {
		return nil, InvalidField(at, "%s needs a non-empty array of objects, got %s", key, describeNode(n))
	}
	if depth+1 > MaxFilterDepth {
		return nil, InvalidField(at, "nested deeper than %d levels", MaxFilterDepth)
	}
	out := cond{kind: condAnd}
	if key == "$or" {
		out.kind = condOr
	}
	i := 0
	for ch := n.first; ch >= 0; ch, i = c.doc.nodes[ch].next, i+1 {
		place := fmt.Sprintf("%s[%d]", at, i)
		e := &c.doc.nodes[ch]
		if e.typ != jObject || e.first < 0 {
			return nil, InvalidField(place, "%s needs non-empty objects, got %s", key, describeNode(e))
		}
		sub, err := c.object(ch, prefix, place, depth+2)
		if err != nil {
			return nil, err
		}
		out.kids = append(out.kids, sub)
	}
	return []cond{out}, nil
}

func (c *filterCompiler) in(node int32, key string, prefix []string, place, at string, depth int) (cond, error) {
	n := &c.doc.nodes[node]
	if n.typ != jArray || n.first < 0 {
		return cond{}, InvalidField(place, "%s needs a non-empty array of values, got %s", key, describeNode(n))
	}
	if depth+1 > MaxFilterDepth {
		return cond{}, InvalidField(at, "nested deeper than %d levels", MaxFilterDepth)
	}
	t := cond{kind: condTest, op: opIn, path: prefix}
	i := 0
	for ch := n.first; ch >= 0; ch, i = c.doc.nodes[ch].next, i+1 {
		e := &c.doc.nodes[ch]
		if e.typ == jArray || e.typ == jObject {
			return cond{}, InvalidField(fmt.Sprintf("%s[%d]", at, i), "%s values are strings, numbers, booleans or null, got %s", key, describeNode(e))
		}
		t.vals = append(t.vals, literalOf(e))
	}
	return c.test(t, place, key)
}

// test checks t against the catalogue (when there is one): place is the field's place in the
// filter and op the operator as written ("" for a bare literal).
func (c *filterCompiler) test(t cond, place, op string) (cond, error) {
	if c.cat == nil {
		return t, nil
	}
	return t, c.cat.check(t, place, op)
}

func negatedIf(neg bool, t cond) []cond {
	if neg {
		return []cond{{kind: condNot, kids: []cond{t}}}
	}
	return []cond{t}
}

// fieldPath appends key's dotted segments to prefix (in a new slice: prefixes are shared).
func fieldPath(prefix []string, key, at string) ([]string, error) {
	segs := strings.Split(key, ".")
	for _, s := range segs {
		if s == "" {
			return nil, InvalidField(at, "a field path has no empty segments (a path is names joined by dots)")
		}
		if strings.HasPrefix(s, "$") {
			return nil, InvalidField(at, "%q is neither a field name nor an operator (the operators are %s)", s, filterOperators)
		}
	}
	path := make([]string, 0, len(prefix)+len(segs))
	return append(append(path, prefix...), segs...), nil
}

// orderOp is the test of $gt and its kin; ok is false for any other key.
func orderOp(key string) (op testOp, ok bool) {
	switch key {
	case "$gt":
		return opGt, true
	case "$gte":
		return opGte, true
	case "$lt":
		return opLt, true
	case "$lte":
		return opLte, true
	}
	return 0, false
}

func literalOf(n *jnode) literal {
	return literal{typ: n.typ, b: n.b, num: n.num, str: n.str}
}

// orderLiteral is the argument of $gt and its kin: a number or a time.
func orderLiteral(n *jnode, op, place string) (literal, error) {
	switch n.typ {
	case jNumber:
		return literalOf(n), nil
	case jString:
		if at, ok := parseFilterTime(n.str); ok {
			return literal{typ: jString, str: n.str, at: at, isTime: true}, nil
		}
		return literal{}, InvalidField(place, "%s compares numbers or times, and %q is neither (a time is an RFC 3339 timestamp such as 2026-01-31T09:00:00Z, or a date such as 2026-01-31)", op, n.str)
	}
	return literal{}, InvalidField(place, "%s needs a number or a time (an RFC 3339 timestamp or a YYYY-MM-DD date), got %s", op, describeNode(n))
}

// parseFilterTime reads an RFC 3339 timestamp or a YYYY-MM-DD date (midnight UTC). The shape
// is checked first so that the strings that are not times, the common case when a field is
// compared with a time, cost no error allocation.
func parseFilterTime(s string) (time.Time, bool) {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return time.Time{}, false
	}
	layout := time.DateOnly
	if len(s) > 10 {
		if len(s) < 20 || s[10] != 'T' {
			return time.Time{}, false
		}
		layout = time.RFC3339Nano
	}
	t, err := time.Parse(layout, s)
	return t, err == nil
}

func jtypeName(t jtype) string {
	return [...]string{jNull: "null", jBool: "a boolean", jNumber: "a number", jString: "a string", jArray: "an array", jObject: "an object"}[t]
}

// describeNode names a value for a message: its type, and a scalar's text.
func describeNode(n *jnode) string {
	switch n.typ {
	case jString:
		return fmt.Sprintf("the string %q", n.str)
	case jNumber:
		return "the number " + n.str
	case jBool:
		return fmt.Sprintf("%t", n.b)
	case jArray, jObject:
		if n.first < 0 {
			return "an empty " + jtypeName(n.typ)[3:]
		}
	}
	return jtypeName(n.typ)
}
