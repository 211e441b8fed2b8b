package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"outreachd/outreach"
)

// decodePushLeadReference is decodePushLead as it was before it was made cheaper: it splits the
// object, re-encodes the known fields as an object and decodes that strictly into
// pushLeadBodyReference. It is kept, renamed, only as the behaviour decodePushLead must reproduce
// exactly (FuzzDecodePushLeadMatchesReference). The split is outreach.EachLeadField's, which
// FuzzEachLeadFieldMatchesReference holds to the json.Decoder.Token split it replaced.
func decodePushLeadReference(raw json.RawMessage) (outreach.LeadInput, []string, error) {
	var fields []outreach.LeadField
	if err := outreach.EachLeadField(raw, func(f outreach.LeadField) { fields = append(fields, f) }); err != nil {
		return outreach.LeadInput{}, nil, invalid(" must be a JSON object")
	}
	known := map[string]json.RawMessage{}
	var extras []outreach.LeadField
	for _, f := range fields {
		if i := slices.IndexFunc(pushLeadFieldsReference, func(n string) bool { return strings.EqualFold(n, f.Key) }); i >= 0 {
			known[pushLeadFieldsReference[i]] = f.Value // the last one wins, as with Go's decoder
			continue
		}
		extras = append(extras, f)
	}
	knownJSON, err := json.Marshal(known)
	if err != nil {
		return outreach.LeadInput{}, nil, invalid(" cannot be read")
	}
	var b pushLeadBodyReference
	if err := decodeStrict(knownJSON, &b); err != nil {
		if ie, ok := errors.AsType[*outreach.InvalidInputError](err); ok && ie.Field != "" {
			return outreach.LeadInput{}, nil, invalid(".%s %s", ie.Field, ie.Problem)
		}
		return outreach.LeadInput{}, nil, invalid(": %s", err.Error())
	}
	if b.LinkedInURL == nil {
		return outreach.LeadInput{}, nil, invalid(".linkedin_url is required")
	}
	in := outreach.LeadInput{LinkedInURL: *b.LinkedInURL, FirstName: b.FirstName, LastName: b.LastName, Name: b.Name,
		Company: b.Company, Title: b.Title, Email: b.Email, Location: b.Location, Headline: b.Headline,
		Source: strings.TrimSpace(b.Source), Data: b.Data}
	if err := in.Check(); err != nil {
		return outreach.LeadInput{}, nil, fmt.Errorf(".%w", err)
	}
	var warnings []string
	in.Data, warnings = outreach.AddExtraFields(in.Data, extras)
	return in, warnings, nil
}

var pushLeadFieldsReference = []string{"linkedin_url", "first_name", "last_name", "name", "company", "title", "email",
	"location", "headline", "source", "data"}

type pushLeadBodyReference struct {
	LinkedInURL *string        `json:"linkedin_url"`
	FirstName   string         `json:"first_name"`
	LastName    string         `json:"last_name"`
	Name        string         `json:"name"`
	Company     string         `json:"company"`
	Title       string         `json:"title"`
	Email       string         `json:"email"`
	Location    string         `json:"location"`
	Headline    string         `json:"headline"`
	Source      string         `json:"source"`
	Data        map[string]any `json:"data"`
}

// typicalPushLead is a lead as CRM exports push them: the contract's text fields and two
// columns of the export's own.
const typicalPushLead = `{"linkedin_url": "https://www.linkedin.com/in/jane-doe-4b1a2c", "first_name": "Jane",
	"last_name": "Doe", "company": "Acme Industrial GmbH", "title": "Head of Sales DACH",
	"email": "jane.doe@acme-industrial.example", "location": "Berlin, Germany",
	"headline": "Helping mid-sized manufacturers sell into Europe", "source": "hubspot-export",
	"Phone": "+49 30 1234567", "Employees": 250}`

func BenchmarkDecodePushLead(b *testing.B) {
	raw := json.RawMessage(typicalPushLead)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := decodePushLead(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzDecodePushLeadMatchesReference: for any bytes a lead of a push can be, decodePushLead
// gives what the reference gives — the same lead, the same warnings, the same error text and
// error type.
func FuzzDecodePushLeadMatchesReference(f *testing.F) {
	for _, s := range []string{
		typicalPushLead,
		`{"linkedin_url": "good-guy"}`, `{"name": "No Url"}`, `{"linkedin_url": 42}`, `{"linkedin_url": null}`,
		`{"linkedin_url": "a", "LinkedIn_URL": null}`, `{"LINKEDIN_URL": "a", "linkedin_url": "b", "Linkedin_Url": "c"}`,
		`{"linkedin_url": "x", "first_name": 1, "company": true, "title": {}}`,
		`{"linkedin_url": "x", "title": [], "data": "s"}`, `{"linkedin_url": "x", "name": 1, "name": "ok"}`,
		`{"linkedin_url": "x", "first_name": "ok", "FIRST_NAME": 2}`, `{"first_name": 1}`,
		`{"linkin_url": "x", "data": {"a": 1, "b": "c", "d": null, "e": true}}`,
		`{"linkedin_url": "x", "data": {"a": {"b": 1}}}`, `{"linkedin_url": "x", "data": {"a": 1e400}}`,
		`{"linkedin_url": "x", "data": [1], "phone": "1"}`, `{"linkedin_url": "x", "data": null, "Data": {"k": "v"}}`,
		`{"linkedin_url": "x", "phone": "+49 30 1234", "Employees": 42, "vip": true, "tags": ["a","b"], "empty": null}`,
		`{"linkedin_url": "x", "nested": {"a": [1, {"b": "}"}]}, "": "empty key", " ": "blank"}`,
		`{"linkedin_url": "x", "source": "  crm  ", "email": "a\u00e9\"\\/\b\f\n\r\t"}`,
		`{"linkedin_url": "x", "first_name": "\ud800\udc00\udc00", "last_name": "\u0000"}`,
		"{\"linkedin_url\": \"x\", \"last_name\": \"\xff\xfe\xe2\x80\xa8\", \"k\xff\": \"v\xc3\", \"\xe2\x80\xa9\": 1}",
		`{"linkedin_url": "x", "title": "<b>&amp;</b>\u2028", "lin\u212Aedin_url": "kelvin", "ſource": "long s"}`,
		`{"linkedin_url": "x"} trailing`, `{"linkedin_url": "x"}}`, `{"linkedin_url": "x"]`, `{"linkedin_url": "x"`,
		`{"linkedin_url": "x",}`, `{"linkedin_url": "x" "a": 1}`, `{"linkedin_url" "x"}`, `{"a":01}`, `{"a":-}`,
		`{"a":1.}`, `{"a":1e+}`, `{"a":-0.5E-3}`, `{"a":tru}`, `{"a":nul}`, `{"a":[1,2}]}`, "{\"a\":\"\x01\"}",
		"{\"a\":\"\x7f\"}", `{"a":"\q"}`, `{"a":"\u12"}`, `{`, `{}`, `{]`, `{,}`, `{1:2}`, `{"a"}`,
		` {"linkedin_url": "x"}`, `[]`, `"x"`, `null`, ``, "{\"linkedin_url\":\"x\"\t,\r\n\"a\" : 1 }",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(matchesReference)
}

// TestDecodePushLeadMatchesReferenceOnLargeLeads: the inputs too large to seed the fuzzer with
// (mutating and minimizing them would take most of its time) — text over the limits, and
// values nested as deeply as a lead can.
func TestDecodePushLeadMatchesReferenceOnLargeLeads(t *testing.T) {
	long := strings.Repeat("é", 2100)
	nested := func(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }
	for _, raw := range []string{
		`{"linkedin_url": "x", "company": "` + strings.Repeat("x", 501) + `"}`,
		`{"linkedin_url": "x", "note": "` + long + `", "headline": "` + long + `"}`,
		`{"linkedin_url": "x", "note": "` + long + `", "headline": "` + long[:1500] + `"}`,
		`{"linkedin_url": "x", "data": {"a": ` + nested(maxLeadDepth-2) + `}}`,
		`{"linkedin_url": "x", "extra": ` + nested(maxLeadDepth-1) + `}`,
	} {
		matchesReference(t, []byte(raw))
	}
}

// maxLeadDepth is how deeply a lead can nest: encoding/json refuses a body nested deeper than
// 10,000 levels, and a lead is the third level of its push's body, {"leads": [lead]}.
const maxLeadDepth = 10000 - 2

// matchesReference fails t unless decodePushLead and the reference agree on raw.
func matchesReference(t *testing.T, raw []byte) {
	// Values cannot nest deeper than their open brackets. Deeper than a request can carry a
	// lead, the reference failed where decodePushLead does not: it re-encoded the known fields
	// one level deeper, past encoding/json's limit.
	if bytes.Count(raw, []byte("["))+bytes.Count(raw, []byte("{")) > maxLeadDepth {
		return
	}
	in, warnings, err := decodePushLead(raw)
	refIn, refWarnings, refErr := decodePushLeadReference(raw)
	if !reflect.DeepEqual(in, refIn) {
		t.Fatalf("decodePushLead(%q)\nlead      %#v\nreference %#v", raw, in, refIn)
	}
	if !reflect.DeepEqual(warnings, refWarnings) {
		t.Fatalf("decodePushLead(%q)\nwarnings  %#v\nreference %#v", raw, warnings, refWarnings)
	}
	if errorShape(err) != errorShape(refErr) {
		t.Fatalf("decodePushLead(%q)\nerror     %s\nreference %s", raw, errorShape(err), errorShape(refErr))
	}
}

// errorShape is what a caller can see of a decoding error: its text, its type, and the
// InvalidInputError it holds.
func errorShape(err error) string {
	if err == nil {
		return "<nil>"
	}
	shape := fmt.Sprintf("%T %q", err, err.Error())
	if ie, ok := errors.AsType[*outreach.InvalidInputError](err); ok {
		shape += fmt.Sprintf(" invalid{message %q, field %q, problem %q, kind %v, cause %T}", ie.Message, ie.Field, ie.Problem, ie.Kind, ie.Err)
	}
	return shape
}

// TestPushLeadFieldsInNameOrder: a lead with several fields of the wrong type is refused for
// the first of them in pushLeadFields, which must be in name order.
func TestPushLeadFieldsInNameOrder(t *testing.T) {
	var names []string
	for _, f := range pushLeadFields {
		names = append(names, f.name)
	}
	if !slices.IsSorted(names) {
		t.Fatalf("pushLeadFields are not in name order: %q", names)
	}
}
