package outreach

import (
	"fmt"
	"strconv"
	"strings"
)

// This file is the JSON reader that destination filters and the envelopes they are matched
// against share. encoding/json decodes into maps (an allocation per value, and a filter's keys
// lose their order); this reader keeps a whole document in one slice of nodes whose strings are
// substrings of one copy of the source, so an event's body decodes in a handful of allocations
// and a lookup allocates nothing. It reads exactly what encoding/json reads, and decodes strings
// the same way (invalid UTF-8 and lone surrogates become U+FFFD); FuzzFilterMatch holds both.

// jtype is the JSON type of a decoded node.
type jtype uint8

const (
	jNull jtype = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// jnode is one value of a document. An array's or object's members are a chain from first
// through next (-1 ends it); an object member carries its name in key.
type jnode struct {
	typ   jtype
	b     bool
	num   float64
	str   string // a string's decoded text; a number's text
	key   string
	first int32
	next  int32
}

// jdoc is a decoded document; its root is nodes[0].
type jdoc struct {
	nodes []jnode
}

// jsonMaxDepth is encoding/json's own nesting limit, so the two refuse the same documents.
const jsonMaxDepth = 10000

// decodeJSON reads one JSON value (surrounding whitespace allowed) into a jdoc.
func decodeJSON(body []byte) (jdoc, error) {
	p := jparser{src: string(body), nodes: make([]jnode, 0, len(body)/16+4)}
	p.skipSpace()
	if err := p.value(1); err != nil {
		return jdoc{}, err
	}
	p.skipSpace()
	if p.pos < len(p.src) {
		return jdoc{}, p.errorf("unexpected %q after the value", p.src[p.pos])
	}
	if len(p.fixups) > 0 {
		decoded := string(p.buf)
		for _, f := range p.fixups {
			s := decoded[f.start:f.end]
			if f.key {
				p.nodes[f.node].key = s
			} else {
				p.nodes[f.node].str = s
			}
		}
	}
	return jdoc{nodes: p.nodes}, nil
}

type jparser struct {
	src   string
	pos   int
	nodes []jnode
	// buf holds the decoded text of strings with escapes (or invalid UTF-8); fixups say which
	// node each belongs to, set once buf is complete and turned into one string.
	buf    []byte
	fixups []jfixup
}

type jfixup struct {
	node       int32
	key        bool
	start, end int
}

func (p *jparser) errorf(format string, args ...any) error {
	return fmt.Errorf("malformed JSON at byte %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *jparser) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value reads the value at pos into a new node; depth counts the containers it is inside of,
// itself included.
func (p *jparser) value(depth int) error {
	if p.pos >= len(p.src) {
		return p.errorf("unexpected end")
	}
	idx := int32(len(p.nodes))
	p.nodes = append(p.nodes, jnode{first: -1, next: -1})
	switch c := p.src[p.pos]; {
	case c == '{' || c == '[':
		if depth > jsonMaxDepth {
			return p.errorf("nested deeper than %d levels", jsonMaxDepth)
		}
		if c == '{' {
			return p.object(idx, depth)
		}
		return p.array(idx, depth)
	case c == '"':
		p.nodes[idx].typ = jString
		text, span, err := p.str()
		p.setText(idx, false, text, span)
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(idx)
	case strings.HasPrefix(p.src[p.pos:], "true"):
		p.nodes[idx].typ, p.nodes[idx].b = jBool, true
		p.pos += 4
	case strings.HasPrefix(p.src[p.pos:], "false"):
		p.nodes[idx].typ = jBool
		p.pos += 5
	case strings.HasPrefix(p.src[p.pos:], "null"):
		p.pos += 4
	default:
		return p.errorf("invalid character %q looking for a value", c)
	}
	return nil
}

func (p *jparser) object(idx int32, depth int) error {
	p.nodes[idx].typ = jObject
	p.pos++ // {
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		return nil
	}
	prev := int32(-1)
	for {
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return p.errorf("expected a member name")
		}
		key, span, err := p.str()
		if err != nil {
			return err
		}
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return p.errorf("expected ':' after a member name")
		}
		p.pos++
		p.skipSpace()
		child := int32(len(p.nodes))
		if err := p.value(depth + 1); err != nil {
			return err
		}
		p.setText(child, true, key, span)
		p.link(idx, prev, child)
		prev = child
		if done, err := p.afterMember('}'); done || err != nil {
			return err
		}
	}
}

func (p *jparser) array(idx int32, depth int) error {
	p.nodes[idx].typ = jArray
	p.pos++ // [
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		return nil
	}
	prev := int32(-1)
	for {
		child := int32(len(p.nodes))
		if err := p.value(depth + 1); err != nil {
			return err
		}
		p.link(idx, prev, child)
		prev = child
		if done, err := p.afterMember(']'); done || err != nil {
			return err
		}
	}
}

func (p *jparser) link(parent, prev, child int32) {
	if prev < 0 {
		p.nodes[parent].first = child
	} else {
		p.nodes[prev].next = child
	}
}

// afterMember reads the ',' before another member or the closing bracket (done).
func (p *jparser) afterMember(closing byte) (done bool, err error) {
	p.skipSpace()
	if p.pos >= len(p.src) {
		return false, p.errorf("unexpected end")
	}
	switch p.src[p.pos] {
	case ',':
		p.pos++
		p.skipSpace()
		return false, nil
	case closing:
		p.pos++
		return true, nil
	}
	return false, p.errorf("expected ',' or %q", closing)
}

func (p *jparser) number(idx int32) error {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.src[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.src) && p.src[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return p.errorf("invalid number")
	}
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return p.errorf("invalid number")
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return p.errorf("invalid number")
		}
	}
	text := p.src[start:p.pos]
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return fmt.Errorf("the number %s at byte %d is out of range", text, start)
	}
	p.nodes[idx].typ, p.nodes[idx].num, p.nodes[idx].str = jNumber, f, text
	return nil
}

// member is the value of the object node's member named key (the last one when the name
// repeats, as encoding/json decodes it), or -1.
func (d *jdoc) member(node int32, key string) int32 {
	found := int32(-1)
	for ch := d.nodes[node].first; ch >= 0; ch = d.nodes[ch].next {
		if d.nodes[ch].key == key {
			found = ch
		}
	}
	return found
}
