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
		"deref": func(s *string) string {
			if s == nil {
				return ""
			}
			return *s
		},
		"join": strings.Join,
		// waited is how long a throttled attempt waited for its destination's rate limit.
		"waited": func(ms *int) string {
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

// ago renders a duration in the past as people say it.
func ago(d time.Duration) string {
	switch {
	case d < 0:
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

// parseTemplates parses each page with the layout; a page defines "content".
func (a *App) parseTemplates() error {
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		return err
	}
	a.pages = map[string]*template.Template{}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" || base == "partials" {
			continue
		}
		t, err := template.New(base).Funcs(a.funcs()).ParseFS(templateFiles, "templates/layout.html", "templates/partials.html", n)
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
