package api_test

import (
	"fmt"
	"strings"
	"testing"

	"outreachd/internal/testenv"
)

// A destination's filter and rate limit through the API: reads show them as given, null removes
// them, and a request that does not name them leaves them as they are.
func TestDestinationFilterAndRateLimitRoundTrip(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)
	filter := "{ \"data.campaign.id\" : \"cmp_x\",\n  \"$or\": [{\"data.prospect.follower_count\": {\"$gte\": 500}}, {\"data.prospect.company\": \"Acme\"}] }"
	compact := `{"data.campaign.id":"cmp_x","$or":[{"data.prospect.follower_count":{"$gte":500}},{"data.prospect.company":"Acme"}]}`
	r := org.Write.Do(t, "POST", "/api/v1/destinations", `{"url": "https://example.com/f", "events": "reply_received,prospect_added",
		"filter": `+filter+`, "rate_limit_per_second": 10}`)
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	d := data(t, r)
	id := d["id"].(string)
	shows := func(what string, wantFilter string, wantRate any) {
		t.Helper()
		g := org.Read.Do(t, "GET", "/api/v1/destinations/"+id, nil)
		got := data(t, g)
		if fmt.Sprint(got["rate_limit_per_second"]) != fmt.Sprint(wantRate) || !strings.Contains(string(g.Body), `"filter":`+wantFilter+`,`) {
			t.Fatalf("%s: %s; want filter %s and rate_limit_per_second %v", what, g.Body, wantFilter, wantRate)
		}
	}
	if d["rate_limit_per_second"] != float64(10) {
		t.Fatalf("created: %v", d)
	}
	shows("created", compact, 10)

	p := org.Write.Do(t, "PATCH", "/api/v1/destinations/"+id, map[string]any{"name": "renamed"})
	if p.Status != 200 {
		t.Fatalf("patch name: %d %s", p.Status, p.Body)
	}
	shows("a patch of the name alone", compact, 10)

	p = org.Write.Do(t, "PATCH", "/api/v1/destinations/"+id, map[string]any{"filter": map[string]any{"event": "prospect_added"}, "rate_limit_per_second": 1000})
	if p.Status != 200 {
		t.Fatalf("patch filter and rate: %d %s", p.Status, p.Body)
	}
	shows("patched", `{"event":"prospect_added"}`, 1000)

	p = org.Write.Do(t, "PATCH", "/api/v1/destinations/"+id, map[string]any{"filter": nil, "rate_limit_per_second": nil})
	if p.Status != 200 {
		t.Fatalf("patch nulls: %d %s", p.Status, p.Body)
	}
	shows("removed", "null", nil)

	// The list and the operator CLI show them too.
	org.Write.Do(t, "PATCH", "/api/v1/destinations/"+id, map[string]any{"filter": map[string]any{"event": "reply_received"}, "rate_limit_per_second": 5})
	list := org.Read.Do(t, "GET", "/api/v1/destinations", nil)
	if !strings.Contains(string(list.Body), `"filter":{"event":"reply_received"},"rate_limit_per_second":5`) {
		t.Fatalf("list: %s", list.Body)
	}
	cli := testenv.Admin(t, srv.DBURL, "destination", "list", "--org", org.ID)
	item := cli["data"].([]any)[0].(map[string]any)
	if fmt.Sprint(item["filter"]) != "map[event:reply_received]" || item["rate_limit_per_second"] != float64(5) {
		t.Fatalf("admin destination list: %v", item)
	}
	made := testenv.Admin(t, srv.DBURL, "destination", "create", "--org", org.ID, "--url", "https://example.com/cli",
		"--events", "campaign_started", "--filter", `{"data.campaign.id": {"$in": ["cmp_a", "cmp_b"]}}`, "--rate-limit-per-second", "20")
	if fmt.Sprint(made["filter"]) != "map[data.campaign.id:map[$in:[cmp_a cmp_b]]]" || made["rate_limit_per_second"] != float64(20) {
		t.Fatalf("admin destination create: %v", made)
	}
}

// rawJSON is a body value written as given (its spaces and member order kept).
type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// Every refusal of a filter or a rate limit is a 400 invalid_request whose message names the
// place, and writes nothing.
func TestDestinationFilterAndRateLimitRefusals(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)
	keep := `{"data.campaign.id":"cmp_keep"}`
	base := createDest(t, org.Write, map[string]any{"url": "https://example.com/keep", "events": []string{"campaign_started"},
		"filter": rawJSON(keep), "rate_limit_per_second": 7})
	id := base["id"].(string)
	deep := `{"data.campaign.id":"x"}`
	for range 4 {
		deep = `{"$and":[` + deep + `]}`
	}
	big := `{"data.campaign.id":{"$in":["` + strings.Repeat("x", 8200) + `"]}}`
	create := func(extra map[string]any) map[string]any {
		body := map[string]any{"url": "https://example.com/new", "events": "campaign_started"}
		for k, v := range extra {
			body[k] = v
		}
		return body
	}
	cases := []refusal{
		{"unknown operator", "POST", "", create(map[string]any{"filter": rawJSON(`{"data.campaign.id":{"$like":"cmp_%"}}`)}),
			"filter.data.campaign.id.$like: unknown operator $like (the operators are $eq, $neq, $in, $nin, $exists, $gt, $gte, $lt, $lte, $and, $or, $not)"},
		{"$gt on a string", "POST", "", create(map[string]any{"filter": rawJSON(`{"data.campaign.name":{"$gt":3}}`)}),
			"filter.data.campaign.name: $gt compares the number 3 with data.campaign.name, which is a string"},
		{"a field the kind does not have", "POST", "", create(map[string]any{"filter": rawJSON(`{"data.booking.id":"x"}`)}),
			"filter.data.booking.id: data.booking.id is not a field of campaign_started events (GET /event-types lists the fields of each)"},
		{"more than 8 KB", "POST", "", create(map[string]any{"filter": rawJSON(big)}),
			"filter: 8233 bytes of JSON, more than the 8192 (8 KB) a filter may have"},
		{"deeper than 8 levels", "POST", "", create(map[string]any{"filter": rawJSON(deep)}),
			"filter.$and[0].$and[0].$and[0].$and[0]: nested deeper than 8 levels"},
		{"not an object", "POST", "", create(map[string]any{"filter": "data.campaign.id=x"}), "filter: must be a JSON object, got a string"},
		{"rate 0", "POST", "", create(map[string]any{"rate_limit_per_second": 0}),
			"rate_limit_per_second: must be an integer from 1 to 1000 (attempts per second), or null for no limit; got 0"},
		{"rate 1001", "POST", "", create(map[string]any{"rate_limit_per_second": 1001}),
			"rate_limit_per_second: must be an integer from 1 to 1000 (attempts per second), or null for no limit; got 1001"},
		{"rate not an integer", "POST", "", create(map[string]any{"rate_limit_per_second": 2.5}),
			"rate_limit_per_second: must be an integer from 1 to 1000 (attempts per second), or null for no limit"},
		{"rate a string", "POST", "", create(map[string]any{"rate_limit_per_second": "10"}),
			"rate_limit_per_second: must be an integer from 1 to 1000"},
		{"patch a bad filter", "PATCH", "/" + id, map[string]any{"filter": rawJSON(`{"data.campaign.id":{"$in":[]}}`)},
			"filter.data.campaign.id: $in needs a non-empty array of values, got an empty array"},
		{"patch a negative rate", "PATCH", "/" + id, map[string]any{"rate_limit_per_second": -1},
			"rate_limit_per_second: must be an integer from 1 to 1000 (attempts per second), or null for no limit; got -1"},
		{"patch events the stored filter does not fit", "PATCH", "/" + id, map[string]any{"events": "account_disconnected"},
			`events: the destination's filter does not fit this selection (filter.data.campaign.id: data.campaign.id is not a field of account_disconnected events (GET /event-types lists the fields of each)); change or remove the filter ("filter": null) in the same request`},
		{"patch events and a filter that does not fit them", "PATCH", "/" + id,
			map[string]any{"events": "account_disconnected", "filter": rawJSON(`{"data.prospect.name":"x"}`)},
			"filter.data.prospect.name: data.prospect.name is not a field of account_disconnected events"},
	}
	// Each message begins with the place at fault.
	checkRefusals(t, org.Write, cases, strings.HasPrefix)
	list := org.Read.Do(t, "GET", "/api/v1/destinations", nil)
	if items := list.JSON["data"].([]any); len(items) != 1 ||
		!strings.Contains(string(list.Body), `"events":["campaign_started"],"filter":`+keep+`,"rate_limit_per_second":7`) {
		t.Fatalf("a refused request wrote something: %s", list.Body)
	}
	// Events and a filter that fit each other, in one request.
	p := org.Write.Do(t, "PATCH", "/api/v1/destinations/"+id, map[string]any{"events": "account_disconnected", "filter": nil})
	if p.Status != 200 || data(t, p)["filter"] != nil {
		t.Fatalf("events with the filter removed: %d %s", p.Status, p.Body)
	}
}
