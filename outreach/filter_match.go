package outreach

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Matching runs in the business transaction, for every event and every destination with a
// filter that selects its kind, so it is built to cost little: an event's body is decoded once
// into an Envelope (encoding/json's maps, however many filters look at it), and matching a
// compiled filter against it walks the filter's paths and allocates nothing.

// Envelope is an event's encoded envelope ({event, timestamp, org_id, data}, the body receivers
// get), decoded once so any number of filters can be matched against it. It is immutable and
// safe for concurrent use: nothing writes to root once it is decoded.
type Envelope struct {
	root map[string]any
	kind EventKind
}

// DecodeEnvelope decodes an event's body, as the outbox stores it and receivers get it. Its
// numbers are 64-bit floats, which is how filters compare numbers (by value: 1 == 1.0).
func DecodeEnvelope(body []byte) (*Envelope, error) {
	var root map[string]any
	if err := json.Unmarshal(body, &root); err != nil {
		return nil, fmt.Errorf("event envelope: %w", err)
	}
	if root == nil {
		return nil, errors.New("event envelope: null, not an object")
	}
	kind, _ := root["event"].(string)
	return &Envelope{root: root, kind: EventKind(kind)}, nil
}

// Kind is the envelope's event kind ("" when it has none).
func (e *Envelope) Kind() EventKind { return e.kind }

// Match reports whether the event passes the filter. A nil filter and the empty filter match
// every event (env may then be nil, so a caller can decode only when a filter needs it); any
// other filter matches no nil envelope.
func (f *Filter) Match(env *Envelope) bool {
	if f == nil || len(f.root.kids) == 0 {
		return true
	}
	if env == nil {
		return false
	}
	return f.root.eval(env.root)
}

// MatchBody decodes body and matches it: for one filter and one event. To match several
// filters, decode the envelope once (DecodeEnvelope) and call Match.
func (f *Filter) MatchBody(body []byte) (bool, error) {
	if f == nil || len(f.root.kids) == 0 {
		return true, nil
	}
	env, err := DecodeEnvelope(body)
	if err != nil {
		return false, err
	}
	return f.Match(env), nil
}

// MatchingCount is how many of envs a destination selecting kinds (empty or "all": every
// kind) with filter f (nil: none) would receive: the application's "matches N of the last 100
// events" while a filter is edited.
func MatchingCount(f *Filter, kinds []EventKind, envs []*Envelope) int {
	n := 0
	for _, env := range envs {
		if env != nil && env.kind.Matches(kinds) && f.Match(env) {
			n++
		}
	}
	return n
}

func (c *cond) eval(root map[string]any) bool {
	switch c.kind {
	case condAnd:
		for i := range c.kids {
			if !c.kids[i].eval(root) {
				return false
			}
		}
		return true
	case condOr:
		for i := range c.kids {
			if c.kids[i].eval(root) {
				return true
			}
		}
		return false
	case condNot:
		return !c.kids[0].eval(root)
	}
	if c.op == opExists {
		return exists(root, c.path) == c.exists
	}
	return c.anyValue(root, c.path)
}

// exists reports whether path leads to a value from v, looking into every element of an
// array on the way.
func exists(v any, path []string) bool {
	if len(path) == 0 {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		kid, ok := x[path[0]]
		return ok && exists(kid, path[1:])
	case []any:
		for _, e := range x {
			if exists(e, path) {
				return true
			}
		}
	}
	return false
}

// anyValue reports whether a value at path from v passes the test; an array, on the way or
// at the end, stands for each of its elements.
func (c *cond) anyValue(v any, path []string) bool {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if c.anyValue(e, path) {
				return true
			}
		}
		return false
	case map[string]any:
		if len(path) == 0 {
			return false // an object equals no literal and has no order
		}
		kid, ok := x[path[0]]
		return ok && c.anyValue(kid, path[1:])
	}
	return len(path) == 0 && c.holds(v)
}

// holds tests one value that is neither an array nor an object.
func (c *cond) holds(v any) bool {
	switch c.op {
	case opEq, opIn:
		for i := range c.vals {
			if c.vals[i].equals(v) {
				return true
			}
		}
		return false
	}
	lit := &c.vals[0]
	var cmp int
	switch x := v.(type) {
	case string:
		if !lit.isTime {
			return false
		}
		at, ok := parseFilterTime(x)
		if !ok {
			return false
		}
		cmp = at.Compare(lit.at)
	case float64:
		if lit.isTime {
			return false
		}
		cmp = compareFloats(x, lit.num)
	default:
		return false
	}
	switch c.op {
	case opGt:
		return cmp > 0
	case opGte:
		return cmp >= 0
	case opLt:
		return cmp < 0
	}
	return cmp <= 0
}

func compareFloats(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// equals compares a literal with a decoded value: same type, same value.
func (l *literal) equals(v any) bool {
	switch x := v.(type) {
	case string:
		return l.typ == jString && l.str == x
	case float64:
		return l.typ == jNumber && l.num == x
	case bool:
		return l.typ == jBool && l.b == x
	case nil:
		return l.typ == jNull
	}
	return false
}
