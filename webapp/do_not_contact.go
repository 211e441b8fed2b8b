package webapp

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// Do not contact: the organization's do-not-contact list (accounts and companies) with Add,
// Remove and a search; the people stopped, with Resume (their campaigns continue at the exact
// step, with the time that was left); the people blocked, with Unblock. Every change is the
// API's own storage call (POST and DELETE /blacklist, POST /inbox/resume and /inbox/unblock), so
// the page refuses what the API refuses, with its words.

const dncPerPage = 50

func (a *App) doNotContactRoutes(sub *mux.Router) {
	sub.HandleFunc("/do-not-contact", a.page(a.doNotContactPage)).Methods(http.MethodGet)
	sub.HandleFunc("/do-not-contact/add", a.page(a.addDoNotContact)).Methods(http.MethodPost)
	sub.HandleFunc("/do-not-contact/remove", a.page(a.removeDoNotContact)).Methods(http.MethodPost)
	sub.HandleFunc("/do-not-contact/resume", a.page(a.resumePerson)).Methods(http.MethodPost)
	sub.HandleFunc("/do-not-contact/unblock", a.page(a.unblockPerson)).Methods(http.MethodPost)
}

var dncFlashes = map[string]string{
	"added":   "Added to the do-not-contact list. Leads that match it are refused from now on, and nothing more is sent to them.",
	"present": "Already on the do-not-contact list.",
	"removed": "Removed from the do-not-contact list.",
	"resumed": "Resumed: their campaigns continue at the step where they stopped, after the time that was left then.",
	// A person whose sequences had all ended (they replied, or finished them) has none to continue.
	"resumed-replies": "Resumed: replies to them may be drafted and sent again. No campaign sequence of theirs was paused (a sequence ends when the person replies), so none continues.",
	"resumed-listed":  "Resumed, but they are on the do-not-contact list: nothing is sent to them until they are unblocked.",
	"unblocked":       "Unblocked: they may be contacted again from now on. What the block ended stays ended.",
}

// dncList is one paged list of the page.
type dncList[T any] struct {
	Rows  []T
	Total int
	Page  int
	Prev  string // link to the previous page, "" on the first
	Next  string // link to the next page, "" on the last
}

type dncData struct {
	Q       string
	Value   string
	Type    string
	Entries dncList[storage.BlacklistEntry]
	Stopped dncList[storage.StoppedPerson]
	Blocked dncList[storage.BlockedPerson]
	Who     map[string]string // the organization's people, id -> email
}

// listPage reads the page of one list the query asks for (?entries=2; the first when it names
// none, or a bad one) through list, given the page's offset, and fills the list's links: the
// same page with only this list's number changed.
func listPage[T any](r *http.Request, name string, list func(offset int) ([]T, int, error)) (dncList[T], error) {
	n, err := strconv.Atoi(r.URL.Query().Get(name))
	if err != nil || n < 1 || n > 100_000 {
		n = 1
	}
	rows, total, err := list((n - 1) * dncPerPage)
	if err != nil {
		return dncList[T]{}, err
	}
	l := dncList[T]{Rows: rows, Total: total, Page: n}
	link := func(p int) string {
		q := r.URL.Query()
		q.Set(name, strconv.Itoa(p))
		q.Del("done")
		return "/app/do-not-contact?" + q.Encode()
	}
	if n > 1 {
		l.Prev = link(n - 1)
	}
	if n*dncPerPage < total {
		l.Next = link(n + 1)
	}
	return l, nil
}

func (a *App) doNotContactPage(w http.ResponseWriter, r *http.Request, u User) {
	a.showDoNotContact(w, r, u, http.StatusOK, "", "", "")
}

func (a *App) showDoNotContact(w http.ResponseWriter, r *http.Request, u User, status int, problem, value, typ string) {
	ctx := r.Context()
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if len([]rune(q)) > 200 {
		q = string([]rune(q)[:200])
	}
	d := dncData{Q: q, Value: value, Type: typ}
	var err error
	if d.Who, err = a.accounts.orgEmails(ctx, u.OrgID); err != nil {
		a.fail(w, r, err)
		return
	}
	d.Entries, err = listPage(r, "entries", func(offset int) ([]storage.BlacklistEntry, int, error) {
		return a.store.ListBlacklist(ctx, storage.BlacklistQuery{OrgID: u.OrgID, Text: q, ListedOnly: true,
			Limit: dncPerPage, Offset: offset})
	})
	if err == nil {
		d.Stopped, err = listPage(r, "stopped", func(offset int) ([]storage.StoppedPerson, int, error) {
			return a.store.ListStopped(ctx, storage.PeopleQuery{OrgID: u.OrgID, Text: q, Limit: dncPerPage, Offset: offset})
		})
	}
	if err == nil {
		d.Blocked, err = listPage(r, "blocked", func(offset int) ([]storage.BlockedPerson, int, error) {
			return a.store.ListBlocked(ctx, storage.PeopleQuery{OrgID: u.OrgID, Text: q, Limit: dncPerPage, Offset: offset})
		})
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.render(w, r, status, "do_not_contact", view{Title: "Do not contact", Nav: "do-not-contact",
		Flash: dncFlashes[r.URL.Query().Get("done")], Error: problem, D: d})
}

// back returns to the page with the search the form was posted from.
func (a *App) backToDoNotContact(w http.ResponseWriter, r *http.Request, done string) {
	v := url.Values{"done": {done}}
	if q := strings.TrimSpace(r.PostFormValue("q")); q != "" {
		v.Set("q", q)
	}
	http.Redirect(w, r, "/app/do-not-contact?"+v.Encode(), http.StatusSeeOther)
}

func (a *App) addDoNotContact(w http.ResponseWriter, r *http.Request, u User) {
	value, typ := strings.TrimSpace(r.PostFormValue("value")), r.PostFormValue("type")
	k, err := outreach.ParseBlacklistValue(value, typ)
	if err != nil {
		a.showDoNotContact(w, r, u, http.StatusBadRequest, err.Error(), value, typ)
		return
	}
	by := "user:" + u.ID
	added, err := a.store.AddBlacklist(r.Context(), u.OrgID, []storage.BlacklistEntry{{Type: k.Type, Key: k.Key, Value: value,
		AddedBy: &by, CreatedAt: a.domainNow()}})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	done := "added"
	if added == 0 {
		done = "present"
	}
	a.backToDoNotContact(w, r, done)
}

func (a *App) removeDoNotContact(w http.ResponseWriter, r *http.Request, u User) {
	k, err := outreach.ParseBlacklistValue(r.PostFormValue("value"), r.PostFormValue("type"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	found, err := a.store.RemoveBlacklist(r.Context(), u.OrgID, k)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if !found {
		a.fail(w, r, outreach.NotFound("do-not-contact entry (%s) %s", k.Type, r.PostFormValue("value")))
		return
	}
	a.log.Info("webapp: do-not-contact entry removed", "type", k.Type, "user", u.ID)
	a.backToDoNotContact(w, r, "removed")
}

// personRef reads the person a Resume or Unblock button names, as POST /inbox/resume reads one.
func (a *App) personRef(w http.ResponseWriter, r *http.Request) (storage.PersonRef, bool) {
	p, err := outreach.NormalizeProfile(r.PostFormValue("person"))
	if err != nil {
		a.fail(w, r, err)
		return storage.PersonRef{}, false
	}
	return storage.NewPersonRef(p), true
}

func (a *App) resumePerson(w http.ResponseWriter, r *http.Request, u User) {
	ref, ok := a.personRef(w, r)
	if !ok {
		return
	}
	res, err := a.store.ResumePeople(r.Context(), u.OrgID, []storage.PersonRef{ref}, a.domainNow())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if !res[0].Found {
		a.fail(w, r, outreach.NotFound("stopped person %s", ref.Value))
		return
	}
	a.log.Info("webapp: person resumed", "sequences", res[0].SequencesResumed, "user", u.ID)
	switch {
	case res[0].SequencesResumed > 0:
		a.backToDoNotContact(w, r, "resumed")
	case res[0].RepliesResumed:
		a.backToDoNotContact(w, r, "resumed-replies")
	default:
		a.backToDoNotContact(w, r, "resumed-listed")
	}
}

func (a *App) unblockPerson(w http.ResponseWriter, r *http.Request, u User) {
	ref, ok := a.personRef(w, r)
	if !ok {
		return
	}
	res, err := a.store.UnblockPeople(r.Context(), u.OrgID, []storage.PersonRef{ref})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if !res[0].Found {
		a.fail(w, r, outreach.NotFound("blocked person %s", ref.Value))
		return
	}
	a.log.Info("webapp: person unblocked", "user", u.ID)
	a.backToDoNotContact(w, r, "unblocked")
}
