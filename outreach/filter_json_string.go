package outreach

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The strings of the JSON reader (filter_json.go): most are substrings of the source; those
// with escapes or invalid UTF-8 are decoded into one buffer, exactly as encoding/json decodes
// them.

// bufSpan is where a decoded string lies in buf; decoded is false for a string that needed no
// decoding (it is a substring of the source).
type bufSpan struct {
	decoded    bool
	start, end int
}

// setText gives node idx its string (or member name): text, or the span of buf that will hold it.
func (p *jparser) setText(idx int32, key bool, text string, span bufSpan) {
	switch {
	case span.decoded:
		p.fixups = append(p.fixups, jfixup{node: idx, key: key, start: span.start, end: span.end})
	case key:
		p.nodes[idx].key = text
	default:
		p.nodes[idx].str = text
	}
}

// str reads the string at pos. One with neither escapes nor invalid UTF-8 is a substring of the
// source; any other is decoded into buf, the way encoding/json decodes it, and span says where.
func (p *jparser) str() (string, bufSpan, error) {
	p.pos++ // "
	start := p.pos
	var span bufSpan
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			if !span.decoded {
				return p.src[start : p.pos-1], span, nil
			}
			span.end = len(p.buf)
			return "", span, nil
		case c == '\\':
			p.decodeFrom(&span, start)
			if err := p.escape(); err != nil {
				return "", span, err
			}
		case c < 0x20:
			return "", span, p.errorf("control character %q in a string", c)
		case c < utf8.RuneSelf:
			if span.decoded {
				p.buf = append(p.buf, c)
			}
			p.pos++
		default:
			r, size := utf8.DecodeRuneInString(p.src[p.pos:])
			if r == utf8.RuneError && size == 1 {
				p.decodeFrom(&span, start) // an invalid byte reads as U+FFFD
			}
			if span.decoded {
				p.buf = utf8.AppendRune(p.buf, r)
			}
			p.pos += size
		}
	}
	return "", span, p.errorf("unexpected end in a string")
}

// decodeFrom switches the string that began at start to decoding, at its first escape or
// invalid byte: what came before is copied to buf as it is.
func (p *jparser) decodeFrom(span *bufSpan, start int) {
	if !span.decoded {
		span.decoded, span.start = true, len(p.buf)
		p.buf = append(p.buf, p.src[start:p.pos]...)
	}
}

func (p *jparser) escape() error {
	if p.pos+1 >= len(p.src) {
		return p.errorf("unexpected end in a string")
	}
	c := p.src[p.pos+1]
	if simple := unescaped(c); simple != 0 {
		p.buf = append(p.buf, simple)
		p.pos += 2
		return nil
	}
	if c != 'u' {
		return p.errorf("invalid escape \\%c", c)
	}
	r, ok := hex4(p.src[p.pos+2:])
	if !ok {
		return p.errorf("invalid \\u escape")
	}
	p.pos += 6
	if utf16.IsSurrogate(r) {
		// A high surrogate followed by a low one is one rune; any other surrogate is U+FFFD and
		// what follows it is read on its own.
		if len(p.src)-p.pos >= 6 && p.src[p.pos] == '\\' && p.src[p.pos+1] == 'u' {
			if r2, ok := hex4(p.src[p.pos+2:]); ok {
				if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
					p.buf = utf8.AppendRune(p.buf, dec)
					p.pos += 6
					return nil
				}
			}
		}
		r = unicode.ReplacementChar
	}
	p.buf = utf8.AppendRune(p.buf, r)
	return nil
}

// unescaped is the byte a one-letter escape stands for, 0 for none.
func unescaped(c byte) byte {
	switch c {
	case '"', '\\', '/':
		return c
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return 0
}

func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[:4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
