package outreach

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Text a client sends ends up in PostgreSQL, whose text and jsonb cannot hold U+0000 nor bytes
// that are not UTF-8, and whose indexes refuse an entry over about 2.7 kB. Every door that takes
// text from outside (the API's bodies and queries, the assistant's arguments, the application's
// and the authorization server's forms) refuses such text before it is used, with a message that
// names the problem, instead of failing in the database.

// JSONEscapesNUL reports whether JSON text holds the escape \u0000 (inside a string or a key),
// the only way JSON can carry a NUL: an escaped backslash followed by "u0000" is text, not the
// escape.
func JSONEscapesNUL(body []byte) bool {
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		if i+5 < len(body) && body[i+1] == 'u' && string(body[i+2:i+6]) == "0000" {
			return true
		}
		i++ // the escaped character cannot start another escape
	}
	return false
}

// CheckText refuses a value of the input named field that cannot be stored: a NUL character,
// bytes that are not UTF-8, or (max > 0) more than max characters.
func CheckText(field, value string, max int) error {
	switch {
	case strings.IndexByte(value, 0) >= 0:
		return InvalidField(field, "contains a NUL character (\\u0000), which is not allowed")
	case !utf8.ValidString(value):
		return InvalidField(field, "holds bytes that are not UTF-8")
	case max > 0 && len(value) > max && utf8.RuneCountInString(value) > max:
		return InvalidField(field, "is longer than %d characters", max)
	}
	return nil
}

// CheckFields applies CheckText to every name and value of a form or query (name → values),
// each value at most max characters, and answers the first problem in name order.
func CheckFields(fields map[string][]string, max int) error {
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if CheckText("name", name, 100) != nil {
			return Invalidf("a field name holds a NUL character, bytes that are not UTF-8, or more than 100 characters")
		}
		for _, v := range fields[name] {
			if err := CheckText(name, v, max); err != nil {
				return err
			}
		}
	}
	return nil
}
