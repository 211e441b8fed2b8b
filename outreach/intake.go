package outreach

// The intake URL is fed by no-code tools and spreadsheet exports whose column
// names and body shapes we do not control. The parser is therefore forgiving about names,
// shapes and value types, turns every row into the same LeadInput the keyed push uses, and
// reports a row it cannot read instead of failing the whole call — only a body that is not
// JSON at all, or has no rows or too many, is an error.

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode"
)

// MaxIntakeRows is the most rows one intake call may carry, the same as a push.
const MaxIntakeRows = 100

// IntakeResult is the parsed body: one row per person, in input order.
type IntakeResult struct {
	Rows []IntakeRow
}

// IntakeRow is one person of the body. Exactly one of Lead and Unreadable is set; an
// unreadable row is counted and reported, never silently dropped.
type IntakeRow struct {
	Index      int        // zero-based position in the body
	Lead       *LeadInput // nil when the row cannot be read
	Unreadable string     // reason when the row cannot be read
	Warnings   []string   // extra columns not kept as sent (see AddExtraFields)
}

// intakeFields maps squashed names (see squashFieldName) to canonical fields; it is the
// table in docs/api.md ("The intake URL") and deliberately no wider, so that what a column means is documented.
var intakeFields = map[string]string{
	"linkedinurl": "profile", "linkedin": "profile", "profileurl": "profile", "url": "profile",
	"link": "profile", "publicidentifier": "profile", "personlinkedinurl": "profile",
	"firstname": "first_name", "lastname": "last_name",
	"name": "name", "fullname": "name", "displayname": "name",
	"company": "company", "companyname": "company", "organization": "company",
	"employer": "company", "accountname": "company",
	"title": "title", "jobtitle": "title", "role": "title", "position": "title",
	"email": "email", "location": "location", "city": "city", "country": "country",
	"headline": "headline", "bio": "bio", "source": "source", "listname": "list_name",
}

// IntakeFields are the lead fields a column or key can fill, in the order the intake's table
// lists them.
var IntakeFields = []string{"profile", "first_name", "last_name", "name", "company", "title", "email", "location",
	"city", "country", "headline", "bio", "source", "list_name"}

// IntakeFieldNames lists, for each of IntakeFields, the names (squashed: no case, spaces,
// underscores or hyphens) a column is read as it by, sorted.
func IntakeFieldNames() map[string][]string {
	out := map[string][]string{}
	for name, field := range intakeFields {
		out[field] = append(out[field], name)
	}
	for _, names := range out {
		slices.Sort(names)
	}
	return out
}

// squashFieldName makes case, spaces, underscores, hyphens and camelCase equivalent by
// removing the separators and folding case: "Person Linkedin Url", "person_linkedin_url" and
// "personLinkedInURL" all become "personlinkedinurl". Removing word boundaries instead of
// detecting them is what makes "LinkedInURL" match "linkedin_url".
func squashFieldName(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(unicode.ToUpper(r))
	}, name)
}

// CanonicalIntakeField names the field a column means, or reports false for an extra column.
func CanonicalIntakeField(name string) (string, bool) {
	f, ok := intakeFields[squashFieldName(name)]
	return f, ok
}

// ParseIntake reads an intake body: one person object, a bare array, or {"leads": [...]}.
// An object is a wrapper when it has a "leads" key (names matched loosely) holding an array
// and no profile column; anything else is one person, so a person whose CRM export happens to
// carry a "leads" column is still read as a person. Errors wrap ErrInvalid.
func ParseIntake(body []byte) (IntakeResult, error) {
	raws, err := intakeRows(body)
	if err != nil {
		return IntakeResult{}, err
	}
	if len(raws) == 0 {
		return IntakeResult{}, invalidf("body holds no leads")
	}
	rows := make([]IntakeRow, len(raws))
	for i, raw := range raws {
		rows[i] = parseIntakeRow(i, raw)
	}
	return IntakeResult{Rows: rows}, nil
}

func intakeRows(body []byte) ([]json.RawMessage, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, invalidf("body is empty")
	}
	if !json.Valid(body) {
		return nil, invalidf("body is not valid JSON")
	}
	switch body[0] {
	case '[':
		return arrayElems(body)
	case '{':
		pairs, err := objectPairs(body)
		if err != nil {
			return nil, invalidf("body is not valid JSON")
		}
		var leads json.RawMessage
		for _, p := range pairs {
			f, _ := CanonicalIntakeField(p.Key)
			if f == "profile" {
				return []json.RawMessage{body}, nil
			}
			if leads == nil && squashFieldName(p.Key) == "leads" && p.Value[0] == '[' {
				leads = p.Value
			}
		}
		if leads != nil {
			return arrayElems(leads)
		}
		return []json.RawMessage{body}, nil
	}
	return nil, invalidf("body must be a JSON object or an array of objects")
}

// arrayElems splits a valid JSON array, stopping as soon as the row limit is exceeded so an
// oversized body costs no more than the rows we would accept.
func arrayElems(arr []byte) ([]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(arr))
	if _, err := dec.Token(); err != nil {
		return nil, invalidf("body is not valid JSON")
	}
	var out []json.RawMessage
	for dec.More() {
		if len(out) == MaxIntakeRows {
			return nil, invalidf("more than %d leads in one call", MaxIntakeRows)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, invalidf("body is not valid JSON")
		}
		out = append(out, raw)
	}
	return out, nil
}

// objectPairs keeps the keys of an object in input order (a map would lose it), which is what
// "first value wins" and "first 20 extra columns" are defined on.
func objectPairs(obj []byte) ([]LeadField, error) {
	var pairs []LeadField
	if err := EachLeadField(obj, func(f LeadField) { pairs = append(pairs, f) }); err != nil {
		return nil, err
	}
	return pairs, nil
}

// fallbackFields fill another field only when it is absent; when they are not used they are
// kept in Data so nothing the client sent is lost.
var fallbackFields = map[string]bool{"city": true, "country": true, "bio": true, "list_name": true}

// parseIntakeRow reads one row. For each known field the first non-empty scalar wins, in
// input order; numbers and booleans become their JSON text; nested values in a known field
// are ignored. A missing profile makes the row unreadable; a profile that is present but
// invalid is left for NormalizeProfile so it is rejected exactly as a push would reject it.
func parseIntakeRow(index int, raw json.RawMessage) IntakeRow {
	if len(raw) == 0 || raw[0] != '{' {
		return IntakeRow{Index: index, Unreadable: "row is not a JSON object"}
	}
	pairs, err := objectPairs(raw)
	if err != nil {
		return IntakeRow{Index: index, Unreadable: "row is not a JSON object"}
	}
	return IntakeRowFromFields(index, pairs)
}

// IntakeRowFromFields reads one person from their fields in the order given (an intake row's
// keys, a file's header and cells), matching the names as the intake URL does.
func IntakeRowFromFields(index int, pairs []LeadField) IntakeRow {
	known := map[string]string{}
	from := map[string]int{} // canonical field -> index of the pair that supplied it
	for i, p := range pairs {
		f, ok := CanonicalIntakeField(p.Key)
		if !ok {
			continue
		}
		if _, seen := known[f]; seen {
			continue
		}
		if s, ok := scalarText(p.Value); ok && s != "" {
			known[f], from[f] = s, i
		}
	}
	if known["profile"] == "" {
		return IntakeRow{Index: index, Unreadable: "row has no LinkedIn profile (linkedin_url or another accepted name)"}
	}
	lead := &LeadInput{
		LinkedInURL: known["profile"], FirstName: known["first_name"], LastName: known["last_name"],
		Name: known["name"], Company: known["company"], Title: known["title"], Email: known["email"],
		Location: known["location"], Headline: known["headline"], Source: known["source"],
	}
	used := map[string]bool{}
	if lead.Location == "" && (known["city"] != "" || known["country"] != "") {
		lead.Location = strings.Trim(known["city"]+", "+known["country"], ", ")
		used["city"], used["country"] = true, true
	}
	if lead.Headline == "" && known["bio"] != "" {
		lead.Headline, used["bio"] = known["bio"], true
	}
	if lead.Source == "" && known["list_name"] != "" {
		lead.Source, used["list_name"] = known["list_name"], true
	}
	// Extra columns (and fallback columns that filled nothing) are kept in Data as far as its
	// limits allow, the same way a keyed push keeps its unknown fields; what is not kept is
	// reported in Warnings.
	var extras []LeadField
	for i, p := range pairs {
		f, ok := CanonicalIntakeField(p.Key)
		if !ok || (fallbackFields[f] && !used[f] && from[f] == i && known[f] != "") {
			extras = append(extras, p)
		}
	}
	var warnings []string
	lead.Data, warnings = AddExtraFields(nil, extras)
	return IntakeRow{Index: index, Lead: lead, Warnings: warnings}
}

// scalarText renders a scalar as the trimmed string a known field stores (numbers and
// booleans as their JSON text); ok is false for null, objects and arrays. Unlike extra
// columns nothing is cut here: a shortened profile link could turn into someone else's.
func scalarText(raw json.RawMessage) (string, bool) {
	switch v := decodeScalar(raw).(type) {
	case string:
		return strings.TrimSpace(v), true
	case json.Number:
		return string(v), true
	case bool:
		if v {
			return "true", true
		}
		return "false", true
	}
	return "", false
}

// decodeScalar returns a string, json.Number or bool, or nil for null, objects and arrays
// (which are not decoded at all).
func decodeScalar(raw json.RawMessage) any {
	if len(raw) == 0 || raw[0] == '{' || raw[0] == '[' || raw[0] == 'n' {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	return v
}
