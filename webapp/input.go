package webapp

import (
	"errors"
	"fmt"
	"net/http"

	"outreachd/outreach"
)

// maxFormValue bounds every value a page's form or query may carry, in characters. The longest a
// person legitimately writes is an edited reply (outreach.MaxReplyText); each form checks its own
// fields' tighter bounds after this (an email at most maxEmail, a destination's name and URL
// in delivery.Destinations).
const maxFormValue = 10_000

// maxEmail is the longest email address (RFC 5321: a path of at most 256 octets, less the
// brackets). A longer one cannot be anyone's, and it would not fit the failed-sign-in index.
const maxEmail = 254

// checkInput refuses, with a page that names the problem, a request whose path, query or form
// holds a NUL character, bytes that are not UTF-8, or a value longer than maxFormValue: no
// field of the application takes such text, and PostgreSQL would refuse it, so no handler sees it.
func (a *App) checkInput(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := outreach.CheckText("the address", r.URL.Path, 0); err != nil {
			a.renderError(w, r, http.StatusBadRequest, err.Error()+".")
			return
		}
		if err := r.ParseForm(); err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				a.renderError(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("The form is larger than %d bytes.", tooBig.Limit))
				return
			}
			a.renderError(w, r, http.StatusBadRequest, "The form could not be read.")
			return
		}
		if err := outreach.CheckFields(r.Form, maxFormValue); err != nil { // query and body
			a.renderError(w, r, http.StatusBadRequest, err.Error()+".")
			return
		}
		next.ServeHTTP(w, r)
	})
}
