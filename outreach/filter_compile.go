package outreach

import (
	"fmt"
	"strings"
	"time"
)

// The compiler of filters (the language is described in filter.go): it walks the decoded filter
// once, refusing what the rules refuse with the place in the filter, and builds the cond tree
// that matching evaluates.

type filterCompiler struct {
	cat *filterCatalogue // nil: no catalogue check
}

// object compiles the object obj, whose paths are relative to prefix; place names it in
// messages and depth is its level.
func (c *filterCompiler) object(obj *jvalue, prefix []string, place string, depth int) (cond, error) {
	if depth > MaxFilterDepth {
		return cond{}, InvalidField(place, "nested deeper than %d levels", MaxFilterDepth)
	}
	out := cond{kind: condAnd}
	seen := map[string]bool{}
	for i, key := range obj.keys {
		at := place + "." + key
		if seen[key] {
			return cond{}, InvalidField(at, "appears twice")
		}
		seen[key] = true
		kid, err := c.member(&obj.kids[i], key, prefix, place, at, depth)
		if err != nil {
			return cond{}, err
		}
		out.kids = append(out.kids, kid...)
	}
	return out, nil
}

// member compiles one member of an object at place: its conds, all of which must hold.
func (c *filterCompiler) member(n *jvalue, key string, prefix []string, place, at string, depth int) ([]cond, error) {
	if !strings.HasPrefix(key, "$") {
		path, err := fieldPath(prefix, key, at)
		if err != nil {
			return nil, err
		}
		switch n.typ {
		case jObject:
			if len(n.kids) == 0 {
				return nil, InvalidField(at, `an empty object tests nothing (to test that the field is there, write {"$exists": true})`)
			}
			sub, err := c.object(n, path, at, depth+1)
			return []cond{sub}, err
		case jArray:
			return nil, InvalidField(at, `an array is not a value to compare; {"$in": [...]} matches any of several values`)
		}
		t, err := c.test(cond{kind: condTest, op: opEq, path: path, vals: []literal{literalOf(n)}}, at, "")
		return []cond{t}, err
	}
	if len(prefix) == 0 && isComparison(key) {
		return nil, InvalidField(place, `%s needs a field: write {"<field path>": {"%s": ...}}`, key, key)
	}
	switch key {
	case "$and", "$or":
		return c.logical(n, key, prefix, at, depth)
	case "$not":
		if n.typ != jObject || len(n.kids) == 0 {
			return nil, InvalidField(place, "$not needs a non-empty object, got %s", describeValue(n))
		}
		sub, err := c.object(n, prefix, at, depth+1)
		return []cond{{kind: condNot, kids: []cond{sub}}}, err
	case "$exists":
		if n.typ != jBool {
			return nil, InvalidField(place, "$exists needs true or false, got %s", describeValue(n))
		}
		t, err := c.test(cond{kind: condTest, op: opExists, path: prefix, exists: n.b}, place, key)
		return []cond{t}, err
	case "$eq", "$neq":
		if n.typ == jArray || n.typ == jObject {
			return nil, InvalidField(place, "%s needs a string, number, boolean or null, got %s", key, describeValue(n))
		}
		t, err := c.test(cond{kind: condTest, op: opEq, path: prefix, vals: []literal{literalOf(n)}}, place, key)
		return negatedIf(key == "$neq", t), err
	case "$in", "$nin":
		t, err := c.in(n, key, prefix, place, at, depth)
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

func (c *filterCompiler) logical(n *jvalue, key string, prefix []string, at string, depth int) ([]cond, error) {
	if n.typ != jArray || len(n.kids) == 0 {
		return nil, InvalidField(at, "%s needs a non-empty array of objects, got %s", key, describeValue(n))
	}
	if depth+1 > MaxFilterDepth {
		return nil, InvalidField(at, "nested deeper than %d levels", MaxFilterDepth)
	}
	out := cond{kind: condAnd}
	if key == "$or" {
		out.kind = condOr
	}
	for i := range n.kids {
		place := fmt.Sprintf("%s[%d]", at, i)
		e := &n.kids[i]
		if e.typ != jObject || len(e.kids) == 0 {
			return nil, InvalidField(place, "%s needs non-empty objects, got %s", key, describeValue(e))
		}
		sub, err := c.object(e, prefix, place, depth+2)
		if err != nil {
			return nil, err
		}
		out.kids = append(out.kids, sub)
	}
	return []cond{out}, nil
}

func (c *filterCompiler) in(n *jvalue, key string, prefix []string, place, at string, depth int) (cond, error) {
	if n.typ != jArray || len(n.kids) == 0 {
		return cond{}, InvalidField(place, "%s needs a non-empty array of values, got %s", key, describeValue(n))
	}
	if depth+1 > MaxFilterDepth {
		return cond{}, InvalidField(at, "nested deeper than %d levels", MaxFilterDepth)
	}
	t := cond{kind: condTest, op: opIn, path: prefix}
	for i := range n.kids {
		e := &n.kids[i]
		if e.typ == jArray || e.typ == jObject {
			return cond{}, InvalidField(fmt.Sprintf("%s[%d]", at, i), "%s values are strings, numbers, booleans or null, got %s", key, describeValue(e))
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

// isComparison reports whether key is an operator that tests a field (not $and, $or, $not).
func isComparison(key string) bool {
	switch key {
	case "$eq", "$neq", "$in", "$nin", "$exists", "$gt", "$gte", "$lt", "$lte":
		return true
	}
	return false
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

func literalOf(n *jvalue) literal {
	return literal{typ: n.typ, b: n.b, num: n.num, str: n.str}
}

// orderLiteral is the argument of $gt and its kin: a number or a time.
func orderLiteral(n *jvalue, op, place string) (literal, error) {
	switch n.typ {
	case jNumber:
		return literalOf(n), nil
	case jString:
		if at, ok := parseFilterTime(n.str); ok {
			return literal{typ: jString, str: n.str, at: at, isTime: true}, nil
		}
		return literal{}, InvalidField(place, "%s compares numbers or times, and %q is neither (a time is an RFC 3339 timestamp such as 2026-01-31T09:00:00Z, or a date such as 2026-01-31)", op, n.str)
	}
	return literal{}, InvalidField(place, "%s needs a number or a time (an RFC 3339 timestamp or a YYYY-MM-DD date), got %s", op, describeValue(n))
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

// describeValue names a value for a message: its type, and a scalar's text.
func describeValue(n *jvalue) string {
	switch n.typ {
	case jString:
		return fmt.Sprintf("the string %q", n.str)
	case jNumber:
		return "the number " + n.str
	case jBool:
		return fmt.Sprintf("%t", n.b)
	case jArray:
		if len(n.kids) == 0 {
			return "an empty array"
		}
	case jObject:
		if len(n.kids) == 0 {
			return "an empty object"
		}
	}
	return jtypeName(n.typ)
}
