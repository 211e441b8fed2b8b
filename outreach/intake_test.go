package outreach

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestCanonicalIntakeField(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"Person Linkedin Url", "profile"}, {"person_linkedin_url", "profile"},
		{"personLinkedinUrl", "profile"}, {"PERSON-LINKEDIN-URL", "profile"},
		{"LinkedInURL", "profile"}, {"linkedin_url", "profile"}, {"LinkedIn", "profile"},
		{"Profile URL", "profile"}, {"url", "profile"}, {"Link", "profile"},
		{"publicIdentifier", "profile"},
		{"First Name", "first_name"}, {"firstName", "first_name"}, {"LAST_NAME", "last_name"},
		{"name", "name"}, {"Full Name", "name"}, {"displayName", "name"},
		{"Company", "company"}, {"company_name", "company"}, {"Organization", "company"},
		{"employer", "company"}, {"Account Name", "company"},
		{"title", "title"}, {"Job Title", "title"}, {"role", "title"}, {"Position", "title"},
		{"E-mail", "email"}, {"location", "location"}, {"City", "city"}, {"country", "country"},
		{"headline", "headline"}, {"Bio", "bio"}, {"source", "source"}, {"List Name", "list_name"},
		{" \temail\n", "email"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := CanonicalIntakeField(tt.in)
			if !ok || got != tt.want {
				t.Fatalf("CanonicalIntakeField(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
			}
		})
	}
	for _, in := range []string{"", "phone", "linkedin profile url", "leads", "user.name", "company size"} {
		if got, ok := CanonicalIntakeField(in); ok {
			t.Errorf("CanonicalIntakeField(%q) = %q, want no match", in, got)
		}
	}
}

func TestParseIntakeShapes(t *testing.T) {
	person := `{"linkedin_url":"https://www.linkedin.com/in/jane-doe","name":"Jane"}`
	tests := []struct {
		name     string
		body     string
		profiles []string // LinkedInURL per row; "" for an unreadable row
	}{
		{"one object", person, []string{"https://www.linkedin.com/in/jane-doe"}},
		{"bare array", `[` + person + `,{"url":"john-roe"}]`, []string{"https://www.linkedin.com/in/jane-doe", "john-roe"}},
		{"wrapper", `{"leads":[` + person + `]}`, []string{"https://www.linkedin.com/in/jane-doe"}},
		{"wrapper loose key and metadata", `{"source":"zap","Leads":[{"Link":"a-b-c"},{"x":1}]}`, []string{"a-b-c", ""}},
		{"person with a leads column", `{"leads":[1,2],"linkedin":"jane-doe"}`, []string{"jane-doe"}},
		{"leads not an array is a person", `{"leads":"x"}`, []string{""}},
		{"unreadable rows", `[1,"x",null,[],{},{"url":""},{"url":"  "},{"url":{"a":1}},{"name":"Jane"}]`,
			[]string{"", "", "", "", "", "", "", "", ""}},
		{"number profile", `[{"url":12345}]`, []string{"12345"}},
		{"whitespace around body", " \n" + person + "\n ", []string{"https://www.linkedin.com/in/jane-doe"}},
		{"exactly 100", "[" + strings.TrimSuffix(strings.Repeat(person+",", 100), ",") + "]", repeat("https://www.linkedin.com/in/jane-doe", 100)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ParseIntake([]byte(tt.body))
			if err != nil {
				t.Fatalf("ParseIntake: %v", err)
			}
			var got []string
			for i, r := range res.Rows {
				if r.Index != i || (r.Lead == nil) == (r.Unreadable == "") {
					t.Fatalf("row %d malformed: %+v", i, r)
				}
				if r.Lead != nil {
					got = append(got, r.Lead.LinkedInURL)
				} else {
					got = append(got, "")
				}
			}
			if !reflect.DeepEqual(got, tt.profiles) {
				t.Fatalf("profiles = %q, want %q", got, tt.profiles)
			}
		})
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestParseIntakeErrors(t *testing.T) {
	row := `{"url":"jane-doe"}`
	tests := []struct {
		name, body, msg string
	}{
		{"empty body", "", "empty"},
		{"blank body", "  \n", "empty"},
		{"malformed", `{"url":`, "not valid JSON"},
		{"trailing garbage", `{"url":"jane-doe"} x`, "not valid JSON"},
		{"two values", `{} {}`, "not valid JSON"},
		{"string body", `"jane-doe"`, "object or an array"},
		{"null body", `null`, "object or an array"},
		{"empty array", `[]`, "no leads"},
		{"empty wrapper", `{"leads":[]}`, "no leads"},
		{"101 rows", "[" + strings.TrimSuffix(strings.Repeat(row+",", 101), ",") + "]", "more than 100"},
		{"101 rows wrapped", `{"leads":[` + strings.TrimSuffix(strings.Repeat("1,", 101), ",") + "]}", "more than 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ParseIntake([]byte(tt.body))
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("ParseIntake error = %v, want ErrInvalid mentioning %q", err, tt.msg)
			}
			if res.Rows != nil {
				t.Fatalf("rows returned with an error: %+v", res.Rows)
			}
		})
	}
}

func TestParseIntakeRowFields(t *testing.T) {
	tests := []struct {
		name string
		row  string
		want LeadInput
	}{
		{"all known fields", `{"Person Linkedin Url":" jane-doe ","First Name":"Jane","lastName":"Doe",
			"Full Name":"Jane Doe","Company Name":"Acme","Job Title":"CTO","Email":"j@acme.io",
			"Location":"Berlin","Headline":"Builder","Source":"sheet"}`,
			LeadInput{LinkedInURL: "jane-doe", FirstName: "Jane", LastName: "Doe", Name: "Jane Doe",
				Company: "Acme", Title: "CTO", Email: "j@acme.io", Location: "Berlin", Headline: "Builder", Source: "sheet"}},
		{"fallbacks fill", `{"url":"jane-doe","city":"Berlin","country":"Germany","bio":"Hi","list_name":"Q3"}`,
			LeadInput{LinkedInURL: "jane-doe", Location: "Berlin, Germany", Headline: "Hi", Source: "Q3"}},
		{"city only", `{"url":"jane-doe","city":"Berlin","country":""}`,
			LeadInput{LinkedInURL: "jane-doe", Location: "Berlin"}},
		{"country only", `{"url":"jane-doe","country":"Germany"}`,
			LeadInput{LinkedInURL: "jane-doe", Location: "Germany"}},
		{"unused fallbacks kept as data", `{"url":"jane-doe","location":"Munich","City":"Berlin","headline":"H","bio":"B","source":"s","list_name":"L"}`,
			LeadInput{LinkedInURL: "jane-doe", Location: "Munich", Headline: "H", Source: "s",
				Data: map[string]any{"City": "Berlin", "bio": "B", "list_name": "L"}}},
		{"first non-empty alias wins", `{"linkedin_url":"","url":"first-one","link":"second-one","company":null,"employer":"Acme","organization":"Other"}`,
			LeadInput{LinkedInURL: "first-one", Company: "Acme"}},
		{"duplicate key first wins", `{"url":"first-one","url":"second-one"}`,
			LeadInput{LinkedInURL: "first-one"}},
		{"numbers and bools become text", `{"url":"jane-doe","title":42,"company":true,"email":1.50e2}`,
			LeadInput{LinkedInURL: "jane-doe", Title: "42", Company: "true", Email: "1.50e2"}},
		{"nested known value ignored", `{"url":"jane-doe","company":{"name":"Acme"},"title":["CTO"]}`,
			LeadInput{LinkedInURL: "jane-doe"}},
		{"extras", `{"url":"jane-doe","Phone":"+49 1","score":7,"vip":false,"tags":["a"],"obj":{},"none":null,"blank":" ","":"x"}`,
			LeadInput{LinkedInURL: "jane-doe", Data: map[string]any{"Phone": "+49 1", "score": json.Number("7"), "vip": false}}},
		{"long profile is not cut", `{"url":"` + strings.Repeat("a", 2100) + `"}`,
			LeadInput{LinkedInURL: strings.Repeat("a", 2100)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ParseIntake([]byte(tt.row))
			if err != nil {
				t.Fatalf("ParseIntake: %v", err)
			}
			if len(res.Rows) != 1 || res.Rows[0].Lead == nil {
				t.Fatalf("rows = %+v, want one readable row", res.Rows)
			}
			if got := *res.Rows[0].Lead; !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("lead = %+v\nwant   %+v", got, tt.want)
			}
		})
	}
}

func TestParseIntakeDataLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"url":"jane-doe"`)
	for i := range 25 {
		fmt.Fprintf(&b, `,"c%02d":%d`, i, i)
	}
	fmt.Fprintf(&b, `,"c00":"dup","long":%q,%q:1}`, strings.Repeat("é", 2500), strings.Repeat("k", 101))
	res, err := ParseIntake([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	data := res.Rows[0].Lead.Data
	if len(data) != MaxLeadDataPairs {
		t.Fatalf("kept %d pairs, want %d", len(data), MaxLeadDataPairs)
	}
	for i := range MaxLeadDataPairs {
		if got := data[fmt.Sprintf("c%02d", i)]; got != json.Number(fmt.Sprint(i)) {
			t.Fatalf("c%02d = %v; want the first 20 columns in input order", i, got)
		}
	}
	if err := ValidateLeadData(data); err != nil {
		t.Fatalf("intake data fails ValidateLeadData: %v", err)
	}

	res, err = ParseIntake([]byte(fmt.Sprintf(`{"url":"jane-doe","note":%q}`, strings.Repeat("é", 2500))))
	if err != nil {
		t.Fatal(err)
	}
	if note := res.Rows[0].Lead.Data["note"].(string); len([]rune(note)) != MaxLeadDataValueLen {
		t.Fatalf("long value kept with %d characters, want it cut to %d", len([]rune(note)), MaxLeadDataValueLen)
	}
}

func FuzzParseIntake(f *testing.F) {
	for _, s := range []string{
		`{"linkedin_url":"https://www.linkedin.com/in/jane-doe","name":"Jane","x":1}`,
		`[{"url":"a-b-c","city":"Berlin"},1,null]`,
		`{"leads":[{"Person Linkedin Url":"jane-doe","bio":"b","tags":[1]}]}`,
		`{"leads":"x","url":{"a":1}}`, `[]`, `{`, `"x"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := ParseIntake(body)
		if err != nil {
			if !errors.Is(err, ErrInvalid) || res.Rows != nil {
				t.Fatalf("error %v (rows %d) does not wrap ErrInvalid or returned rows", err, len(res.Rows))
			}
			return
		}
		if len(res.Rows) == 0 || len(res.Rows) > MaxIntakeRows {
			t.Fatalf("%d rows", len(res.Rows))
		}
		for i, r := range res.Rows {
			if r.Index != i || (r.Lead == nil) == (r.Unreadable == "") {
				t.Fatalf("row %d malformed: %+v", i, r)
			}
			if r.Lead == nil {
				continue
			}
			if strings.TrimSpace(r.Lead.LinkedInURL) == "" {
				t.Fatalf("row %d readable without a profile", i)
			}
			if err := ValidateLeadData(r.Lead.Data); err != nil {
				t.Fatalf("row %d data fails ValidateLeadData: %v", i, err)
			}
		}
	})
}
