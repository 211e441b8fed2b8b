package outreach

import "fmt"

// Matching runs in the business transaction, for every event and every destination with a
// filter that selects its kind, so it is built to cost little: an event's body is decoded once
// into an Envelope (a few allocations, however many filters look at it), and matching a compiled
// filter against it walks the filter's paths and allocates nothing.

// Envelope is an event's encoded envelope ({event, timestamp, org_id, data}, the body receivers
// get), decoded once so any number of filters can be matched against it. It is immutable and
// safe for concurrent use.
type Envelope struct {
	doc  jdoc
	kind EventKind
}

// DecodeEnvelope decodes an event's body, as the outbox stores it and receivers get it.
func DecodeEnvelope(body []byte) (*Envelope, error) {
	doc, err := decodeJSON(body)
	if err != nil {
		return nil, fmt.Errorf("event envelope: %w", err)
	}
	if t := doc.nodes[0].typ; t != jObject {
		return nil, fmt.Errorf("event envelope: %s, not an object", jtypeName(t))
	}
	env := &Envelope{doc: doc}
	if n := doc.member(0, "event"); n >= 0 && doc.nodes[n].typ == jString {
		env.kind = EventKind(doc.nodes[n].str)
	}
	return env, nil
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
	return f.root.eval(&env.doc)
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

func (c *cond) eval(d *jdoc) bool {
	switch c.kind {
	case condAnd:
		for i := range c.kids {
			if !c.kids[i].eval(d) {
				return false
			}
		}
		return true
	case condOr:
		for i := range c.kids {
			if c.kids[i].eval(d) {
				return true
			}
		}
		return false
	case condNot:
		return !c.kids[0].eval(d)
	}
	if c.op == opExists {
		return d.exists(0, c.path) == c.exists
	}
	return c.anyValue(d, 0, c.path)
}

// exists reports whether path leads to a value from node, looking into every element of an
// array on the way.
func (d *jdoc) exists(node int32, path []string) bool {
	if len(path) == 0 {
		return true
	}
	switch n := &d.nodes[node]; n.typ {
	case jObject:
		ch := d.member(node, path[0])
		return ch >= 0 && d.exists(ch, path[1:])
	case jArray:
		for ch := n.first; ch >= 0; ch = d.nodes[ch].next {
			if d.exists(ch, path) {
				return true
			}
		}
	}
	return false
}

// anyValue reports whether a value at path from node passes the test; an array, on the way or
// at the end, stands for each of its elements.
func (c *cond) anyValue(d *jdoc, node int32, path []string) bool {
	n := &d.nodes[node]
	switch {
	case n.typ == jArray:
		for ch := n.first; ch >= 0; ch = d.nodes[ch].next {
			if c.anyValue(d, ch, path) {
				return true
			}
		}
		return false
	case len(path) == 0:
		return c.holds(n)
	case n.typ == jObject:
		ch := d.member(node, path[0])
		return ch >= 0 && c.anyValue(d, ch, path[1:])
	}
	return false
}

// holds tests one value that is not an array.
func (c *cond) holds(n *jnode) bool {
	switch c.op {
	case opEq, opIn:
		for i := range c.vals {
			if c.vals[i].equals(n) {
				return true
			}
		}
		return false
	}
	v := &c.vals[0]
	var cmp int
	switch {
	case v.isTime:
		if n.typ != jString {
			return false
		}
		at, ok := parseFilterTime(n.str)
		if !ok {
			return false
		}
		cmp = at.Compare(v.at)
	case n.typ == jNumber:
		cmp = compareFloats(n.num, v.num)
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

func (v *literal) equals(n *jnode) bool {
	if v.typ != n.typ {
		return false
	}
	switch v.typ {
	case jString:
		return v.str == n.str
	case jNumber:
		return v.num == n.num
	case jBool:
		return v.b == n.b
	}
	return true // null
}
