package unipilefake

import (
	"net/http"
	"strings"
)

// getProfile looks a member up by public identifier or member id, as the seat sees them.
func (f *Fake) getProfile(w http.ResponseWriter, r *http.Request, a *account) {
	p := f.st.person(r.PathValue("identifier"))
	if p == nil {
		notFound(w, "User")
		return
	}
	var sections []string
	if v := r.URL.Query().Get("linkedin_sections"); v != "" {
		sections = strings.Split(v, ",")
	}
	writeJSON(w, http.StatusOK, renderProfile(&f.st, a, p, sections))
}

func (f *Fake) getMe(w http.ResponseWriter, r *http.Request, a *account) {
	writeJSON(w, http.StatusOK, renderOwnProfile(a))
}

func (f *Fake) getCompany(w http.ResponseWriter, r *http.Request, _ *account) {
	id := r.PathValue("id")
	for _, c := range f.st.companies {
		if c.ID == id || strings.EqualFold(c.PublicIdentifier, id) {
			writeJSON(w, http.StatusOK, renderCompany(c))
			return
		}
	}
	notFound(w, "Company")
}
