package webapp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"outreachd/outreach"
)

// view is what every page template gets: the layout's fields and the page's own data in D.
type view struct {
	Title   string
	Nav     string // which navigation link is the current page
	User    *User
	Flash   string
	Error   string
	Body    template.HTML // RenderPage's body
	D       any
	Version string
	Refresh int    // seconds after which the page reloads itself (a running import); 0 never
	GoTo    string // an address the page goes to at once (the LinkedIn provider's sign-in page)
	Clock   string // where the demo's clock stands, when it runs faster than real time
}

func (a *App) funcs() template.FuncMap {
	return template.FuncMap{
		"when": func(t any) string {
			switch v := t.(type) {
			case time.Time:
				return v.UTC().Format("2006-01-02 15:04 UTC")
			case *time.Time:
				if v == nil {
					return ""
				}
				return v.UTC().Format("2006-01-02 15:04 UTC")
			}
			return ""
		},
		// whenSec is when with seconds, for the attempt log: a retry or a resend can follow an
		// attempt within the same minute.
		"whenSec": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
		"iso":     func(t time.Time) string { return outreach.FormatTime(t) },
		// reasonLabel is the plain-English reason of a needs-human item (the API's reason_label).
		"reasonLabel": func(r string) string { return outreach.NeedsHumanReason(r).Label() },
		"ago":         func(t time.Time) string { return ago(a.now().Sub(t)) },
		// personStatus is a prospect's status in words ("invitation sent" for connection_sent).
		"personStatus": personStatus,
		// since is ago on the engine's clock, for what the engine stamps (a reply waiting, a
		// message, a stop): in the demo that clock runs ahead of the wall clock.
		"since": func(t time.Time) string { return ago(a.domainNow().Sub(t)) },
		// waited is how long something has waited on the engine's clock, in the whole hours
		// GET /needs-human reports as hours_waiting.
		"waited": func(t time.Time) string { return waited(a.domainNow().Sub(t)) },
		"deref": func(s *string) string {
			if s == nil {
				return ""
			}
			return *s
		},
		"join":      strings.Join,
		"kindLabel": kindLabel,
		// actor says who did something, from a recorded actor ("user:<id>", "key:<id>") and the
		// organization's people (id -> email).
		"actor": func(people map[string]string, actor *string) string {
			if actor == nil {
				return ""
			}
			if strings.HasPrefix(*actor, "user:") {
				return "by " + personOf(people, *actor)
			}
			if strings.HasPrefix(*actor, "key:") {
				return "through the API"
			}
			return ""
		},
		// dur renders a duration as days, hours and minutes ("2 days 3 h", "45 min").
		"dur": func(d time.Duration) string { return duration(d) },
		// reasonLabel names why a row of a file was refused.
		"rowReason": func(r string) string {
			if l, ok := reasonLabels[r]; ok {
				return l
			}
			return r
		},
		"add": func(a, b int) int { return a + b },
		// num writes a count with thousands separated by commas.
		"num": func(n int) string { return thousands(n) },
		// plural is one or many as the count says.
		"plural": func(n int, one, many string) string {
			if n == 1 {
				return one
			}
			return many
		},
		// connectSeatHint says where a LinkedIn seat is connected.
		"connectSeatHint": func() string { return connectSeatHint },
		// throttleWait is how long a throttled attempt waited for its destination's rate limit.
		"throttleWait": func(ms *int) string {
			if ms == nil {
				return ""
			}
			if *ms < 1000 {
				return fmt.Sprintf("%d ms", *ms)
			}
			return fmt.Sprintf("%.1f s", float64(*ms)/1000)
		},
		// errtext is an attempt's error unless it only repeats its HTTP status ("HTTP 500").
		"errtext": func(code int, e *string) string {
			if e == nil || *e == fmt.Sprintf("HTTP %d", code) {
				return ""
			}
			return *e
		},
	}
}

// thousands writes n with commas between thousands (10,000).
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// ago renders a duration in the past as people say it.
func ago(d time.Duration) string {
	switch {
	case d < 5*time.Second:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%d s ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}

// clockNote says where the engine's clock stands when it runs faster than real time (the demo's
// simulated LinkedIn), so that times on the pages ("waiting 3 days") make sense next to the wall
// clock; "" otherwise.
func (a *App) clockNote() string {
	if a.deps.ClockSpeed <= 1 {
		return ""
	}
	return fmt.Sprintf("Demo clock: %s, running %s× real time. Campaign times on these pages are on this clock.",
		a.domainNow().UTC().Format("Mon 2 Jan 2006 15:04 UTC"), strconv.FormatFloat(a.deps.ClockSpeed, 'f', -1, 64))
}

func duration(d time.Duration) string {
	m := int(d.Round(time.Minute).Minutes())
	days, h, mins := m/(24*60), m/60%24, m%60
	var parts []string
	switch {
	case days == 1:
		parts = append(parts, "1 day")
	case days > 1:
		parts = append(parts, fmt.Sprintf("%d days", days))
	}
	if h > 0 {
		parts = append(parts, fmt.Sprintf("%d h", h))
	}
	if mins > 0 && days == 0 {
		parts = append(parts, fmt.Sprintf("%d min", mins))
	}
	if len(parts) == 0 {
		return "no time"
	}
	return strings.Join(parts, " ")
}

// kindLabel is the badge of a destination: its kind, except that a webhook destination on
// plain http:// (allowed only with ALLOW_PRIVATE_DESTINATIONS) says so instead of "https".
func kindLabel(kind, rawURL string) string {
	if kind != outreach.DestinationSlack && strings.HasPrefix(strings.ToLower(rawURL), "http://") {
		return "http, unencrypted"
	}
	return kind
}

// waited renders a wait; past an hour it names the whole hours (hours_waiting of the API).
func waited(d time.Duration) string {
	h := int(d.Hours())
	switch {
	case d < time.Minute:
		return "less than a minute"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d days (%d h)", h/24, h)
}

// parseTemplates parses each page with the layout and the shared parts (partials.html and
// part_*.html, one part of a page per file); a page defines "content".
func (a *App) parseTemplates() error {
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		return err
	}
	a.pages = map[string]*template.Template{}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" || base == "partials" || strings.HasPrefix(base, "part_") {
			continue
		}
		t, err := template.New(base).Funcs(a.funcs()).ParseFS(templateFiles, "templates/layout.html", "templates/partials.html",
			"templates/part_*.html", n)
		if err != nil {
			return fmt.Errorf("webapp: template %s: %w", base, err)
		}
		a.pages[base] = t
	}
	return nil
}

// assetVersion is a short hash of the embedded assets, appended to their links.
func assetVersion() string {
	h := sha256.New()
	_ = fs.WalkDir(staticFiles, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := staticFiles.ReadFile(p)
			h.Write(b)
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))[:10]
}

// render writes page with status; a template failure becomes a plain 500 (nothing was written).
func (a *App) render(w http.ResponseWriter, r *http.Request, status int, page string, v view) {
	t, ok := a.pages[page]
	if !ok {
		a.log.Error("webapp: no such page template", "page", page)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if v.User == nil {
		if u, ok := a.SignedIn(r); ok {
			v.User = &u
		}
	}
	v.Version = a.version
	v.Clock = a.clockNote()
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		a.log.Error("webapp: render", "page", page, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// Pages show personal data and, once, new keys and secrets: never keep them in a cache.
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// RenderPage writes a page of the application with its layout (navigation, styles) around
// body, for pages other packages serve (the OAuth consent and Assistants pages). The caller
// builds body with html/template so that it is escaped. The navigation marks the Assistants
// link current for paths under /app/assistants.
func (a *App) RenderPage(w http.ResponseWriter, r *http.Request, title string, body template.HTML) {
	a.RenderPageStatus(w, r, http.StatusOK, title, body)
}

// RenderPageStatus is RenderPage with another HTTP status.
func (a *App) RenderPageStatus(w http.ResponseWriter, r *http.Request, status int, title string, body template.HTML) {
	nav := ""
	if strings.HasPrefix(r.URL.Path, "/app/assistants") {
		nav = "assistants"
	}
	a.render(w, r, status, "raw", view{Title: title, Nav: nav, Body: body})
}

// renderError shows message on a page of its own.
func (a *App) renderError(w http.ResponseWriter, r *http.Request, status int, message string) {
	a.render(w, r, status, "error", view{Title: http.StatusText(status), D: message})
}

// fail answers an error of a page handler: not found is a 404 page, bad input a 400 with the
// problem named, anything else a 500 whose details go only to the log.
func (a *App) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, outreach.ErrNotFound):
		a.renderError(w, r, http.StatusNotFound, "Not found: "+err.Error()+".")
	case errors.Is(err, outreach.ErrInvalid):
		a.renderError(w, r, http.StatusBadRequest, err.Error())
	case errors.Is(err, outreach.ErrConflict):
		a.renderError(w, r, http.StatusConflict, err.Error())
	default:
		a.log.Error("webapp: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		a.renderError(w, r, http.StatusInternalServerError, "Something went wrong on our side. Please try again; if it keeps happening, tell your operator.")
	}
}

// personStatusWords are the prospect statuses as a person reads them.
var personStatusWords = map[string]string{
	outreach.ProspectPending:        "waiting to start",
	outreach.ProspectActive:         "starting",
	outreach.ProspectConnectionSent: "invitation sent",
	outreach.ProspectConnected:      "connected",
	outreach.ProspectMessaged:       "messaged",
	outreach.ProspectReplied:        "replied",
	outreach.ProspectOptedOut:       "opted out",
	outreach.ProspectCompleted:      "finished",
}

// personStatus is a prospect's status in words; a status it does not know stays as it is.
func personStatus(s string) string {
	if w, ok := personStatusWords[s]; ok {
		return w
	}
	return s
}
