package unipile

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"outreachd/outreach"
)

// Seats connects LinkedIn accounts as seats of an organization: an account Unipile already
// holds, by its id; or a new one, through a hosted sign-in link whose call-back is accepted
// only for a live link outreachd made.
//
// A link's name carries a random token (32 bytes) that Unipile gives back in its call-back;
// outreachd keeps only the token's SHA-256 with the organization, the seat's name and the
// expiry. A call-back is accepted once, before the expiry, and only for an account Unipile
// confirms (GET /accounts/{id}); anything else is refused and changes nothing.
type Seats struct {
	c     *Client
	store SeatStore
	cfg   SeatsConfig
}

// SeatStore keeps the sign-in links (the engine's ProviderInbox implements it).
type SeatStore interface {
	SaveSeatLink(ctx context.Context, tokenHash []byte, l outreach.SeatLink) error
	// LiveSeatLink reads a link neither used nor expired at now; outreach.ErrNotFound otherwise.
	LiveSeatLink(ctx context.Context, tokenHash []byte, now time.Time) (outreach.SeatLink, error)
	// JoinSeat uses a live link and connects the account as its seat in one transaction,
	// returning the seat's id; outreach.ErrNotFound when the link is no longer live.
	JoinSeat(ctx context.Context, tokenHash []byte, providerAccountID string, now time.Time) (string, error)
}

// SeatsConfig configures seat connection.
type SeatsConfig struct {
	// PublicURL is the service's origin as Unipile reaches it; the call-back goes to
	// PublicURL/api/providers/unipile/accounts (required).
	PublicURL string
	// LinkTTL is how long a sign-in link works [1h].
	LinkTTL time.Duration
	Logger  *slog.Logger
	Now     func() time.Time
}

// CallbackPath and WebhookPath are where Unipile calls outreachd.
const (
	CallbackPath = "/api/providers/unipile/accounts"
	WebhookPath  = "/api/providers/unipile/webhook"
)

// linkPrefix marks the names of the links outreachd makes.
const linkPrefix = "outreachd:"

func (c *SeatsConfig) setDefaults() {
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	c.LinkTTL = cmp.Or(c.LinkTTL, time.Hour)
	c.Logger = cmp.Or(c.Logger, slog.New(slog.DiscardHandler))
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Validate reports a configuration NewSeats would refuse.
func (c SeatsConfig) Validate() error {
	u, err := url.Parse(c.PublicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("unipile: the public URL %q must be an http(s) origin Unipile can reach", c.PublicURL)
	}
	if c.LinkTTL < 0 {
		return errors.New("unipile: the sign-in link lifetime must not be negative")
	}
	return nil
}

// NewSeats builds seat connection over the client and the service's store.
func NewSeats(c *Client, store SeatStore, cfg SeatsConfig) (*Seats, error) {
	if c == nil || store == nil {
		return nil, errors.New("unipile: seat connection needs a client and a store")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	return &Seats{c: c, store: store, cfg: cfg}, nil
}

// ConnectLink makes a hosted sign-in link through which a person connects their LinkedIn
// account as the seat name of orgID; the link works once, until ExpiresAt. The application's
// LinkedIn accounts page and `admin account connect` both call it.
func (s *Seats) ConnectLink(ctx context.Context, orgID, name string) (outreach.ConnectLink, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return outreach.ConnectLink{}, fmt.Errorf("sign-in link token: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	// Whole seconds: Unipile's expiry has milliseconds, the database microseconds.
	expires := s.cfg.Now().Add(s.cfg.LinkTTL).UTC().Truncate(time.Second)
	if err := s.store.SaveSeatLink(ctx, tokenHash(token), outreach.SeatLink{OrgID: orgID, Name: name, ExpiresAt: expires}); err != nil {
		return outreach.ConnectLink{}, err
	}
	u, err := s.c.CreateHostedAuthLink(ctx, HostedAuthLink{Type: "create", Providers: []string{"LINKEDIN"},
		ExpiresOn: expires, NotifyURL: s.cfg.PublicURL + CallbackPath, Name: linkPrefix + token})
	if err != nil {
		return outreach.ConnectLink{}, providerError("create a sign-in link", err)
	}
	return outreach.ConnectLink{URL: u, ExpiresAt: expires}, nil
}

// CheckAccount confirms Unipile holds a LinkedIn account with this id (GET /accounts/{id}):
// what binding an existing account as a seat requires. An unknown one is ErrUnknownAccount.
func (s *Seats) CheckAccount(ctx context.Context, accountID string) error {
	a, err := s.c.GetAccount(ctx, accountID)
	switch {
	case ClassOf(err) == ClassNotFound:
		return fmt.Errorf("unipile account %q: %w", accountID, outreach.ErrUnknownAccount)
	case err != nil:
		return providerError("read account "+accountID, err)
	case a.Type != "" && a.Type != "LINKEDIN":
		return fmt.Errorf("unipile account %q is a %s account, not LinkedIn: %w", accountID, a.Type, outreach.ErrUnknownAccount)
	}
	return nil
}

// providerError is a failure of Unipile's, worded for the operator.
func providerError(what string, err error) error {
	if ClassOf(err) == ClassTransient || ClassOf(err) == ClassBadAPIKey || ClassOf(err) == ClassRateLimited {
		return fmt.Errorf("unipile: %s: %w: %w", what, outreach.ErrProviderUnavailable, err)
	}
	return fmt.Errorf("unipile: %s: %w", what, err)
}

func tokenHash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// CallbackHandler receives the call Unipile makes when a person completed a sign-in link
// (POST /api/providers/unipile/accounts): for a live link outreachd made, and an account
// Unipile confirms, the account joins the link's organization as its seat (200 with the
// seat's id). A call-back for any other link, an expired one or one used already is 401 and
// changes nothing.
func (s *Seats) CallbackHandler(rs Responder) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, ev, err := readEvent(r, 16<<10)
		if err != nil {
			rs.Fail(w, r, err)
			return
		}
		if ev.Kind != EventAccountCallback {
			rs.Fail(w, r, outreach.Invalidf("the body is not a sign-in call-back {status, account_id, name}"))
			return
		}
		seat, err := s.accept(r.Context(), *ev.Callback)
		if err != nil {
			if errors.Is(err, outreach.ErrUnauthenticated) {
				s.cfg.Logger.Info("unipile: sign-in call-back refused", "account", ev.Callback.AccountID, "why", err.Error())
			}
			rs.Fail(w, r, err)
			return
		}
		s.cfg.Logger.Info("unipile: seat connected through a sign-in link", "seat", seat, "account", ev.Callback.AccountID)
		rs.JSON(w, http.StatusOK, map[string]any{"account_id": seat})
	})
}

// accept checks a call-back against its link and Unipile, then joins the seat.
func (s *Seats) accept(ctx context.Context, cb AccountCallback) (string, error) {
	if cb.Status != "CREATION_SUCCESS" && cb.Status != "RECONNECTED" {
		return "", outreach.Invalidf("the call-back reports %q, not a connected account", cb.Status)
	}
	token, ok := strings.CutPrefix(cb.Name, linkPrefix)
	if !ok || token == "" {
		return "", fmt.Errorf("%w: the call-back is for no sign-in link outreachd made", outreach.ErrUnauthenticated)
	}
	hash := tokenHash(token)
	now := s.cfg.Now()
	if _, err := s.store.LiveSeatLink(ctx, hash, now); err != nil {
		return "", refused(err)
	}
	if err := s.CheckAccount(ctx, cb.AccountID); err != nil {
		if errors.Is(err, outreach.ErrUnknownAccount) {
			return "", fmt.Errorf("%w: Unipile does not confirm account %q", outreach.ErrUnauthenticated, cb.AccountID)
		}
		return "", err
	}
	seat, err := s.store.JoinSeat(ctx, hash, cb.AccountID, now)
	return seat, refused(err)
}

// refused turns "no live link" into an authentication failure.
func refused(err error) error {
	if errors.Is(err, outreach.ErrNotFound) {
		return fmt.Errorf("%w: no live sign-in link matches the call-back (unknown, expired or used)", outreach.ErrUnauthenticated)
	}
	return err
}
