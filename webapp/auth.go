package webapp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"outreachd/outreach"
)

// User is the person signed in to the application.
type User struct {
	ID    string
	OrgID string
	Email string
	Role  string // owner or member
}

type userKey struct{}

// SignedIn reports the person the request's session cookie belongs to. A missing, unknown,
// idle or expired session is (User{}, false). The answer is kept on the request's context by
// the application's own handlers, so asking twice costs one query.
func (a *App) SignedIn(r *http.Request) (User, bool) {
	if u, ok := r.Context().Value(userKey{}).(User); ok {
		return u, true
	}
	c, err := r.Cookie(a.cookie)
	if err != nil || c.Value == "" || len(c.Value) > 100 {
		return User{}, false
	}
	su, err := a.accounts.sessionUser(r.Context(), c.Value, a.now(), a.limits())
	if err != nil {
		if !errors.Is(err, outreach.ErrNotFound) {
			a.log.Warn("webapp: session lookup failed", "err", err)
		}
		return User{}, false
	}
	return User{ID: su.ID, OrgID: su.OrgID, Email: su.Email, Role: su.Role}, true
}

func (a *App) limits() sessionLimits {
	return sessionLimits{Idle: a.cfg.SessionIdle, Absolute: a.cfg.SessionAbsolute}
}

// LoginURL is the sign-in page that brings the person back to next (a path of this origin)
// once signed in.
func LoginURL(next string) string {
	return "/app/login?next=" + url.QueryEscape(SafeNext(next))
}

// SafeNext returns next when it is a path of this origin ("/app/…", "/oauth/authorize?…"),
// else the Event Destinations page: a sign-in link must not send anyone to another site.
func SafeNext(next string) string {
	const home = "/app/destinations"
	if next == "" || len(next) > 4000 || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.ContainsAny(next, "\\\r\n\t") {
		return home
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || !strings.HasPrefix(u.Path, "/") {
		return home
	}
	if next == "/" || next == "/app/login" || strings.HasPrefix(next, "/app/login?") {
		return home
	}
	return next
}

// page wraps a handler that needs a signed-in person; others are sent to sign in (and back).
func (a *App) page(h func(w http.ResponseWriter, r *http.Request, u User)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u, ok := a.SignedIn(r)
		if !ok {
			next := r.URL.RequestURI()
			if r.Method != http.MethodGet {
				next = r.Referer()
				if ru, err := url.Parse(next); err == nil {
					next = ru.RequestURI()
				}
			}
			http.Redirect(w, r, LoginURL(next), http.StatusSeeOther)
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), userKey{}, u))
		h(w, r, u)
	}
}

type loginData struct {
	Email string
	Next  string
}

func (a *App) loginPage(w http.ResponseWriter, r *http.Request) {
	next := SafeNext(r.URL.Query().Get("next"))
	if _, ok := a.SignedIn(r); ok {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	a.render(w, r, http.StatusOK, "login", view{Title: "Sign in", D: loginData{Next: next}})
}

// clientAddress is the peer's IP. Forwarded headers are not trusted: behind a proxy every
// request would share the proxy's address, which only makes the per-address limit stricter.
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// dummyHash is checked when no user has the email, so an unknown email takes as long to refuse
// as a wrong password.
var dummyHash = sync.OnceValue(func() string {
	h, _ := HashPassword("not-a-password-of-anyone")
	return h
})

func (a *App) login(w http.ResponseWriter, r *http.Request) {
	email := strings.TrimSpace(r.PostFormValue("email"))
	password := r.PostFormValue("password")
	next := SafeNext(r.PostFormValue("next"))
	again := func(status int, msg string) {
		a.render(w, r, status, "login", view{Title: "Sign in", Error: msg, D: loginData{Email: email, Next: next}})
	}
	if email == "" || password == "" {
		again(http.StatusBadRequest, "Enter your email and your password.")
		return
	}
	if len(email) > maxEmail {
		email = ""
		again(http.StatusBadRequest, fmt.Sprintf("An email address is at most %d characters.", maxEmail))
		return
	}
	now := a.now()
	accountKey, addressKey := "account:"+strings.ToLower(email), "address:"+clientAddress(r)
	counts, err := a.accounts.loginFailures(r.Context(), []string{accountKey, addressKey}, now.Add(-a.cfg.FailureWindow))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if counts[accountKey] >= a.cfg.MaxFailuresPerAccount || counts[addressKey] >= a.cfg.MaxFailuresPerAddress {
		w.Header().Set("Retry-After", "900")
		again(http.StatusTooManyRequests, "Too many failed sign-ins. Wait 15 minutes and try again.")
		return
	}
	u, err := a.accounts.UserByEmail(r.Context(), email)
	hash := u.PasswordHash
	if errors.Is(err, outreach.ErrNotFound) {
		hash = dummyHash()
	} else if err != nil {
		a.fail(w, r, err)
		return
	}
	match, herr := CheckPassword(hash, password)
	if err != nil || herr != nil || !match {
		if herr != nil {
			a.log.Error("webapp: stored password hash unreadable", "user", u.ID, "err", herr)
		}
		if err := a.accounts.recordLoginFailure(r.Context(), []string{accountKey, addressKey}, now, now.Add(-a.cfg.FailureWindow)); err != nil {
			a.fail(w, r, err)
			return
		}
		again(http.StatusUnauthorized, "That email and password do not match.")
		return
	}
	_ = a.accounts.clearLoginFailures(r.Context(), accountKey)
	if old, err := r.Cookie(a.cookie); err == nil {
		_ = a.accounts.deleteSession(r.Context(), old.Value)
	}
	token, err := a.accounts.createSession(r.Context(), u.ID, now, a.limits())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	http.SetCookie(w, a.sessionCookie(token, a.cfg.SessionAbsolute))
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (a *App) sessionCookie(value string, maxAge time.Duration) *http.Cookie {
	c := &http.Cookie{Name: a.cookie, Value: value, Path: "/", HttpOnly: true, Secure: a.secure,
		SameSite: http.SameSiteLaxMode, MaxAge: int(maxAge.Seconds())}
	if maxAge <= 0 {
		c.MaxAge = -1
	}
	return c
}

func (a *App) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(a.cookie); err == nil {
		if err := a.accounts.deleteSession(r.Context(), c.Value); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	http.SetCookie(w, a.sessionCookie("", 0))
	http.Redirect(w, r, "/app/login", http.StatusSeeOther)
}
