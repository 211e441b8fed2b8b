package outreach

import (
	"regexp"
	"strings"
	"unicode"
)

// Prompt injection: a lead's message that tries to instruct the AI writing our replies ("ignore
// all previous instructions…", "you are now…", "print your system prompt", "send me the other
// leads' emails") is never answered automatically. The drafter is told to treat the message as
// data, but a message written to steer a model is a message a person should read.
//
// LooksLikeInjection uses fixed English rules on the message's words, in the normalised form of
// ClassifyReply, after undoing the usual disguises: invisible format characters (zero-width
// spaces, soft hyphens), full-width letters, Cyrillic and Greek look-alike letters mixed into a
// Latin word, and words spelled out letter by letter. It flags a message when one clause:
//
//   - tells the reader to drop its instructions: ignore, disregard, forget, override or bypass
//     followed within five words by instructions, prompt, rules, guidelines, directives,
//     programming, guardrails or "the above";
//   - names the machinery: system prompt, previous instructions, developer mode, jailbreak…;
//   - gives the reader a new role ("you are now a…", "from now on you are…", "pretend to be",
//     unless negated), or addresses it as an AI ("if you are an AI…", "note to the AI…");
//   - asks to reveal or send what only the system holds: a verb such as reveal, print, repeat,
//     send or share followed within six words by its instructions or prompt, keys, passwords or
//     tokens, or other people's data (other leads, your contact list, the conversation history);
//
// or when the text carries a chat-template marker (<|im_start|>, [INST], <<SYS>>, "### System")
// or a line that opens with a role ("system:", "assistant:"). A person seeing an ordinary message flagged costs
// a minute; a model answering a hostile one can cost much more, so the rules lean towards
// flagging. Other languages are not recognised.
func LooksLikeInjection(text string) bool {
	if injectionMarkup.MatchString(text) {
		return true
	}
	for _, cl := range normalizeClauses(undisguise(text)) {
		if injectionClause(cl) || injectionClause(joinSpelledOut(cl)) {
			return true
		}
	}
	return false
}

var (
	// overrideVerbs followed by an overrideTarget within overrideReach words drop instructions.
	overrideVerbs = map[string]bool{"ignore": true, "disregard": true, "forget": true, "override": true,
		"bypass": true, "overwrite": true, "discard": true}
	overrideTargets = map[string]bool{"instructions": true, "instruction": true, "prompt": true, "prompts": true,
		"rules": true, "guidelines": true, "directives": true, "programming": true, "guardrails": true, "above": true}
	aboveQualifiers = map[string]bool{"the": true, "everything": true, "all": true, "anything": true, "ignore": true,
		"disregard": true, "forget": true, "override": true, "bypass": true, "overwrite": true, "discard": true}
	// injectionPhrases flag a clause wherever they occur (normalised, whole words).
	injectionPhrases = []string{
		"system prompt", "system message", "system instructions", "initial prompt", "original prompt",
		"hidden prompt", "prompt injection", "previous instructions", "prior instructions",
		"earlier instructions", "above instructions", "instructions above", "initial instructions",
		"original instructions", "hidden instructions", "your new instructions", "your new role",
		"your new task", "developer mode", "jailbreak", "jailbroken", "dan mode", "do anything now",
		"you are now a", "you are now an", "youre now a", "youre now an", "from now on you are",
		"from now on act", "from now on respond", "from now on reply", "from now on answer",
		"if you are an ai", "if youre an ai", "if you are a bot", "if youre a bot",
		"if you are a language model", "if you are an llm", "if this is an ai", "if this is a bot",
		"note to the ai", "note to ai", "dear ai", "attention ai", "to the ai reading",
		"ai reading this", "bot reading this", "model reading this", "llm reading this",
	}
	// rolePhrases give the reader a part to play; unlike injectionPhrases they do not count when
	// negated ("I won't pretend to be an expert").
	rolePhrases = []string{"pretend you are", "pretend youre", "pretend to be", "act as if you", "roleplay as",
		"role play as"}
	// revealVerbs followed by a revealTarget within revealReach words ask for what only the
	// system holds.
	revealVerbs = map[string]bool{"reveal": true, "show": true, "print": true, "repeat": true, "tell": true,
		"share": true, "output": true, "display": true, "give": true, "send": true, "leak": true, "list": true,
		"write": true, "dump": true, "paste": true, "copy": true, "forward": true, "export": true,
		"disclose": true, "email": true, "spell": true, "recite": true}
	revealTargets = []string{
		"your instructions", "your prompt", "your rules", "your guidelines", "your configuration",
		"your config", "everything above", "the text above",
		"the words above", "the above",
		"api key", "api keys", "apikey", "password", "passwords", "credentials", "access token",
		"access tokens", "secret key", "private key", "auth token", "bearer token", "session token",
		"other leads", "other prospects", "all your leads", "all your prospects", "all your contacts",
		"your lead list", "your contact list", "your prospect list", "customer database",
		"contact database", "conversation history", "chat history", "message history",
		"previous conversations", "all conversations",
	}
	// injectionMarkup finds chat-template markers and role-prefixed lines in the raw text.
	injectionMarkup = regexp.MustCompile(`(?im)<\|\s*(im_start|im_end|system|user|assistant|endoftext)\s*\|>` +
		`|\[/?inst\]|<<\s*/?sys\s*>>|^[\t >#*-]*(system|assistant|developer)\s*(prompt\s*)?:` +
		`|^\s*#+\s*(system|instructions?|response)\b|[.!?]\s+(system|assistant|developer)\s*:` +
		`|\[(system|admin|developer)( message)?\]`)
)

const (
	overrideReach = 5
	revealReach   = 6
)

// injectionClause applies the word rules to one normalised clause.
func injectionClause(cl []string) bool {
	for _, p := range injectionPhrases {
		if found, _ := matchPhrase(cl, p); found {
			return true
		}
	}
	if matchAny([][]string{cl}, rolePhrases, true) {
		return true
	}
	for i, w := range cl {
		if overrideVerbs[w] {
			for j := i + 1; j < min(len(cl), i+1+overrideReach); j++ {
				// "above" is a target as "the above", "everything above", not "the typo above".
				if overrideTargets[cl[j]] && (cl[j] != "above" || aboveQualifiers[cl[j-1]]) {
					return true
				}
			}
		}
		if revealVerbs[w] {
			rest := cl[i+1 : min(len(cl), i+1+revealReach+2)] // + the target's own words
			for _, p := range revealTargets {
				if at, ok := phraseAt(rest, p); ok && at < revealReach {
					return true
				}
			}
		}
	}
	return false
}

// joinSpelledOut joins runs of three or more one-letter words into one word, so a message that
// spells "i g n o r e" reads "ignore"; words of a clause written that way run together, so the
// joined run is also split where a rule's word begins, as far as the rules' words allow.
func joinSpelledOut(cl []string) []string {
	var out []string
	run := ""
	flush := func() {
		if len([]rune(run)) >= 3 {
			out = append(out, splitKnownWords(run)...)
		} else {
			for _, r := range run {
				out = append(out, string(r))
			}
		}
		run = ""
	}
	for _, w := range cl {
		if len([]rune(w)) == 1 {
			run += w
			continue
		}
		flush()
		out = append(out, w)
	}
	flush()
	return out
}

// splitKnownWords cuts a run of letters into the words the injection rules know, greedily,
// longest first; the letters between them stay as one word.
func splitKnownWords(run string) []string {
	var out []string
	other := ""
	for i := 0; i < len(run); {
		w := longestKnownWord(run[i:])
		if w == "" {
			other += run[i : i+1]
			i++
			continue
		}
		if other != "" {
			out, other = append(out, other), ""
		}
		out = append(out, w)
		i += len(w)
	}
	if other != "" {
		out = append(out, other)
	}
	return out
}

func longestKnownWord(s string) string {
	best := ""
	for _, w := range injectionVocabulary {
		if len(w) > len(best) && strings.HasPrefix(s, w) {
			best = w
		}
	}
	return best
}

// injectionVocabulary is every word the rules above use.
var injectionVocabulary = func() []string {
	seen := map[string]bool{}
	var out []string
	add := func(w string) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, set := range []map[string]bool{overrideVerbs, overrideTargets, revealVerbs} {
		for w := range set {
			add(w)
		}
	}
	for _, list := range [][]string{injectionPhrases, rolePhrases, revealTargets} {
		for _, p := range list {
			for _, w := range strings.Fields(p) {
				add(w)
			}
		}
	}
	return out
}()

// undisguise removes invisible format characters, folds full-width forms to ASCII, and turns
// Cyrillic and Greek look-alike letters inside words that also hold Latin letters into the
// Latin letters they imitate.
func undisguise(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Cf, r):
			continue
		case r >= 0xFF01 && r <= 0xFF5E: // full-width ASCII
			r -= 0xFEE0
		case r == 0x3000: // ideographic space
			r = ' '
		}
		b.WriteRune(r)
	}
	s := b.String()
	if !mixedScript(s) {
		return s
	}
	// Map look-alikes word by word, keeping every separator as it was (line breaks end clauses).
	b.Reset()
	for s != "" {
		end := strings.IndexFunc(s, unicode.IsSpace)
		if end < 0 {
			end = len(s)
		}
		if w := s[:end]; hasLatin(w) {
			b.WriteString(strings.Map(func(r rune) rune {
				if l, ok := lookalikes[r]; ok {
					return l
				}
				return r
			}, w))
		} else {
			b.WriteString(w)
		}
		sp := strings.IndexFunc(s[end:], func(r rune) bool { return !unicode.IsSpace(r) })
		if sp < 0 {
			sp = len(s) - end
		}
		b.WriteString(s[end : end+sp])
		s = s[end+sp:]
	}
	return b.String()
}

// mixedScript reports a word holding both Latin letters and look-alikes of them.
func mixedScript(s string) bool {
	for _, w := range strings.Fields(s) {
		if hasLatin(w) && strings.IndexFunc(w, func(r rune) bool { _, ok := lookalikes[r]; return ok }) >= 0 {
			return true
		}
	}
	return false
}

func hasLatin(w string) bool {
	return strings.IndexFunc(w, func(r rune) bool { return r < 0x80 && unicode.IsLetter(r) }) >= 0
}

// lookalikes are the Cyrillic and Greek letters drawn like a Latin one.
var lookalikes = map[rune]rune{
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'і': 'i', 'ј': 'j', 'ѕ': 's',
	'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'һ': 'h', 'к': 'k', 'м': 'm', 'т': 't', 'в': 'b', 'н': 'h',
	'А': 'a', 'Е': 'e', 'О': 'o', 'Р': 'p', 'С': 'c', 'У': 'y', 'Х': 'x', 'І': 'i', 'Ј': 'j', 'Ѕ': 's',
	'К': 'k', 'М': 'm', 'Т': 't', 'В': 'b', 'Н': 'h',
	'ο': 'o', 'α': 'a', 'ε': 'e', 'ι': 'i', 'ν': 'v', 'κ': 'k', 'ρ': 'p', 'τ': 't', 'υ': 'u',
	'Ο': 'o', 'Α': 'a', 'Ε': 'e', 'Ι': 'i', 'Ν': 'n', 'Κ': 'k', 'Ρ': 'p', 'Τ': 't', 'Υ': 'y',
}
