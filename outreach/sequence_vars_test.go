package outreach_test

import (
	"slices"
	"testing"

	"outreachd/outreach"
)

func TestPersonalize(t *testing.T) {
	t.Parallel()
	ada := outreach.VariablePerson{Name: "Ada King Lovelace", Company: "Analytical Engines", Title: "CTO"}
	cases := []struct {
		name, text string
		p          outreach.VariablePerson
		want       string
	}{
		{"every variable", "Hi {{first_name}} {{last_name}}, {{title}} at {{company}} ({{name}})", ada,
			"Hi Ada King Lovelace, CTO at Analytical Engines (Ada King Lovelace)"},
		{"spaces and case inside the braces", "Hi {{ First_Name }}", ada, "Hi Ada"},
		{"the older single braces", "Hi {first_name} of {company} ({name})", ada, "Hi Ada of Analytical Engines (Ada King Lovelace)"},
		{"no name: there", "Hi {{first_name}}{{last_name}}!", outreach.VariablePerson{}, "Hi there!"},
		{"unknown stays as written", "Hi {{nickname}} {nickname}", ada, "Hi {{nickname}} {nickname}"},
		{"a value is never read again", "{{company}}", outreach.VariablePerson{Company: "{{first_name}} {name}"}, "{{first_name}} {name}"},
		{"no braces", "Hello", ada, "Hello"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := outreach.Personalize(c.text, c.p); got != c.want {
				t.Fatalf("Personalize(%q) = %q, want %q", c.text, got, c.want)
			}
		})
	}
}

func TestUnknownVariables(t *testing.T) {
	t.Parallel()
	got := outreach.UnknownVariables("Hi {{first_name}} of {{company_name}}, {{ Title }}, {{company_name}} {{}} {nick}")
	if want := []string{"{{company_name}}", "{{}}"}; !slices.Equal(got, want) {
		t.Fatalf("UnknownVariables = %q, want %q", got, want)
	}
	if got := outreach.UnknownVariables("Hi {{first_name}}"); got != nil {
		t.Fatalf("known only: %q", got)
	}
}
