package linkedin

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"outreachd/outreach"
)

// persona is how a simulated person answers messages. Each person gets one, picked by a seeded
// hash of their profile key, so the same person behaves the same in every run with that seed
// no matter in which order the service contacts people.
type persona string

const (
	personaSilent     persona = "silent"
	personaPositive   persona = "positive"
	personaNeutral    persona = "neutral"
	personaNegative   persona = "negative"
	personaWantsEmail persona = "wants_email"
	personaBotQuery   persona = "bot_question"
	personaBooking    persona = "booking"
	personaAway       persona = "out_of_office"
)

// personaWeights is the mix of a typical cold-outreach list: most people never answer.
// The weights add up to 100.
var personaWeights = []struct {
	p persona
	w int
}{
	{personaSilent, 40}, {personaPositive, 14}, {personaNeutral, 14}, {personaNegative, 12},
	{personaWantsEmail, 6}, {personaBotQuery, 5}, {personaBooking, 6}, {personaAway, 3},
}

// personaScripts are the replies a persona sends, one per message the service sends them, in
// order; a person with no script line left stays silent. Each line has variants picked by hash.
// "{email}" becomes an address built from the person's name.
var personaScripts = map[persona][][]string{
	personaPositive: {
		{"Thanks for reaching out! This sounds interesting, tell me more.",
			"Good timing actually. I'd like to learn more about how it works.",
			"Interesting — could you share more details?"},
		{"Sounds good. What would the next step look like?",
			"Makes sense. Happy to chat sometime."},
	},
	personaNeutral: {
		{"Thanks for connecting.", "Thanks for the note.", "Appreciate you reaching out."},
		{"Maybe later this year, we're busy right now.", "Not right now, maybe next quarter."},
	},
	personaNegative: {
		{"Not interested, thanks.", "No thanks, we already have a solution for this.",
			"Please stop messaging me."},
	},
	personaWantsEmail: {
		{"Could you send me an email with the details? {email}",
			"Best to email me: {email}", "Please send more info by email to {email}."},
	},
	personaBotQuery: {
		{"Quick question before anything else: am I talking to a bot?",
			"Is this an automated message?", "Are you a real person or is this AI?"},
	},
	personaBooking: {
		{"Happy to chat. Does Tuesday work? Send me a calendar invite.",
			"Let's book a call next week.", "Sure, let's set up a call. How about Thursday?"},
	},
	personaAway: {
		{"I'm out of office until next week with limited access to messages.",
			"Automatic reply: I'm on vacation and will respond when I'm back."},
	},
}

// hash is FNV-1a over the seed and the parts (each followed by a zero byte), finished with
// splitmix64 so that keys differing in one character land far apart.
func (s *Simulator) hash(parts ...string) uint64 {
	h := fnv.New64a()
	var seed [8]byte
	binary.BigEndian.PutUint64(seed[:], uint64(s.cfg.Seed))
	h.Write(seed[:])
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	z := h.Sum64() + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// unit maps the hash of parts to [0, 1).
func (s *Simulator) unit(parts ...string) float64 {
	return float64(s.hash(parts...)>>11) / (1 << 53)
}

// delay picks a duration in [lo, hi], skewed towards lo (u²): most people who act at all do
// so soon, a few take days.
func delay(lo, hi time.Duration, u float64) time.Duration {
	return lo + time.Duration(float64(hi-lo)*u*u).Truncate(time.Second)
}

func (s *Simulator) personaOf(profileKey string) persona {
	n := int(s.hash("persona", profileKey) % 100)
	for _, pw := range personaWeights {
		if n < pw.w {
			return pw.p
		}
		n -= pw.w
	}
	return personaSilent
}

// scriptedReply returns the n-th reply of the person, or false when they have nothing more
// to say.
func (s *Simulator) scriptedReply(ref outreach.ProfileRef, profileKey string, n int) (string, bool) {
	lines := personaScripts[s.personaOf(profileKey)]
	if n >= len(lines) {
		return "", false
	}
	variants := lines[n]
	text := variants[s.hash("reply-text", profileKey, fmt.Sprint(n))%uint64(len(variants))]
	return strings.ReplaceAll(text, "{email}", emailFor(ref.Name, profileKey)), true
}

// emailFor makes a plausible address on a reserved domain (never a real mailbox).
func emailFor(name, profileKey string) string {
	local := strings.Join(strings.Fields(strings.ToLower(name)), ".")
	local = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r == '.' {
			return r
		}
		return -1
	}, local)
	if local == "" {
		local = "contact"
	}
	h := fnv.New32a()
	h.Write([]byte(profileKey))
	return fmt.Sprintf("%s@company%d.example.com", local, h.Sum32()%1000)
}

func hexID(prefix string, h uint64) string { return fmt.Sprintf("%s_%016x", prefix, h) }
