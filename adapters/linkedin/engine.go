package linkedin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"outreachd/engine"
)

// ForEngine presents a Simulator to the outreach engine as engine.LinkedIn and engine.Operator
// (the `admin simulate ...` commands), in the engine's own types. It is the one copy of this
// glue: `serve`, the admin CLI and the engine's tests all use it.
type ForEngine struct{ Sim *Simulator }

var (
	_ engine.LinkedIn = ForEngine{}
	_ engine.Operator = ForEngine{}
)

// engineErr maps this package's errors onto the engine's, keeping the original text.
func engineErr(err error) error {
	pairs := []struct{ from, to error }{
		{ErrRateLimited, engine.ErrRateLimited},
		{ErrAccountDisconnected, engine.ErrAccountDown},
		{ErrNotConnected, engine.ErrNotConnected},
		{ErrUnknownProfile, engine.ErrNotConnected},
		{ErrAlreadyInvited, engine.ErrAlreadyInvited},
		{ErrNoPendingInvite, engine.ErrNoPendingInvite},
		{ErrUnknownChat, engine.ErrUnknownChat},
		{ErrUnknownAccount, engine.ErrUnknownAccount},
	}
	for _, p := range pairs {
		if errors.Is(err, p.from) {
			return fmt.Errorf("%w: %w", p.to, err)
		}
	}
	return err
}

func toRef(p engine.ProfileRef) ProfileRef {
	return ProfileRef{ProfileKey: p.ProfileKey, ProviderID: p.ProviderID, PublicIdentifier: p.PublicIdentifier, Name: p.Name}
}

func (l ForEngine) Accounts(ctx context.Context) ([]engine.ProviderAccount, error) {
	accs, err := l.Sim.Accounts(ctx)
	out := make([]engine.ProviderAccount, len(accs))
	for i, a := range accs {
		out[i] = engine.ProviderAccount{ID: a.ID, OrgID: a.OrgID, Name: a.Name}
	}
	return out, engineErr(err)
}

func (l ForEngine) ConnectAccount(ctx context.Context, orgID, name string) (engine.ProviderAccount, error) {
	a, err := l.Sim.ConnectAccount(ctx, orgID, name)
	return engine.ProviderAccount{ID: a.ID, OrgID: a.OrgID, Name: a.Name}, engineErr(err)
}

func (l ForEngine) SendInvite(ctx context.Context, accountID string, p engine.ProfileRef, note string) error {
	_, err := l.Sim.SendInvite(ctx, accountID, toRef(p), note)
	return engineErr(err)
}

func (l ForEngine) WithdrawInvite(ctx context.Context, accountID string, p engine.ProfileRef) error {
	return engineErr(l.Sim.WithdrawInvite(ctx, accountID, toRef(p)))
}

func (l ForEngine) SendMessage(ctx context.Context, accountID, chatOrProfile, text string) (string, string, error) {
	c, m, err := l.Sim.SendMessage(ctx, accountID, chatOrProfile, text)
	return c, m, engineErr(err)
}

func (l ForEngine) Messages(ctx context.Context, chatID string) ([]engine.ProviderMessage, error) {
	msgs, err := l.Sim.Messages(ctx, chatID)
	out := make([]engine.ProviderMessage, len(msgs))
	for i, m := range msgs {
		out[i] = engine.ProviderMessage{ID: m.ID, ChatID: m.ChatID, Text: m.Text, At: m.At, FromMe: m.FromMe}
	}
	return out, engineErr(err)
}

func (l ForEngine) Poll(ctx context.Context, after int64, limit int) ([]engine.Report, error) {
	reps, err := l.Sim.Poll(ctx, after, limit)
	out := make([]engine.Report, len(reps))
	for i, r := range reps {
		out[i] = engine.Report{Seq: r.Seq, Kind: string(r.Kind), AccountID: r.AccountID, ProfileKey: r.ProfileKey,
			ProviderID: r.ProviderID, AttendeeName: r.AttendeeName, ChatID: r.ChatID, MessageID: r.MessageID,
			Text: r.Text, CooldownHours: r.CooldownHours, At: r.At}
	}
	return out, engineErr(err)
}

func (l ForEngine) InjectAccept(profileKey string) error {
	return engineErr(l.Sim.InjectAccept(profileKey))
}

func (l ForEngine) InjectReply(profileKey, text string) (string, error) {
	c, err := l.Sim.InjectReply(profileKey, text)
	return c, engineErr(err)
}

func (l ForEngine) InjectDisconnect(accountID string) error {
	return engineErr(l.Sim.InjectDisconnect(accountID))
}

func (l ForEngine) InjectReconnect(accountID string) error {
	return engineErr(l.Sim.InjectReconnect(accountID))
}

func (l ForEngine) InjectRateLimit(accountID string, cooldown time.Duration) error {
	return engineErr(l.Sim.InjectRateLimit(accountID, cooldown))
}

func (l ForEngine) InjectSalesNav(accountID string, lapsed bool) error {
	return engineErr(l.Sim.InjectSalesNav(accountID, lapsed))
}
