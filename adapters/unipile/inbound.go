package unipile

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"outreachd/outreach"
)

// AuthHeader is the header every webhook Unipile sends carries, with the shared secret outreachd
// registered it with.
const AuthHeader = "Unipile-Auth"

// DefaultMaxWebhookBytes is the largest webhook body accepted (a bigger one answers 413).
const DefaultMaxWebhookBytes = 256 << 10

// Inbox is where the webhooks are kept (the engine's ProviderInbox implements it).
type Inbox interface {
	// RecordWebhook stores a webhook and its reports in one transaction; false when the same
	// webhook (same dedupe key) was stored before.
	RecordWebhook(ctx context.Context, w outreach.InboundWebhook) (bool, error)
	// RememberMembers keeps which member id has which public handle.
	RememberMembers(ctx context.Context, members []outreach.MemberHandle) error
	// LastWebhookID is the id of the latest webhook stored whose dedupe key starts with prefix
	// and not with except; 0 when there is none.
	LastWebhookID(ctx context.Context, prefix, except string) (int64, error)
}

// Responder answers a request the way the service's API does, so that its one mapping of
// errors to statuses applies here too.
type Responder struct {
	JSON func(w http.ResponseWriter, status int, v any)
	Fail func(w http.ResponseWriter, r *http.Request, err error)
}

// InboundConfig configures the webhook receiver.
type InboundConfig struct {
	// Secret is the Unipile-Auth value every webhook must carry (required).
	Secret string
	// MaxBytes bounds a body [DefaultMaxWebhookBytes].
	MaxBytes int64
	Logger   *slog.Logger
	Now      func() time.Time
}

func (c *InboundConfig) setDefaults() {
	c.MaxBytes = cmp.Or(c.MaxBytes, DefaultMaxWebhookBytes)
	c.Logger = cmp.Or(c.Logger, slog.New(slog.DiscardHandler))
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Validate reports a configuration NewInbound would refuse.
func (c InboundConfig) Validate() error {
	if len(c.Secret) < 16 {
		return errors.New("unipile: the webhook secret must be at least 16 characters")
	}
	if c.MaxBytes < 0 {
		return errors.New("unipile: the webhook size limit must not be negative")
	}
	return nil
}

// Inbound receives Unipile's webhooks at POST /api/providers/unipile/webhook.
type Inbound struct {
	p      *Provider
	inbox  Inbox
	cfg    InboundConfig
	secret [32]byte
}

// NewInbound builds the receiver; p tells the seat's own messages from the other member's.
func NewInbound(p *Provider, inbox Inbox, cfg InboundConfig) (*Inbound, error) {
	if p == nil || inbox == nil {
		return nil, errors.New("unipile: the webhook receiver needs the provider and an inbox")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	return &Inbound{p: p, inbox: inbox, cfg: cfg, secret: sha256.Sum256([]byte(cfg.Secret))}, nil
}

// WebhookHandler is the receiver: a webhook without the right Unipile-Auth header is 401 and
// leaves nothing behind; a body over MaxBytes is 413, one that is not a JSON object (or a known
// event lacking its ids) 400. Otherwise the body and the reports it makes are stored in one
// transaction before the 200, once however often the webhook comes (a duplicate is answered
// 200 too, so Unipile stops retrying it). A kind outreachd does not know is stored and
// ignored. Unipile sends no JSON Content-Type unless told to; none is required.
func (in *Inbound) WebhookHandler(rs Responder) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !in.authentic(r) {
			rs.Fail(w, r, fmt.Errorf("%w: the %s header is missing or wrong", outreach.ErrUnauthenticated, AuthHeader))
			return
		}
		raw, ev, err := readEvent(r, in.cfg.MaxBytes)
		if err != nil {
			rs.Fail(w, r, err)
			return
		}
		hook, err := in.understand(r.Context(), ev, raw)
		if err != nil {
			rs.Fail(w, r, err)
			return
		}
		stored, err := in.inbox.RecordWebhook(r.Context(), hook)
		if err != nil {
			rs.Fail(w, r, err)
			return
		}
		switch {
		case !stored:
			in.cfg.Logger.Debug("unipile: webhook delivered again, already stored", "kind", hook.Kind)
		case ev.Kind == EventUnknown || ev.Kind == EventAccountCallback:
			in.cfg.Logger.Info("unipile: webhook of a kind outreachd does not act on, stored and ignored", "event", ev.Name)
		}
		rs.JSON(w, http.StatusOK, map[string]any{"ok": true, "duplicate": !stored})
	})
}

// authentic compares the Unipile-Auth header with the secret in constant time (over their
// hashes, so that not even the length leaks).
func (in *Inbound) authentic(r *http.Request) bool {
	got := r.Header.Values(AuthHeader)
	if len(got) != 1 {
		return false
	}
	sum := sha256.Sum256([]byte(got[0]))
	return subtle.ConstantTimeCompare(sum[:], in.secret[:]) == 1
}

// readEvent reads a body of at most max bytes and parses it.
func readEvent(r *http.Request, max int64) ([]byte, Event, error) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig) || int64(len(raw)) > max:
		return nil, Event{}, fmt.Errorf("%w: a webhook body is at most %d bytes", outreach.ErrTooLarge, max)
	case err != nil:
		return nil, Event{}, outreach.Invalidf("the webhook body could not be read")
	}
	ev, err := ParseWebhook(bytes.NewReader(raw), max)
	if err != nil {
		return nil, Event{}, outreach.Invalidf("the webhook body is not one JSON object of a readable shape")
	}
	return raw, ev, nil
}

// understand turns a parsed webhook into what is stored: its dedupe key and its reports.
func (in *Inbound) understand(ctx context.Context, ev Event, raw []byte) (outreach.InboundWebhook, error) {
	now := in.cfg.Now()
	hook := outreach.InboundWebhook{Provider: "unipile", Kind: string(ev.Kind), Body: raw, ReceivedAt: now}
	switch ev.Kind {
	case EventMessageReceived:
		m := ev.Message
		hook.DedupeKey = "message:" + m.AccountID + ":" + m.MessageID
		owner, err := in.p.owner(ctx, m.AccountID)
		switch {
		case errors.Is(err, outreach.ErrUnknownAccount):
			return hook, nil // an account Unipile does not hold is no seat: kept, nothing to report
		case err != nil:
			return hook, err
		}
		msg := messageOf(*m, owner, now)
		if rep, ok := messageReport(msg); ok {
			hook.Reports = append(hook.Reports, rep)
		}
		in.p.learn(ctx, msg.Member, msg.ProfileURL)
	case EventNewRelation:
		rel := ev.Relation
		handle := rel.UserPublicIdentifier
		if handle == "" {
			handle = rel.UserProfileURL
		}
		hook.DedupeKey = "relation:" + rel.AccountID + ":" + rel.UserProviderID
		hook.Reports = append(hook.Reports, acceptReport(rel.AccountID, rel.UserProviderID, handle, rel.UserFullName, now))
		in.p.learn(ctx, rel.UserProviderID, handle)
	case EventAccountStatus:
		occurrence, err := in.statusOccurrence(ctx, ev.Status.AccountID, ev.Status.Message, now)
		if err != nil {
			return hook, err
		}
		hook.DedupeKey = statusKey(ev.Status.AccountID, ev.Status.Message, occurrence)
		if rep, ok := statusReport(ev.Status.AccountID, ev.Status.Message, now, hook.DedupeKey); ok {
			hook.Reports = append(hook.Reports, rep)
		}
	default:
		hook.DedupeKey = bodyKey(string(ev.Kind), raw)
	}
	return hook, nil
}

// statusOccurrence names which occurrence of an account status a webhook is, for its dedupe
// key. Unipile's account status carries no id or time of its own: the same status within
// statusBucketSize, with no other news of the account received in between, is the same
// webhook delivered again; after other news (a seat that drops, comes back and drops again
// within minutes), it is news again. Statuses telling the same news (RECONNECTED, then OK)
// arrive in any order and do not separate each other's occurrences.
func (in *Inbound) statusOccurrence(ctx context.Context, accountID, status string, now time.Time) (string, error) {
	after, err := in.inbox.LastWebhookID(ctx, "status:"+accountID+":", statusNewsKey(accountID, status))
	if err != nil {
		return "", fmt.Errorf("the account's last status: %w", err)
	}
	return statusBucket(now) + ":after-" + strconv.FormatInt(after, 10), nil
}

// messageOf is a message_received webhook as a message; owner is the seat owner's member id.
func messageOf(m MessageEvent, owner string, now time.Time) message {
	at, ok := m.At()
	if !ok {
		at = now
	}
	msg := message{AccountID: m.AccountID, ChatID: m.ChatID, MessageID: m.MessageID, Text: m.Text, At: at,
		FromSeat: m.FromSeat(owner), Member: m.Sender.ProviderID, Name: m.Sender.Name, ProfileURL: m.Sender.ProfileURL}
	if msg.FromSeat {
		msg.Member, msg.Name, msg.ProfileURL = "", "", ""
		for _, a := range m.Attendees {
			if a.ProviderID != owner {
				msg.Member, msg.Name, msg.ProfileURL = a.ProviderID, a.Name, a.ProfileURL
				break
			}
		}
	}
	return msg
}
