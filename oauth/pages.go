package oauth

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"time"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

//go:embed templates/*.html
var templateFiles embed.FS

var pages = template.Must(template.ParseFS(templateFiles, "templates/*.html"))

// plainPage is the page layout used when the application gives none.
func plainPage(w http.ResponseWriter, r *http.Request, status int, title string, body template.HTML) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = pages.ExecuteTemplate(w, "layout.html", map[string]any{"Title": title, "Body": body})
}

// render executes the named template into the page layout.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, title, name string, data any) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		s.log.Error("render oauth page", "page", name, "err", err)
		http.Error(w, "the page could not be shown", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	s.page(w, r, status, title, template.HTML(buf.String())) //nolint:gosec // produced by html/template
}

func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, status int, msg string) {
	s.render(w, r, status, "Assistant authorization", "error.html", msg)
}

type hiddenField struct{ Name, Value string }

// consentPage asks the signed-in person to allow or deny the client.
func (s *Server) consentPage(w http.ResponseWriter, r *http.Request, req authzRequest, user User, v url.Values) {
	org, err := s.store.GetOrg(r.Context(), user.OrgID)
	if err != nil {
		s.log.Error("read org for consent", "err", err)
		s.errorPage(w, r, http.StatusInternalServerError, "Your organization could not be read; try again.")
		return
	}
	hidden := []hiddenField{}
	for _, p := range authzParams {
		if v.Has(p) {
			hidden = append(hidden, hiddenField{p, v.Get(p)})
		}
	}
	hidden = append(hidden, hiddenField{"consent_ticket", s.ticket(user, v, s.now())})
	redirect, _ := url.Parse(req.redirectTo)
	// The consent page must never be framed (a framed Allow button can be clicked by trickery),
	// and its form must be allowed to end at the client's redirect URI: browsers apply
	// form-action to the redirect that answers the form too.
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", consentCSP(redirect))
	s.render(w, r, http.StatusOK, "Allow "+req.client.Name+"?", "consent.html", map[string]any{
		"Client": req.client.Name, "Email": user.Email, "Org": org.Name,
		"Abilities": scopeInWords(req.scope), "RedirectHost": redirect.Host, "Hidden": hidden,
	})
}

var cspOrigin = regexp.MustCompile(`^[a-z][a-z0-9+.-]*://[A-Za-z0-9.:\[\]-]+$`)

// consentCSP is the application's policy (only this origin's script and style, no framing) with
// the redirect URI's origin added to form-action.
func consentCSP(redirect *url.URL) string {
	formAction := "'self'"
	if origin := redirect.Scheme + "://" + redirect.Host; cspOrigin.MatchString(origin) {
		formAction += " " + origin
	}
	return "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"frame-ancestors 'none'; base-uri 'none'; form-action " + formAction
}

// scopeInWords says what a scope lets an assistant do.
func scopeInWords(scope string) []string {
	read := "Read your organization's campaigns, leads, prospects, inbox, needs-human queue and reports."
	if scope != "read_write" {
		return []string{read, "It cannot change anything (read only)."}
	}
	return []string{read,
		"Change things for you: create and update campaigns, push leads, and approve or dismiss reply drafts, " +
			"which sends messages on LinkedIn. Every change is proposed first and done only once confirmed."}
}

// grantRow is one connected assistant as the page shows it.
type grantRow struct {
	ID, Client, By, Access, Created, LastUsed string
}

// assistants lists the organization's connected assistants.
func (s *Server) assistants(w http.ResponseWriter, r *http.Request) {
	user, ok := s.users.SignedIn(r)
	if !ok {
		http.Redirect(w, r, "/app/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusFound)
		return
	}
	grants, err := s.db.listGrants(r.Context(), user.OrgID)
	if err == nil {
		var org storage.Org
		org, err = s.store.GetOrg(r.Context(), user.OrgID)
		if err == nil {
			rows := make([]grantRow, 0, len(grants))
			for _, g := range grants {
				rows = append(rows, toRow(g))
			}
			notice := ""
			if r.URL.Query().Get("revoked") != "" {
				notice = "The assistant was disconnected; its tokens no longer work."
			}
			s.render(w, r, http.StatusOK, "Connected assistants", "assistants.html",
				map[string]any{"Org": org.Name, "Grants": rows, "Notice": notice})
			return
		}
	}
	s.log.Error("list connected assistants", "err", err)
	s.errorPage(w, r, http.StatusInternalServerError, "The connected assistants could not be read; try again.")
}

func toRow(g grantRecord) grantRow {
	row := grantRow{ID: g.ID, Client: g.ClientName, By: g.UserEmail, Access: "Read only",
		Created: formatTime(g.CreatedAt), LastUsed: "Never"}
	if g.Scope == "read_write" {
		row.Access = "Read and write"
	}
	if g.LastUsedAt != nil {
		row.LastUsed = formatTime(*g.LastUsedAt)
	}
	return row
}

func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// revokeAssistant revokes one grant of the signed-in person's organization.
func (s *Server) revokeAssistant(w http.ResponseWriter, r *http.Request) {
	if err := s.csrf.Check(r); err != nil {
		s.errorPage(w, r, http.StatusForbidden, "This form was sent from another site and was refused.")
		return
	}
	user, ok := s.users.SignedIn(r)
	if !ok {
		http.Redirect(w, r, "/app/login?next=/app/assistants", http.StatusSeeOther)
		return
	}
	id := mux.Vars(r)["id"]
	err := outreach.NotFound("connected assistant %s", id) // an id of another form names none
	if outreach.ValidID("ogr", id) {
		err = s.db.revokeGrant(r.Context(), user.OrgID, id, s.now())
	}
	switch {
	case errors.Is(err, outreach.ErrNotFound):
		s.errorPage(w, r, http.StatusNotFound, "That connected assistant does not exist or was already disconnected.")
	case err != nil:
		s.log.Error("revoke connected assistant", "err", err)
		s.errorPage(w, r, http.StatusInternalServerError, "The assistant could not be disconnected; try again.")
	default:
		http.Redirect(w, r, "/app/assistants?revoked=1", http.StatusSeeOther)
	}
}
