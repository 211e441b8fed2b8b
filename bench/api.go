package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Client calls the v1 API with one key from many goroutines. Unlike internal/testenv's client it
// never stops a test: load generators count failures and report them.
type Client struct {
	Base string // http://host:port
	Key  string
	HTTP *http.Client
}

// NewClient returns a client with a connection pool large enough that the load generator never
// queues on it.
func NewClient(base, key string) *Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 512, 512
	return &Client{Base: strings.TrimRight(base, "/"), Key: key, HTTP: &http.Client{Transport: tr, Timeout: 60 * time.Second}}
}

// StatusError is an answer with an unexpected status.
type StatusError struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s %s: HTTP %d: %s", e.Method, e.Path, e.Status, e.Body)
}

// Do sends body (nil for none) and decodes a 2xx answer into out (nil to discard). Any other
// status is a *StatusError.
func (c *Client) Do(ctx context.Context, method, path string, body []byte, out any, headers ...string) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.Key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: read body: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &StatusError{Method: method, Path: path, Status: resp.StatusCode, Body: string(raw[:min(len(raw), 300)])}
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s %s: decode answer: %w", method, path, err)
		}
	}
	return nil
}

// CreateCampaign creates a draft campaign through POST /campaigns and returns its id.
func (c *Client) CreateCampaign(ctx context.Context, name string) (string, error) {
	body, _ := json.Marshal(map[string]any{"name": name})
	var out struct {
		Item struct {
			ID string `json:"id"`
		} `json:"item"`
	}
	if err := c.Do(ctx, http.MethodPost, "/api/v1/campaigns", body, &out); err != nil {
		return "", err
	}
	if out.Item.ID == "" {
		return "", fmt.Errorf("POST /campaigns answered without item.id")
	}
	return out.Item.ID, nil
}

// PushAnswer is the part of a push answer the generators check.
type PushAnswer struct {
	Accepted []struct {
		LeadID  string `json:"lead_id"`
		Created bool   `json:"created"`
	} `json:"accepted"`
	Counts struct {
		Received, Accepted, Rejected, Duplicates int
	} `json:"counts"`
}

// LeadsBody is the JSON body of a push of n new leads whose profile handles are prefix-<from+i>:
// the fields a CRM export typically carries, no hard filters involved.
func LeadsBody(prefix string, from, n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"leads":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		k := from + i
		fmt.Fprintf(&b, `{"linkedin_url":"https://www.linkedin.com/in/%s-%d","first_name":"Lead","last_name":"Number %d",`+
			`"company":"Company %d","title":"VP Sales","email":"lead%d@example.com","location":"Berlin, Germany",`+
			`"headline":"Building the pipeline","source":"bench"}`, prefix, k, k, k%5000, k)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// PushLeads pushes a LeadsBody and checks that every lead was created.
func (c *Client) PushLeads(ctx context.Context, campaignID, prefix string, from, n int) error {
	var ans PushAnswer
	if err := c.Do(ctx, http.MethodPost, "/api/v1/campaigns/"+campaignID+"/leads", LeadsBody(prefix, from, n), &ans); err != nil {
		return err
	}
	if ans.Counts.Accepted != n || len(ans.Accepted) != n || ans.Counts.Duplicates != 0 {
		return fmt.Errorf("push of %d new leads: counts %+v", n, ans.Counts)
	}
	return nil
}
