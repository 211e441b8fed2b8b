package unipile

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Locker serializes work across the service's instances (the engine's ProviderInbox holds a
// PostgreSQL advisory lock for it).
type Locker interface {
	Lock(ctx context.Context, name string) (unlock func(), err error)
}

// webhookSources are the sources outreachd listens to, and the events it wants of each (none:
// Unipile's default for the source).
var webhookSources = []struct {
	source string
	events []string
}{
	{WebhookMessaging, []string{string(EventMessageReceived)}},
	{WebhookUsers, nil},
	{WebhookAccountStatus, nil},
}

// Registered says what EnsureWebhooks did.
type Registered struct {
	Kept, Created, Deleted int
}

// EnsureWebhooks makes sure Unipile has exactly one webhook of outreachd's for each of the
// sources messaging, users and account_status, pointing at publicURL's webhook path with the
// Unipile-Auth header and a JSON Content-Type (API-created webhooks send none by default).
// outreachd knows its own by name ("outreachd <source>") and address, since Unipile's list does
// not say a webhook's source: one of them with another secret, or disabled, is replaced, and
// any second one is deleted; other webhooks are left alone. It runs under lock, so that
// instances starting together do not both create the missing ones.
func EnsureWebhooks(ctx context.Context, c *Client, lock Locker, publicURL, secret string) (Registered, error) {
	var done Registered
	if c == nil || lock == nil || secret == "" {
		return done, errors.New("unipile: registering webhooks needs a client, a lock and a secret")
	}
	target := strings.TrimRight(publicURL, "/") + WebhookPath
	unlock, err := lock.Lock(ctx, "webhooks")
	if err != nil {
		return done, err
	}
	defer unlock()
	hooks, err := Collect(ctx, 20, func(ctx context.Context, cursor string) (Page[Webhook], error) {
		return c.ListWebhooks(ctx, ListOptions{Limit: 100, Cursor: cursor})
	})
	if err != nil {
		return done, fmt.Errorf("unipile: list webhooks: %w", err)
	}
	for _, src := range webhookSources {
		name := "outreachd " + src.source
		kept := false
		for _, h := range hooks {
			if h.Name != name || h.RequestURL != target {
				continue
			}
			if !kept && h.Enabled && hasHeader(h.Headers, AuthHeader, secret) && hasHeader(h.Headers, "Content-Type", "application/json") {
				kept = true
				done.Kept++
				continue
			}
			if err := c.DeleteWebhook(ctx, h.ID); err != nil && ClassOf(err) != ClassNotFound {
				return done, fmt.Errorf("unipile: delete webhook %s: %w", h.ID, err)
			}
			done.Deleted++
		}
		if kept {
			continue
		}
		_, err := c.CreateWebhook(ctx, NewWebhook{Source: src.source, RequestURL: target, Name: name, Format: "json",
			Events: src.events, Headers: []Header{{Key: AuthHeader, Value: secret}, {Key: "Content-Type", Value: "application/json"}}})
		if err != nil {
			return done, fmt.Errorf("unipile: create the %s webhook: %w", src.source, err)
		}
		done.Created++
	}
	return done, nil
}

func hasHeader(hs []Header, key, value string) bool {
	for _, h := range hs {
		if strings.EqualFold(h.Key, key) && h.Value == value {
			return true
		}
	}
	return false
}
