package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"outreachd/outreach"
	"outreachd/storage"
)

// OperatorReport is one `admin simulate ...` command: LinkedIn, as the operator tells it.
type OperatorReport struct {
	Kind       outreach.LinkedInReportKind
	ProspectID string // invite_accepted, message_received
	AccountID  string // our seat id, for the account kinds
	Text       string // message_received
	Cooldown   time.Duration
}

// maxOperatorText bounds an injected message like a LinkedIn message.
const maxOperatorText = 8000

// Simulate files an operator report and returns its result once it has been handled: by a
// serving engine when one is alive (within wait), else right here through the same handler.
func (e *Engine) Simulate(ctx context.Context, in OperatorReport, wait time.Duration) (map[string]any, error) {
	at := e.clock.Now()
	if t, ok, err := ServingClock(ctx, e.db); err == nil && ok {
		at = t
	}
	row := reportRow{Kind: in.Kind, At: at}
	switch in.Kind {
	case outreach.ReportInviteAccepted, outreach.ReportMessageReceived:
		if err := e.prospectReport(ctx, in, &row); err != nil {
			return nil, err
		}
	case outreach.ReportAccountDisconnected, outreach.ReportAccountReconnected, outreach.ReportAccountRateLimited,
		outreach.ReportSalesNavUnavailable, outreach.ReportSalesNavRestored:
		acc, err := getSeat(ctx, e.db, in.AccountID)
		if err != nil {
			return nil, err
		}
		row.OrgID, row.AccountID, row.ProviderAccountID = acc.OrgID, acc.ID, acc.ProviderAccountID
		if in.Kind == outreach.ReportAccountRateLimited {
			if in.Cooldown < 0 {
				return nil, outreach.Invalidf("--cooldown must be positive")
			}
			if in.Cooldown == 0 {
				in.Cooldown = 24 * time.Hour
			}
			row.CooldownHours = int((in.Cooldown + time.Hour - 1) / time.Hour)
		}
	default:
		return nil, outreach.Invalidf("unknown report kind %q", in.Kind)
	}
	id, err := insertOperatorReport(ctx, e.db, row)
	if err != nil {
		return nil, err
	}
	if err := e.awaitServingEngine(ctx, id, wait); err != nil {
		return nil, err
	}
	if _, err := e.handle(ctx, id); err != nil {
		return nil, err
	}
	r, err := getReport(ctx, e.db, id)
	if err != nil {
		return nil, err
	}
	switch r.State {
	case reportFailed:
		return nil, fmt.Errorf("report not applied: %s", r.Error)
	case reportNew:
		return nil, errors.New("report is still being handled by another process; look again shortly")
	}
	if r.Result == nil {
		r.Result = map[string]any{}
	}
	return r.Result, nil
}

// prospectReport fills an invite_accepted or message_received row for in.ProspectID: its
// organization, the seat that works the prospect, and the checked message text.
func (e *Engine) prospectReport(ctx context.Context, in OperatorReport, row *reportRow) error {
	if in.Kind == outreach.ReportMessageReceived {
		text := strings.TrimSpace(in.Text)
		if text == "" {
			return outreach.Invalidf("--text is required and must not be blank")
		}
		if utf8.RuneCountInString(in.Text) > maxOperatorText || !utf8.ValidString(in.Text) {
			return outreach.Invalidf("--text must be valid UTF-8 of at most %d characters", maxOperatorText)
		}
		row.Text = in.Text
	}
	p, err := getEngineProspect(ctx, e.db, in.ProspectID)
	if err != nil {
		return err
	}
	var acc storage.LinkedInAccount
	err = e.store.InTx(ctx, func(tx *storage.Tx) error {
		c, err := getEngineCampaign(ctx, tx, p.CampaignID)
		if err != nil {
			return err
		}
		acc, err = pickSendingSeat(ctx, tx, p.OrgID, p.AccountID, c.AccountIDs)
		return err
	})
	if errors.Is(err, outreach.ErrNotFound) {
		return ErrNoAccount
	}
	if err != nil {
		return err
	}
	row.OrgID, row.AccountID, row.ProviderAccountID = p.OrgID, acc.ID, acc.ProviderAccountID
	row.ProspectID, row.ProfileKey, row.AttendeeName = p.ID, p.LeadKey, p.Name
	return nil
}

// awaitServingEngine gives a serving engine, when one is alive, up to wait to handle report id.
func (e *Engine) awaitServingEngine(ctx context.Context, id int64, wait time.Duration) error {
	alive, err := servingAlive(ctx, e.db, 3*time.Second)
	if err != nil || !alive {
		return nil
	}
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		r, err := getReport(ctx, e.db, id)
		if err != nil {
			return err
		}
		if r.State != reportNew {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// forward re-enacts an operator row on the simulator in the serving process, then polls and
// handles what the simulator reported, and finally applies the row itself where that is
// harmless (every kind but a message is idempotent), so the command's effects are in the
// database when the row stops being new. A message the simulator cannot re-enact is applied
// from the row. It returns false when another process had the row.
func (e *Engine) forward(ctx context.Context, id int64) (bool, error) {
	r, err := getReport(ctx, e.db, id)
	if err != nil || r.State != reportNew {
		return false, err
	}
	var plan replyPlan
	claimedAny := false
	err = e.store.InTx(ctx, func(tx *storage.Tx) error {
		claimed, ok, err := claimReport(ctx, tx, id)
		if err != nil || !ok {
			return err
		}
		claimedAny = true
		res, injected := e.reenact(ctx, claimed)
		if injected {
			if err := e.pumpReports(ctx); err != nil {
				return err
			}
			if _, err := e.handleNew(ctx); err != nil {
				return err
			}
			if claimed.Kind == outreach.ReportMessageReceived {
				return finishReport(ctx, tx, id, reportForwarded, res, "", e.clock.Now())
			}
		}
		if err := e.resolveOperator(ctx, &claimed); err != nil {
			return finishReport(ctx, tx, id, reportFailed, nil, err.Error(), e.clock.Now())
		}
		if claimed.Kind == outreach.ReportMessageReceived {
			if acc, err := e.accountOf(ctx, claimed); err == nil {
				plan = e.planReply(ctx, claimed, acc)
			}
		}
		got, err := e.applyInSavepoint(ctx, tx, claimed, plan)
		if err != nil {
			if !permanent(err) {
				return err
			}
			return finishReport(ctx, tx, id, reportFailed, nil, err.Error(), e.clock.Now())
		}
		for k, v := range got {
			if _, set := res[k]; !set {
				res[k] = v
			}
		}
		return finishReport(ctx, tx, id, reportHandled, res, "", e.clock.Now())
	})
	return claimedAny, err
}

// reenact plays an operator row on the simulator; injected reports whether the simulator took
// it (and so reported it itself).
func (e *Engine) reenact(ctx context.Context, r reportRow) (map[string]any, bool) {
	res := map[string]any{}
	ref := outreach.ProfileRef{ProfileKey: r.ProfileKey, Name: r.AttendeeName}
	var err error
	switch r.Kind {
	case outreach.ReportInviteAccepted:
		if err = e.op.InjectAccept(r.ProfileKey); err != nil {
			err = e.resyncConnection(ctx, r.ProviderAccountID, ref)
		}
	case outreach.ReportMessageReceived:
		var chat string
		chat, err = e.op.InjectReply(r.ProfileKey, r.Text)
		if err != nil && e.resyncConnection(ctx, r.ProviderAccountID, ref) == nil {
			chat, err = e.op.InjectReply(r.ProfileKey, r.Text)
		}
		res["chat_id"] = chat
	case outreach.ReportAccountDisconnected:
		err = e.op.InjectDisconnect(r.ProviderAccountID)
	case outreach.ReportAccountReconnected:
		err = e.op.InjectReconnect(r.ProviderAccountID)
	case outreach.ReportAccountRateLimited:
		err = e.op.InjectRateLimit(r.ProviderAccountID, time.Duration(r.CooldownHours)*time.Hour)
	case outreach.ReportSalesNavUnavailable, outreach.ReportSalesNavRestored:
		err = e.op.InjectSalesNav(r.ProviderAccountID, r.Kind == outreach.ReportSalesNavUnavailable)
	}
	if err != nil {
		e.log.Info("engine: simulator could not re-enact an operator report; applying it directly", "report", r.ID, "err", err)
		return map[string]any{}, false
	}
	return res, true
}
