package api_test

import (
	"strings"
	"testing"

	"outreachd/internal/testenv"
)

func TestIntakeURL(t *testing.T) {
	t.Parallel()
	e := newLeadEnv(t)
	camp := e.campaign(t, map[string]any{"roles": map[string]any{"exclude": []string{"intern"}}})
	tok := testenv.Admin(t, e.srv.DBURL, "intake-token", "create", "--campaign", camp)
	url := tok["url"].(string)
	path := url[strings.Index(url, "/api/webhooks/leads/"):]
	anon := testenv.Client{Base: e.srv.URL}

	cases := []struct {
		name                               string
		body                               string
		received, accepted, rejected, unrd int
	}{
		{"one object, loose names", `{"Person Linkedin Url": "https://www.linkedin.com/in/obj-olga", "First Name": "Olga", "companyName": "Acme", "favourite colour": "blue"}`, 1, 1, 0, 0},
		{"bare list", `[{"linkedin": "list-lou"}, {"profileUrl": "list-liz", "jobTitle": "Intern"}, {"name": "no profile"}, 7]`, 4, 1, 1, 2},
		{"leads wrapper", `{"leads": [{"LinkedIn_URL": "wrap-will"}, {"url": "wrap-will"}, {"link": "https://example.com/x"}]}`, 3, 1, 2, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := anon.Do(t, "POST", path, tc.body)
			wantStatus(t, r, 202)
			c := r.JSON["counts"].(map[string]any)
			if r.JSON["ok"] != true || r.JSON["campaign_id"] != camp || r.JSON["batch_id"] == "" ||
				c["received"] != float64(tc.received) || c["accepted"] != float64(tc.accepted) || c["rejected"] != float64(tc.rejected) ||
				c["unreadable"] != float64(tc.unrd) || len(list(r.JSON["unreadable"])) != tc.unrd {
				t.Fatalf("answer = %s", r.Body)
			}
		})
	}

	ls := e.org.Read.Do(t, "GET", "/api/v1/campaigns/"+camp+"/leads?limit=200", nil)
	byID := map[string]map[string]any{}
	for _, d := range list(ls.JSON["data"]) {
		byID[d["linkedin_id"].(string)] = d
	}
	olga := byID["obj-olga"]
	if olga == nil || olga["name"] != "Olga" || olga["company"] != "Acme" || olga["source"] != "intake_url" {
		t.Fatalf("intake lead = %v", olga)
	}
	if n := e.count(t, `SELECT count(*) FROM prospects WHERE linkedin_id = 'obj-olga' AND data->>'favourite colour' = 'blue'`); n != 1 {
		t.Fatal("extra column not kept in data")
	}
	if liz := byID["list-liz"]; liz == nil || liz["filter_verdict"] != "rejected" {
		t.Fatalf("hard-filtered intake lead = %v", liz)
	}

	// Unknown tokens, a body that is not JSON, and too many rows.
	wantCode(t, anon.Do(t, "POST", "/api/webhooks/leads/itk_unknown", `{"linkedin_url": "x-person"}`), 404, "not_found")
	wantCode(t, anon.Do(t, "POST", path, `not json`), 400, "invalid_request")
	wantCode(t, anon.Do(t, "POST", path, "["+strings.TrimSuffix(strings.Repeat(`{"url":"many-mary"},`, 101), ",")+"]"), 400, "invalid_request")

	// Rotation replaces the token at once; revocation kills the new one.
	rot := testenv.Admin(t, e.srv.DBURL, "intake-token", "rotate", "--campaign", camp)["url"].(string)
	newPath := rot[strings.Index(rot, "/api/webhooks/leads/"):]
	wantCode(t, anon.Do(t, "POST", path, `{"url": "after-rotate"}`), 404, "not_found")
	wantStatus(t, anon.Do(t, "POST", newPath, `{"url": "after-rotate"}`), 202)
	testenv.Admin(t, e.srv.DBURL, "intake-token", "revoke", "--campaign", camp)
	wantCode(t, anon.Do(t, "POST", newPath, `{"url": "after-revoke"}`), 404, "not_found")

	testenv.Admin(t, e.srv.DBURL, "campaign", "set-status", "--campaign", camp, "--status", "archived")
	closed := testenv.Admin(t, e.srv.DBURL, "intake-token", "create", "--campaign", camp)["url"].(string)
	wantCode(t, anon.Do(t, "POST", closed[strings.Index(closed, "/api/webhooks/leads/"):], `{"url": "too-late"}`), 409, "campaign_closed")
}
