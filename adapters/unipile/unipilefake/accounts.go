package unipilefake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"time"
)

func (f *Fake) listAccounts(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	answerList(f, w, r, "AccountList", f.st.accounts, 250, func(a *account) any { return renderAccount(a) })
}

// getAccount answers whatever the account's status: it is how a caller learns it.
func (f *Fake) getAccount(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a := f.st.account(r.PathValue("id"))
	if a == nil {
		notFound(w, "Account")
		return
	}
	writeJSON(w, http.StatusOK, renderAccount(a))
}

// seat checks an account-scoped call: the account_id is given, known, connected (status OK)
// and not restricted. It holds f.mu and writes the refusal itself.
func (f *Fake) seat(w http.ResponseWriter, accountID string) (*account, bool) {
	if accountID == "" {
		badRequest(w, "account_id is required.")
		return nil, false
	}
	a := f.st.account(accountID)
	switch {
	case a == nil:
		notFound(w, "Account")
	case a.status != "OK":
		problem(w, http.StatusUnauthorized, typeDisconnectedAccount, "Disconnected account",
			"The account appears to be disconnected from the provider service.")
	case a.restricted:
		problem(w, http.StatusForbidden, typeAccountRestricted, "Account restricted",
			"The account is restricted by the provider.")
	default:
		return a, true
	}
	return nil, false
}

// seatRoute runs h under f.mu for the seat the query's account_id names, once seat has
// accepted it.
func (f *Fake) seatRoute(h func(http.ResponseWriter, *http.Request, *account)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if a, ok := f.seat(w, r.URL.Query().Get("account_id")); ok {
			h(w, r, a)
		}
	}
}

// chatRoute runs h under f.mu for the chat the path names, once seat has accepted its
// account.
func (f *Fake) chatRoute(h func(http.ResponseWriter, *http.Request, *chat)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		c := f.st.chat(r.PathValue("id"))
		if c == nil {
			notFound(w, "Chat")
			return
		}
		if _, ok := f.seat(w, c.accountID); ok {
			h(w, r, c)
		}
	}
}

// expiresOnPattern is the SDK's UTCDateTimeMs pattern: ISO 8601 UTC with milliseconds.
var expiresOnPattern = regexp.MustCompile(`^[1-2]\d{3}-[0-1]\d-[0-3]\dT\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

func (f *Fake) createLink(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Type             string `json:"type"`
		Providers        any    `json:"providers"`
		APIURL           string `json:"api_url"`
		ExpiresOn        string `json:"expiresOn"`
		NotifyURL        string `json:"notify_url"`
		Name             string `json:"name"`
		ReconnectAccount string `json:"reconnect_account"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	expires, err := time.Parse(time.RFC3339Nano, body.ExpiresOn)
	switch {
	case body.Type != "create" && body.Type != "reconnect":
		badRequest(w, "type must be create or reconnect.")
		return
	case !httpURL(body.APIURL):
		badRequest(w, "api_url must be an http(s) URL.")
		return
	case !expiresOnPattern.MatchString(body.ExpiresOn) || err != nil || !expires.After(f.now()):
		badRequest(w, "expiresOn must be a future ISO 8601 UTC date with milliseconds (YYYY-MM-DDTHH:MM:SS.sssZ).")
		return
	case body.NotifyURL != "" && !httpURL(body.NotifyURL):
		badRequest(w, "notify_url must be an http(s) URL.")
		return
	case body.Type == "create" && body.Providers == nil:
		badRequest(w, "providers is required for a create link.")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if body.Type == "reconnect" && f.st.account(body.ReconnectAccount) == nil {
		notFound(w, "Account")
		return
	}
	token := randomID()
	l := &hostedLink{
		token: token, url: f.URL() + "/hosted/" + token, typ: body.Type, notifyURL: body.NotifyURL,
		name: body.Name, reconnect: body.ReconnectAccount, expires: expires,
	}
	f.st.links = append(f.st.links, l)
	writeJSON(w, http.StatusCreated, map[string]any{"object": "HostedAuthUrl", "url": l.url})
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// hostedPage stands for Unipile's sign-in page, which a person would fill in.
func (f *Fake) hostedPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = fmt.Fprintln(w, "Unipile hosted sign-in (fake): a test completes it with CompleteHostedAuth.")
}

// CompleteHostedAuth plays a person signing in through a hosted link: a create link connects
// s as a new seat, a reconnect link brings its account back to OK. Unipile then calls the
// link's notify_url with {status, account_id, name} (CREATION_SUCCESS or RECONNECTED) and the
// account_status webhooks. It returns the account's id.
func (f *Fake) CompleteHostedAuth(linkURL string, s Seat) (string, error) {
	f.mu.Lock()
	var l *hostedLink
	for _, c := range f.st.links {
		if c.url == linkURL {
			l = c
		}
	}
	switch {
	case l == nil:
		f.mu.Unlock()
		return "", fmt.Errorf("unipilefake: no hosted link %s", linkURL)
	case l.used || !f.now().Before(l.expires):
		f.mu.Unlock()
		return "", fmt.Errorf("unipilefake: hosted link %s is used or expired", linkURL)
	}
	l.used = true
	status, accountID := "CREATION_SUCCESS", l.reconnect
	if l.typ == "create" {
		seat, err := f.st.addSeat(s, f.now())
		if err != nil {
			f.mu.Unlock()
			return "", err
		}
		accountID = seat.ID
	} else {
		status = "RECONNECTED"
		f.st.account(accountID).status = "OK"
	}
	var out []outbound
	if l.notifyURL != "" {
		body, _ := json.Marshal(map[string]string{"status": status, "account_id": accountID, "name": l.name})
		out = append(out, outbound{url: l.notifyURL, event: "account_callback", body: body})
	}
	out = append(out, f.statusCalls(accountID, status)...)
	f.mu.Unlock()
	f.send(out)
	return accountID, nil
}

// statusCalls are the account_status webhooks of a status message. Holds f.mu.
func (f *Fake) statusCalls(accountID, message string) []outbound {
	return f.webhookCalls("account_status", accountID, "AccountStatus", func(string) any {
		return map[string]any{"AccountStatus": map[string]any{"account_id": accountID, "account_type": "LINKEDIN", "message": message}}
	})
}

// SetStatus sets an account's source status (CREDENTIALS: disconnected, ERROR, STOPPED,
// CONNECTING, OK) and sends the account_status webhooks. Every status but OK makes the
// account's calls answer 401 errors/disconnected_account and stops its message webhooks.
func (f *Fake) SetStatus(accountID, status string) error {
	return f.changeStatus(accountID, status, status)
}

// Disconnect is LinkedIn ending the seat's session: status CREDENTIALS.
func (f *Fake) Disconnect(accountID string) error { return f.SetStatus(accountID, "CREDENTIALS") }

// Reconnect is the owner signing in again: the status is OK, and Unipile reports RECONNECTED,
// then OK.
func (f *Fake) Reconnect(accountID string) error {
	return f.changeStatus(accountID, "OK", "RECONNECTED", "OK")
}

func (f *Fake) changeStatus(accountID, status string, messages ...string) error {
	f.mu.Lock()
	a := f.st.account(accountID)
	if a == nil {
		f.mu.Unlock()
		return fmt.Errorf("unipilefake: no account %s", accountID)
	}
	a.status = status
	var out []outbound
	for _, m := range messages {
		out = append(out, f.statusCalls(accountID, m)...)
	}
	f.mu.Unlock()
	f.send(out)
	return nil
}

// Restrict makes LinkedIn restrict (or lift the restriction of) a seat: its calls answer 403
// errors/account_restricted. Unipile sends no webhook for it.
func (f *Fake) Restrict(accountID string, restricted bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	a := f.st.account(accountID)
	if a == nil {
		return fmt.Errorf("unipilefake: no account %s", accountID)
	}
	a.restricted = restricted
	return nil
}
