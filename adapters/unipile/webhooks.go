package unipile

import (
	"context"
	"encoding/json"
	"net/http"
)

// Webhook sources outreachd registers.
const (
	WebhookMessaging     = "messaging"      // message_received (and the seat's own messages)
	WebhookUsers         = "users"          // new_relation
	WebhookAccountStatus = "account_status" // {"AccountStatus": …}
)

// Header is one header Unipile sends with every call of a webhook.
type Header struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Webhook is a registered webhook. Unipile's list does not say which source a webhook
// listens to: recognise your own by Name, RequestURL or the id CreateWebhook returned.
type Webhook struct {
	ID         string           `json:"id"`
	Name       string           `json:"name"`
	RequestURL string           `json:"request_url"`
	Enabled    bool             `json:"enabled"`
	Format     string           `json:"format"` // "json" or "form"
	Headers    []Header         `json:"headers"`
	Events     []string         `json:"events"`
	Type       string           `json:"type"` // "AUTO" or "TRIGGER"
	Accounts   []WebhookAccount `json:"account_ids"`
}

// WebhookAccount is an account a webhook is limited to (none: every account).
type WebhookAccount struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// UnmarshalJSON reads the {id, name, type} object the SDK declares, or a bare id, so that
// the list (which registration at start depends on) does not fail on either shape.
func (a *WebhookAccount) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		*a = WebhookAccount{}
		return json.Unmarshal(b, &a.ID)
	}
	type plain WebhookAccount
	return json.Unmarshal(b, (*plain)(a))
}

// NewWebhook registers a webhook.
type NewWebhook struct {
	Source     string   `json:"source"` // WebhookMessaging, WebhookUsers or WebhookAccountStatus
	RequestURL string   `json:"request_url"`
	Name       string   `json:"name,omitempty"`
	Format     string   `json:"format,omitempty"` // "json" (Unipile's default) or "form"
	AccountIDs []string `json:"account_ids,omitempty"`
	// Headers are sent with every call; an API-created webhook sends no Content-Type unless
	// one is set here.
	Headers []Header `json:"headers,omitempty"`
	// Events narrows a messaging webhook ("message_received", …); empty: Unipile's default.
	Events []string `json:"events,omitempty"`
}

// ListWebhooks lists one page of the registered webhooks.
func (c *Client) ListWebhooks(ctx context.Context, opts ListOptions) (Page[Webhook], error) {
	return list[Webhook](ctx, c, call{method: http.MethodGet, path: "/webhooks", query: opts.query(nil), object: "WebhookList"})
}

// CreateWebhook registers a webhook and returns its id.
func (c *Client) CreateWebhook(ctx context.Context, w NewWebhook) (string, error) {
	if err := required("create webhook", "source", w.Source, "request url", w.RequestURL); err != nil {
		return "", err
	}
	a := idAnswer{field: "webhook_id"}
	err := c.do(ctx, call{method: http.MethodPost, path: "/webhooks", json: w, object: "WebhookCreated"}, &a)
	return a.id, err
}

// DeleteWebhook removes a registered webhook.
func (c *Client) DeleteWebhook(ctx context.Context, webhookID string) error {
	if err := required("delete webhook", "webhook id", webhookID); err != nil {
		return err
	}
	return c.do(ctx, call{method: http.MethodDelete, path: pathOf("webhooks", webhookID), object: "WebhookDeleted"}, &struct{}{})
}
