package unipile

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"outreachd/outreach"
)

// Provider is LinkedIn through Unipile in the words of the service's LinkedIn port (package
// outreach): it implements the engine's LinkedIn port and the API's inbox reader as they are.
// Every failure comes back as one of the port's errors (errors.go of the port; portError here
// says which). What Unipile tells on its own (a reply, an accepted invitation, a seat's status)
// does not come through Poll: webhooks (Inbound) and the periodic reconciliation (Sync) put it
// straight into the engine's report table, which every instance reads.
type Provider struct {
	c     *Client
	store ProviderStore
	cfg   ProviderConfig
	// owners caches each account's owner member id (it never changes): what tells the seat's
	// own messages from the other member's.
	owners sync.Map
	// cooldowns remembers, per account, until when Unipile refused its invitations.
	mu        sync.Mutex
	cooldowns map[string]time.Time
}

// ProviderStore is what the provider keeps in the service's database (the engine's
// ProviderInbox implements it).
type ProviderStore interface {
	// RecordReports appends reports the provider found itself (a seat that must cool down or
	// stopped working), each once by its dedupe key.
	RecordReports(ctx context.Context, reports []outreach.LinkedInReport) (int, error)
	// RememberMembers keeps which member id has which public handle.
	RememberMembers(ctx context.Context, members []outreach.MemberHandle) error
	// MemberID is the member id known for a folded public handle.
	MemberID(ctx context.Context, publicIdentifier string) (string, bool, error)
}

// ProviderConfig tunes the provider. Zero values take the defaults in brackets.
type ProviderConfig struct {
	// InviteCooldown is how long a seat rests when LinkedIn refuses its invitations
	// (cannot_resend_yet, limit_exceeded) without saying until when [24h]: LinkedIn's
	// invitation limits are counted per day and per week.
	InviteCooldown time.Duration
	// ThrottleCooldown is how long a seat rests after a 429 without Retry-After [1h].
	ThrottleCooldown time.Duration
	// MaxPages bounds every list the provider walks page by page [20].
	MaxPages int
	// InboxDetails is how many chats of one inbox read get their last message and, for a chat
	// without a name, the other member's name (one call each) [100].
	InboxDetails int
	// Logger receives a warning when a report the provider found cannot be stored.
	Logger *slog.Logger
	// Now is the clock of cool-downs and reports [time.Now].
	Now func() time.Time
}

func (c *ProviderConfig) setDefaults() {
	c.InviteCooldown = cmp.Or(c.InviteCooldown, 24*time.Hour)
	c.ThrottleCooldown = cmp.Or(c.ThrottleCooldown, time.Hour)
	c.MaxPages = cmp.Or(c.MaxPages, 20)
	c.InboxDetails = cmp.Or(c.InboxDetails, 100)
	c.Logger = cmp.Or(c.Logger, slog.New(slog.DiscardHandler))
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Validate reports a configuration NewProvider would refuse.
func (c ProviderConfig) Validate() error {
	if c.InviteCooldown < 0 || c.ThrottleCooldown < 0 || c.MaxPages < 0 || c.InboxDetails < 0 {
		return errors.New("unipile: provider durations and bounds must not be negative")
	}
	return nil
}

// NewProvider builds the provider over a client and the service's store.
func NewProvider(c *Client, store ProviderStore, cfg ProviderConfig) (*Provider, error) {
	if c == nil || store == nil {
		return nil, errors.New("unipile: a provider needs a client and a store")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	return &Provider{c: c, store: store, cfg: cfg, cooldowns: map[string]time.Time{}}, nil
}

// Client is the Unipile client the provider calls through.
func (p *Provider) Client() *Client { return p.c }

// Accounts lists the LinkedIn accounts Unipile holds, with their status.
func (p *Provider) Accounts(ctx context.Context) ([]outreach.ProviderAccount, error) {
	accs, err := Collect(ctx, p.cfg.MaxPages, func(ctx context.Context, cursor string) (Page[Account], error) {
		return p.c.ListAccounts(ctx, ListOptions{Limit: 100, Cursor: cursor})
	})
	if err != nil {
		return nil, p.portError(ctx, "", opRead, err)
	}
	out := make([]outreach.ProviderAccount, 0, len(accs))
	for _, a := range accs {
		if a.Type != "" && a.Type != "LINKEDIN" {
			continue
		}
		out = append(out, outreach.ProviderAccount{ID: a.ID, Name: a.Name, Status: p.status(a),
			SalesNav: a.SalesNavigator(), ConnectedAt: a.CreatedAt.Time})
	}
	return out, nil
}

// ConnectAccount cannot make a Unipile account from a name: a person signs in through a hosted
// link, or an existing account is bound by its id (`admin account connect`). It answers
// ErrUnknownAccount for a seat whose Unipile account is gone.
func (p *Provider) ConnectAccount(ctx context.Context, orgID, name string) (outreach.ProviderAccount, error) {
	return outreach.ProviderAccount{}, fmt.Errorf("seat %q of %s: %w: Unipile does not list its account; connect it again with admin account connect",
		name, orgID, outreach.ErrUnknownAccount)
}

// AccountHealth is a seat's status as Unipile reports it (its sources' worst status), a
// cool-down this process saw, Sales Navigator, and its pending invitations. Unipile keeps no
// tally of the invitations and messages a seat sent: those counts are the engine's own (its
// per-seat limits) and stay zero here.
func (p *Provider) AccountHealth(ctx context.Context, accountID string) (outreach.AccountHealth, error) {
	a, err := p.c.GetAccount(ctx, accountID)
	if err != nil {
		return outreach.AccountHealth{}, p.portError(ctx, accountID, opAccount, err)
	}
	h := outreach.AccountHealth{AccountID: a.ID, Status: p.status(a), SalesNav: a.SalesNavigator(), CheckedAt: p.cfg.Now()}
	if h.Status == outreach.AccountRateLimited {
		h.RateLimitedUntil = p.cooldown(accountID)
	}
	if h.Status == outreach.AccountDisconnected {
		return h, nil
	}
	n := 0
	for _, err := range p.sentInvitations(ctx, accountID) {
		if err != nil {
			return outreach.AccountHealth{}, p.portError(ctx, accountID, opRead, err)
		}
		n++
	}
	h.PendingInvites = n
	return h, nil
}

// status maps an account's sources onto the port: OK (or still connecting) can act, unless
// this process saw Unipile refuse its invitations until later; anything else is disconnected.
func (p *Provider) status(a Account) outreach.AccountStatus {
	switch a.Status() {
	case SourceOK, SourceConnecting:
		if p.cooldown(a.ID).After(p.cfg.Now()) {
			return outreach.AccountRateLimited
		}
		return outreach.AccountOK
	}
	return outreach.AccountDisconnected
}

func (p *Provider) cooldown(accountID string) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cooldowns[accountID]
}

// owner is the member id of the account's owner, read once per account.
func (p *Provider) owner(ctx context.Context, accountID string) (string, error) {
	if v, ok := p.owners.Load(accountID); ok {
		return v.(string), nil
	}
	a, err := p.c.GetAccount(ctx, accountID)
	if err != nil {
		return "", p.portError(ctx, accountID, opAccount, err)
	}
	if a.OwnerID() == "" {
		return "", fmt.Errorf("unipile account %s: %w: it names no owner member id", accountID, outreach.ErrProviderUnavailable)
	}
	p.owners.Store(accountID, a.OwnerID())
	return a.OwnerID(), nil
}

// Poll returns no reports: Unipile's news reaches the engine's report table through the
// webhooks (Inbound) and the reconciliation (Sync), never through a sequence to poll.
func (p *Provider) Poll(ctx context.Context, after int64, limit int) ([]outreach.LinkedInReport, error) {
	return nil, ctx.Err()
}
