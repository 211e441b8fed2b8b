package outreach

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// leadFieldsReference is how pushed leads were split before EachLeadField: json.Decoder.Token
// for the keys and Decode into a json.RawMessage for the values. It is kept only as the
// behaviour EachLeadField must reproduce exactly (FuzzEachLeadFieldMatchesReference).
func leadFieldsReference(raw []byte) ([]LeadField, bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	var out []LeadField
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, false
		}
		out = append(out, LeadField{Key: key, Value: val})
	}
	return out, true
}

// FuzzEachLeadFieldMatchesReference: for any bytes, EachLeadField accepts what the decoder
// loop accepted and gives the same keys and the same value bytes, in the same order.
func FuzzEachLeadFieldMatchesReference(f *testing.F) {
	for _, s := range []string{
		`{"linkedin_url": "https://www.linkedin.com/in/jane", "Name": "Jane", "x": 1, "y": null, "z": true, "w": false}`,
		`{"a": {"b": [1, "]", {"c": "}"}]}, "d": [], "e": {}}`, `{"k\u00e9\"\\\/\b\f\n\r\t\u2028": "v"}`,
		`{"\ud800": 1, "\udc00\ud800\udc00": 2}`, "{\"k\xff\xe2\x80\": \"v\xc3\"}", `{"a": -0.5E+3, "b": 0, "c": 1e5}`,
		`{"a":1} trailing`, `{"a":1}}`, `{"a":1]`, `{"a":1`, `{"a":"x"`, `{"a":1,}`, `{"a":1 "b":2}`, `{"a" 1}`,
		`{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":1e+}`, `{"a":tru}`, `{"a":truex}`, `{"a":[1,2}]}`,
		"{\"a\":\"\x01\"}", `{"a":"\q"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`, `{"a":"x\`, `{`, `{}`, `{]`, `{,}`,
		`{1:2}`, `{"a"}`, `{"a":}`, `{"a":   }`, ` {}`, `[]`, `"x"`, ``, "{\r\n\t\"a\"\t:\n1\r}",
		`{"a":[[[[[[[[[[1]]]]]]]]]]}`, `{"a":[[[[[[[[[[1]]]]]]]]]}`, `{"a":{"b":{"c":{}}}},"b":[{"x":"\"]"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(fieldsMatchReference)
}

// TestEachLeadFieldMatchesReferenceOnDeepValues: encoding/json refuses a value nested deeper
// than 10,000 levels, and so must EachLeadField (inputs this large would slow the fuzzer down).
func TestEachLeadFieldMatchesReferenceOnDeepValues(t *testing.T) {
	for _, depth := range []int{9999, 10000, 10001} {
		nested := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		fieldsMatchReference(t, []byte(`{"a": `+nested+`, "b": {"c": `+nested+`}}`))
		fieldsMatchReference(t, []byte(`{"a": "`+strings.Repeat("é", 3000)+`", "b": `+nested+`}`))
	}
}

// fieldsMatchReference fails t unless EachLeadField and the reference agree on raw.
func fieldsMatchReference(t *testing.T, raw []byte) {
	var got []LeadField
	err := EachLeadField(raw, func(f LeadField) { got = append(got, f) })
	want, ok := leadFieldsReference(raw)
	if (err == nil) != ok {
		t.Fatalf("EachLeadField(%q) = %v, the reference accepts it: %v", raw, err, ok)
	}
	if ok && fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Fatalf("EachLeadField(%q)\ngave      %q\nreference %q", raw, got, want)
	}
}
