package outreach

import (
	"regexp"
	"slices"
	"strings"
)

// A step's text may name the person it goes to with variables in double braces, filled in just
// before it is sent: {{first_name}}, {{last_name}}, {{company}}, {{title}} and {{name}} (the whole
// name). Spaces inside the braces and any case are accepted ({{ First_Name }}); the older single
// braces ({first_name}) still work. A variable nobody knows is sent as written, so the
// application points it out before a campaign is saved.

// SequenceVariables are the variables a step's text may use, in the order the application
// lists them.
var SequenceVariables = []string{"first_name", "last_name", "company", "title", "name"}

// VariablePerson is what the variables of a step's text are filled from.
type VariablePerson struct {
	Name    string // the name shown for the person (first word: first_name; the rest: last_name)
	Company string
	Title   string // their role
}

// values are the variables' texts for p. A person without a name is greeted "there"
// ("Hi {{first_name}}" reads "Hi there"); any other unknown value becomes "".
func (p VariablePerson) values() map[string]string {
	words := strings.Fields(p.Name)
	first, last := "there", ""
	if len(words) > 0 {
		first, last = words[0], strings.Join(words[1:], " ")
	}
	return map[string]string{"first_name": first, "last_name": last, "name": strings.TrimSpace(p.Name),
		"company": strings.TrimSpace(p.Company), "title": strings.TrimSpace(p.Title)}
}

// variablePattern finds {{anything}} (up to 100 characters, no braces inside) and the older
// single-brace forms of the known variables, in one pass, so a filled-in value is never read again.
var variablePattern = regexp.MustCompile(`\{\{([^{}]{0,100})\}\}|\{(first_name|last_name|company|title|name)\}`)

// Personalize fills the variables of text for p; unknown ones stay as written.
func Personalize(text string, p VariablePerson) string {
	if !strings.Contains(text, "{") {
		return text
	}
	vals := p.values()
	return variablePattern.ReplaceAllStringFunc(text, func(m string) string {
		if v, ok := vals[variableName(m)]; ok {
			return v
		}
		return m
	})
}

// UnknownVariables lists, once each and in order of appearance, the double-brace variables of
// text that are not SequenceVariables, as written ("{{company_name}}").
func UnknownVariables(text string) []string {
	var out []string
	for _, m := range variablePattern.FindAllString(text, -1) {
		if !slices.Contains(SequenceVariables, variableName(m)) && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// variableName is the lower-case name inside a match of variablePattern.
func variableName(m string) string {
	return strings.ToLower(strings.TrimSpace(strings.Trim(m, "{}")))
}
