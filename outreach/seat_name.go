package outreach

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSeatName is the longest name a LinkedIn seat may have, in characters.
const MaxSeatName = 200

// SeatName is the name a seat is connected under (the LinkedIn member's name, as a team calls
// the seat), trimmed; a blank one, one longer than MaxSeatName or one with control characters
// is refused.
func SeatName(name string) (string, error) {
	n := strings.TrimSpace(name)
	if n == "" || utf8.RuneCountInString(n) > MaxSeatName || strings.ContainsFunc(n, unicode.IsControl) {
		return "", Invalidf("a seat's name must be 1 to %d characters on one line", MaxSeatName)
	}
	return n, nil
}
