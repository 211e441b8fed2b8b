package api_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"outreachd/internal/testenv"
)

// TestPushLeadsKeepsUnknownFields: CRM exports carry extra columns. An unknown field never
// fails the push: scalars go into the lead's data (within its 20 pairs), what could not be
// kept is listed per entry in warnings, and GET /leads/{id} and the campaign's lead list show
// the data and the email kept.
func TestPushLeadsKeepsUnknownFields(t *testing.T) {
	t.Parallel()
	e := newLeadEnv(t)
	camp := e.campaign(t, nil)
	nineteen := map[string]any{}
	for i := range 19 {
		nineteen[fmt.Sprintf("k%02d", i)] = i
	}
	body := `{"leads": [
		{"linkedin_url": "phone-phil", "first_name": "Phil", "email": "phil@example.com", "phone": "+49 30 1234", "Employees": 42, "vip": true, "tags": ["a","b"], "empty": null},
		{"linkedin_url": "full-fran", "data": ` + mustJSON(t, nineteen) + `, "phone": "1", "fax": "2", "pager": "3"},
		{"linkedin_url": "plain-pat", "Company": "Acme"}
	]}`
	r := e.org.Write.Do(t, "POST", "/api/v1/campaigns/"+camp+"/leads", body)
	wantStatus(t, r, 202)
	acc := list(r.JSON["accepted"])
	if len(acc) != 3 {
		t.Fatalf("accepted = %s", r.Body)
	}
	warn := func(i int) []string {
		var out []string
		for _, w := range acc[i]["warnings"].([]any) {
			out = append(out, w.(string))
		}
		return out
	}
	if w := warn(0); len(w) != 1 || !strings.Contains(w[0], `"tags"`) {
		t.Errorf("lead 0 warnings = %v, want one naming tags", w)
	}
	if w := warn(1); len(w) != 2 || !strings.Contains(w[0], `"fax"`) || !strings.Contains(w[1], `"pager"`) || !strings.Contains(w[0], "20") {
		t.Errorf("lead 1 warnings = %v, want fax and pager dropped over the 20-pair cap", w)
	}
	if w := warn(2); len(w) != 0 {
		t.Errorf("lead 2 warnings = %v, want none", w)
	}
	shown := map[string]map[string]any{} // lead id -> the lead as the campaign's list shows it
	r = e.org.Read.Do(t, "GET", "/api/v1/campaigns/"+camp+"/leads", nil)
	wantStatus(t, r, 200)
	for _, l := range list(r.JSON["data"]) {
		shown[l["lead_id"].(string)] = l
	}
	data := func(id string) map[string]any {
		t.Helper()
		r := e.org.Read.Do(t, "GET", "/api/v1/leads/"+id, nil)
		wantStatus(t, r, 200)
		one := r.JSON["data"].(map[string]any)
		if fmt.Sprint(one["data"]) != fmt.Sprint(shown[id]["data"]) || one["email"] != shown[id]["email"] {
			t.Errorf("lead %s: GET /leads/{id} shows %v %v, the list %v %v", id, one["email"], one["data"], shown[id]["email"], shown[id]["data"])
		}
		d, ok := one["data"].(map[string]any)
		if !ok {
			t.Fatalf("lead %s: data = %v, want an object", id, one["data"])
		}
		return d
	}
	if d := data(acc[0]["lead_id"].(string)); d["phone"] != "+49 30 1234" || d["Employees"] != 42.0 || d["vip"] != true || len(d) != 3 {
		t.Errorf("lead 0 data = %v", d)
	}
	if d := data(acc[1]["lead_id"].(string)); len(d) != 20 || d["phone"] != "1" {
		t.Errorf("lead 1 data = %v (want the 19 pairs plus phone)", d)
	}
	if d := data(acc[2]["lead_id"].(string)); len(d) != 0 {
		t.Errorf("lead 2 data = %v, want {}", d)
	}
	if email := shown[acc[0]["lead_id"].(string)]["email"]; email != "phil@example.com" {
		t.Errorf("lead 0 email = %v", email)
	}
	if email, ok := shown[acc[2]["lead_id"].(string)]["email"]; !ok || email != nil {
		t.Errorf("lead 2 email = %v (present %v), want null", email, ok)
	}
	if acc[0]["name"] != "Phil" {
		t.Errorf("known fields still read: name = %v", acc[0]["name"])
	}
	// A rejected entry reports its warnings too.
	r = e.org.Write.Do(t, "POST", "/api/v1/campaigns/"+camp+"/leads", `{"leads": [{"linkedin_url": "https://example.com/x", "nested": {"a": 1}}]}`)
	wantStatus(t, r, 202)
	rej := list(r.JSON["rejected"])
	if len(rej) != 1 || len(rej[0]["warnings"].([]any)) != 1 {
		t.Errorf("rejected = %s", r.Body)
	}

	// The intake URL reports the columns it could not keep the same way.
	u := testenv.Admin(t, e.srv.DBURL, "intake-token", "create", "--campaign", camp)["url"].(string)
	anon := testenv.Client{Base: e.srv.URL}
	r = anon.Do(t, "POST", u[strings.Index(u, "/api/webhooks/leads/"):], `{"linkedin": "intake-ina", "tags": [1], "crm": "x"}`)
	wantStatus(t, r, 202)
	if acc := list(r.JSON["accepted"]); len(acc) != 1 || len(acc[0]["warnings"].([]any)) != 1 || !strings.Contains(acc[0]["warnings"].([]any)[0].(string), "tags") {
		t.Errorf("intake answer = %s", r.Body)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
