package outreach

import (
	"fmt"
	"strings"
)

// The catalogue check of a filter: every field it names must exist in the envelope of at least
// one kind the destination selects, and hold the JSON type it is compared with. The envelopes'
// schemas are the ones GET /event-types publishes (EventKind.DataSchema), so a filter is checked
// against exactly what integrators read. Below an open part of a schema (an object that takes
// any member, a value of any type) every path is allowed and every literal fits.

// filterCatalogue is the envelope schema of each kind a filter is checked against.
type filterCatalogue struct {
	kinds   []EventKind
	all     bool // the selection is every kind (messages say so rather than list 27)
	schemas []map[string]any
}

func newFilterCatalogue(selected []EventKind) (*filterCatalogue, error) {
	c := &filterCatalogue{all: len(selected) == 0}
	for _, s := range selected {
		c.all = c.all || s == EventsAll
	}
	for _, k := range AllEventKinds() {
		if !k.Matches(selected) {
			continue
		}
		c.kinds = append(c.kinds, k)
		c.schemas = append(c.schemas, k.EnvelopeSchema())
	}
	if len(c.kinds) == 0 {
		return nil, InvalidField("filter", "cannot be checked: the destination selects no known event kind")
	}
	return c, nil
}

// check refuses test t (at place in the filter; op as written, "" for a bare literal) when its
// field exists in no selected kind or can never hold the type of a value it is compared with.
func (c *filterCatalogue) check(t cond, place, op string) error {
	field := strings.Join(t.path, ".")
	var ft fieldTypes
	found := false
	for _, s := range c.schemas {
		found = walkSchema(s, t.path, &ft) || found
	}
	if !found {
		if c.all {
			return InvalidField(place, "%s is not a field of any event kind (GET /event-types lists the fields of each)", field)
		}
		return InvalidField(place, "%s is not a field of %s events (GET /event-types lists the fields of each)", field, orList(c.kinds))
	}
	for _, v := range t.vals {
		if !ft.open && !ft.accepts(v.typ) {
			what := describeLiteral(v)
			if op != "" {
				return InvalidField(place, "%s compares %s with %s, which is %s", op, what, field, ft.describe())
			}
			return InvalidField(place, "%s is compared with %s, which is %s", what, field, ft.describe())
		}
		if field == "event" && v.typ == jString && !v.isTime && !EventKind(v.str).Valid() {
			return InvalidField(place, "unknown event kind %q", v.str)
		}
	}
	return nil
}

// typeBits is a set of JSON Schema types.
type typeBits uint8

const (
	tString typeBits = 1 << iota
	tInteger
	tNumber
	tBoolean
	tObject
	tArray
	tNull
)

var typeNames = []struct {
	bit            typeBits
	name, plural   string
	schemaTypeName string
}{
	{tString, "a string", "strings", "string"}, {tInteger, "an integer", "integers", "integer"},
	{tNumber, "a number", "numbers", "number"}, {tBoolean, "a boolean", "booleans", "boolean"},
	{tObject, "an object", "objects", "object"}, {tArray, "an array", "arrays", "array"},
	{tNull, "null", "nulls", "null"},
}

// fieldTypes is what the schemas say a field holds, over every kind that has it.
type fieldTypes struct {
	open  bool     // some kind leaves it open: any value
	leaf  typeBits // the types of the field's value
	elems typeBits // the types of its array elements, at any depth
}

// accepts reports whether a literal of type t can equal (or be ordered against) one of the
// field's values or array elements.
func (ft fieldTypes) accepts(t jtype) bool {
	have := ft.leaf | ft.elems
	switch t {
	case jString:
		return have&tString != 0
	case jNumber:
		return have&(tInteger|tNumber) != 0
	case jBool:
		return have&tBoolean != 0
	case jNull:
		return have&tNull != 0
	}
	return false
}

func (ft fieldTypes) describe() string {
	var parts []string
	for _, n := range typeNames {
		if ft.leaf&n.bit == 0 {
			continue
		}
		if n.bit == tArray && ft.elems != 0 {
			var of []string
			for _, e := range typeNames {
				if ft.elems&e.bit != 0 {
					of = append(of, e.plural)
				}
			}
			parts = append(parts, "an array of "+strings.Join(of, " or "))
			continue
		}
		parts = append(parts, n.name)
	}
	return strings.Join(parts, " or ")
}

// walkSchema adds to ft what schema s says about path and reports whether the path exists in it.
// An array stands for its elements (a path goes through it), as in matching.
func walkSchema(s any, path []string, ft *fieldTypes) bool {
	if s == nil || s == true {
		ft.open = true
		return true
	}
	m, ok := s.(map[string]any)
	if !ok {
		return false
	}
	types := schemaTypes(m)
	if types == 0 {
		ft.open = true // a schema without a type takes any value
		return true
	}
	if len(path) == 0 {
		ft.leaf |= types
		if types&tArray != 0 {
			addItems(m["items"], ft)
		}
		return true
	}
	found := false
	if types&tObject != 0 {
		if p, ok := schemaProperty(m, path[0]); ok {
			found = walkSchema(p, path[1:], ft)
		} else if ap, set := m["additionalProperties"]; !set || ap != false {
			found = walkSchema(ap, path[1:], ft)
		}
	}
	if types&tArray != 0 && walkSchema(m["items"], path, ft) {
		found = true
	}
	return found
}

func schemaProperty(m map[string]any, name string) (any, bool) {
	props, _ := m["properties"].(map[string]any)
	p, ok := props[name]
	return p, ok
}

// addItems adds the types of an array's elements (of its nested arrays' too) to ft.elems.
func addItems(items any, ft *fieldTypes) {
	m, ok := items.(map[string]any)
	if !ok {
		ft.open = ft.open || items == nil || items == true
		return
	}
	types := schemaTypes(m)
	if types == 0 {
		ft.open = true
		return
	}
	ft.elems |= types
	if types&tArray != 0 {
		addItems(m["items"], ft)
	}
}

// schemaTypes reads a schema's "type", a name or a list of names.
func schemaTypes(m map[string]any) typeBits {
	var names []string
	switch t := m["type"].(type) {
	case string:
		names = []string{t}
	case []any:
		for _, n := range t {
			if s, ok := n.(string); ok {
				names = append(names, s)
			}
		}
	case []string:
		names = t
	}
	var out typeBits
	for _, name := range names {
		for _, n := range typeNames {
			if n.schemaTypeName == name {
				out |= n.bit
			}
		}
	}
	return out
}

// describeLiteral names a filter's value in a message.
func describeLiteral(v literal) string {
	switch {
	case v.isTime:
		return fmt.Sprintf("the time %q", v.str)
	case v.typ == jString:
		return fmt.Sprintf("the string %q", v.str)
	case v.typ == jNumber:
		return "the number " + v.str
	case v.typ == jBool:
		return fmt.Sprintf("%t", v.b)
	}
	return "null"
}

// orList is "a", "a or b", "a, b or c".
func orList(kinds []EventKind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
