package outreach

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// This file reads a filter's JSON with encoding/json's Decoder, token by token, into a small
// tree that keeps what a map would lose: the members of an object in the order written (so the
// compiler meets, and messages name, the first problem as the client reads it) and repeated
// names (so the compiler can refuse them by place). Numbers are read as written (json.Number),
// so messages quote them as the client wrote them.

// jtype is the JSON type of a value.
type jtype uint8

const (
	jNull jtype = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// jvalue is one value of a filter as written.
type jvalue struct {
	typ  jtype
	b    bool
	num  float64
	str  string   // a string's text; a number's text as written
	keys []string // an object's member names in order: keys[i] names kids[i]
	kids []jvalue // an object's member values or an array's elements
}

// readFilterJSON reads raw, which json.Compact has already found to be one valid JSON value of
// at most MaxFilterBytes, so its recursion is bounded; the compiler refuses, at its place,
// whatever is nested deeper than MaxFilterDepth.
func readFilterJSON(raw []byte) (jvalue, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return readValue(dec)
}

func readValue(dec *json.Decoder) (jvalue, error) {
	tok, err := dec.Token()
	if err != nil {
		return jvalue{}, err
	}
	switch t := tok.(type) {
	case json.Delim: // an opening one: Token returns a closing one only where a container ends
		return readContainer(dec, t)
	case json.Number:
		f, err := t.Float64()
		if err != nil {
			start := dec.InputOffset() - int64(len(t))
			return jvalue{}, fmt.Errorf("the number %s at byte %d is out of range", t, start)
		}
		return jvalue{typ: jNumber, num: f, str: t.String()}, nil
	case string:
		return jvalue{typ: jString, str: t}, nil
	case bool:
		return jvalue{typ: jBool, b: t}, nil
	}
	return jvalue{typ: jNull}, nil
}

func readContainer(dec *json.Decoder, open json.Delim) (jvalue, error) {
	v := jvalue{typ: jArray}
	if open == '{' {
		v.typ = jObject
	}
	for dec.More() {
		if v.typ == jObject {
			name, err := dec.Token()
			if err != nil {
				return jvalue{}, err
			}
			v.keys = append(v.keys, name.(string)) // Token gives a member name as a string
		}
		kid, err := readValue(dec)
		if err != nil {
			return jvalue{}, err
		}
		v.kids = append(v.kids, kid)
	}
	_, err := dec.Token() // the closing delimiter
	return v, err
}

// syntaxProblem words the syntax error json.Compact found in raw as every request body's is
// worded, with the byte it is at: Compact's errors name none, while Unmarshal checks the whole
// text, and names the byte, before it decodes anything.
func syntaxProblem(raw []byte, err error) string {
	var v json.RawMessage
	if uerr := json.Unmarshal(raw, &v); uerr != nil {
		err = uerr
	}
	return DescribeJSONError(err, "filter")
}

func jtypeName(t jtype) string {
	return [...]string{jNull: "null", jBool: "a boolean", jNumber: "a number", jString: "a string", jArray: "an array", jObject: "an object"}[t]
}
