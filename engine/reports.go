package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"outreachd/internal/telemetry"
	"outreachd/outreach"
	"outreachd/storage"
)

// Reports: every fact LinkedIn reports reaches the engine through the provider_reports table
// and is handled by applyReport, whatever its source:
//
//   - the serving engine polls its provider (Provider.Poll) and appends the reports
//     (pumpReports, unique per provider instance and sequence number);
//   - `admin simulate ...` appends an operator row. When the serving process runs a simulator,
//     it re-enacts the row on the simulator (Operator.Inject*), whose own report then comes
//     through the poll like any other, so the simulator's state and the database agree; when
//     no engine is serving, or the simulator cannot re-enact it (its memory was lost with a
//     restart), the row itself is handled by applyReport.
//
// A report is claimed with FOR UPDATE SKIP LOCKED and marked handled in the transaction that
// applies it, so it is applied exactly once however many processes look at it.

const reportBatch = 200

// ProcessReports forwards operator rows to a simulator, polls the provider, and handles every
// new report. It returns how many reports it handled or forwarded.
func (e *Engine) ProcessReports(ctx context.Context) (int, error) {
	n := 0
	if e.op != nil {
		ids, err := newReportIDs(ctx, e.db, reportFromOperator, reportBatch, e.cfg.SeatMessageGrace)
		if err != nil {
			return n, err
		}
		for _, id := range ids {
			ok, err := e.forward(ctx, id)
			if err != nil {
				return n, err
			}
			if ok {
				n++
			}
		}
	}
	if err := e.pumpReports(ctx); err != nil {
		return n, err
	}
	m, err := e.handleNew(ctx)
	return n + m, err
}

// pumpReports appends the provider's new reports to the inbox.
func (e *Engine) pumpReports(ctx context.Context) error {
	if e.li == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.polled {
		c, err := providerCursor(ctx, e.db, e.cfg.ProviderName)
		if err != nil {
			return err
		}
		e.cursor, e.polled = c, true
	}
	for {
		reps, err := e.li.Poll(ctx, e.cursor, reportBatch)
		if err != nil || len(reps) == 0 {
			return err
		}
		rows := make([]reportRow, len(reps))
		for i, r := range reps {
			rows[i] = reportRow{ProviderSeq: r.Seq, Kind: r.Kind, ProviderAccountID: r.AccountID,
				ProfileKey: r.ProfileKey, ProviderID: r.ProviderID, AttendeeName: r.AttendeeName, ChatID: r.ChatID,
				MessageID: r.MessageID, Text: r.Text, CooldownHours: r.CooldownHours, CooldownUntil: zeroNil(r.CooldownUntil), At: r.At}
		}
		last := reps[len(reps)-1].Seq
		if err := appendProviderReports(ctx, e.store, e.cfg.ProviderName, last, rows); err != nil {
			return err
		}
		e.cursor = last
	}
}

// handleNew handles every new report, oldest first.
func (e *Engine) handleNew(ctx context.Context) (int, error) {
	source := ""
	if e.op != nil {
		source = reportFromProvider // operator rows are forwarded, not handled, here
	}
	n := 0
	for {
		ids, err := newReportIDs(ctx, e.db, source, reportBatch, e.cfg.SeatMessageGrace)
		if err != nil {
			return n, err
		}
		for _, id := range ids {
			ok, err := e.handle(ctx, id)
			if err != nil {
				return n, err
			}
			if ok {
				n++
			}
		}
		if len(ids) < reportBatch {
			return n, nil
		}
	}
}

// permanent reports errors that retrying cannot fix: the report is marked failed.
func permanent(err error) bool {
	return errors.Is(err, outreach.ErrNotFound) || errors.Is(err, outreach.ErrInvalid)
}

// handle applies one report in one transaction; false when another process had it.
func (e *Engine) handle(ctx context.Context, id int64) (bool, error) {
	r, err := getReport(ctx, e.db, id)
	if err != nil || r.State != reportNew {
		return false, err
	}
	ctx, span := e.startSpan(ctx, "engine.report", func() []attribute.KeyValue {
		return []attribute.KeyValue{telemetry.AttrOrg.String(r.OrgID), AttrReport.Int64(id), AttrReportKind.String(string(r.Kind))}
	})
	defer func() { telemetry.End(span, err) }()
	var plan replyPlan
	if r.Kind == outreach.ReportMessageReceived {
		if err := e.resolveOperator(ctx, &r); err == nil {
			if acc, err := e.accountOf(ctx, r); err == nil {
				plan = e.planReply(ctx, r, acc)
			}
		}
	}
	done := false
	err = e.store.InTx(ctx, func(tx *storage.Tx) error {
		claimed, ok, err := claimReport(ctx, tx, id)
		if err != nil || !ok {
			return err
		}
		done = true
		if err := e.resolveOperator(ctx, &claimed); err != nil {
			return finishReport(ctx, tx, id, reportFailed, nil, err.Error(), e.clock.Now())
		}
		res, err := e.applyInSavepoint(ctx, tx, claimed, plan)
		if err != nil {
			if !permanent(err) {
				return err
			}
			return finishReport(ctx, tx, id, reportFailed, nil, err.Error(), e.clock.Now())
		}
		return finishReport(ctx, tx, id, reportHandled, res, "", e.clock.Now())
	})
	return done, err
}

// applyInSavepoint applies a report so that a permanent failure can still be recorded on the
// report row in the same transaction.
func (e *Engine) applyInSavepoint(ctx context.Context, tx *storage.Tx, r reportRow, plan replyPlan) (map[string]any, error) {
	var res map[string]any
	err := tx.Savepoint(ctx, func(inner *storage.Tx) error {
		var err error
		res, err = e.applyReport(ctx, inner, r, plan)
		return err
	})
	return res, err
}

// resolveOperator completes an operator row so that applyReport sees what a provider report
// would carry: the seat's provider id, the person's key, a chat and message id.
func (e *Engine) resolveOperator(ctx context.Context, r *reportRow) error {
	if r.Source != reportFromOperator {
		return nil
	}
	if r.ProspectID != "" && r.ChatID == "" && r.Kind == outreach.ReportMessageReceived {
		p, err := getEngineProspect(ctx, e.db, r.ProspectID)
		if err != nil {
			return err
		}
		if p.ChatID != nil {
			r.ChatID = *p.ChatID
		} else {
			h := sha256.Sum256([]byte(r.ProviderAccountID + "\x00" + r.ProfileKey))
			r.ChatID = "chat_" + hex.EncodeToString(h[:8])
		}
	}
	if r.MessageID == "" {
		r.MessageID = fmt.Sprintf("op_%d", r.ID)
	}
	return nil
}

func (e *Engine) accountOf(ctx context.Context, r reportRow) (storage.LinkedInAccount, error) {
	var acc storage.LinkedInAccount
	err := e.store.InTx(ctx, func(tx *storage.Tx) error {
		var err error
		acc, err = lockSeatByProviderID(ctx, tx, r.ProviderAccountID)
		return err
	})
	return acc, err
}

// applyReport is the one handler of every report.
func (e *Engine) applyReport(ctx context.Context, tx *storage.Tx, r reportRow, plan replyPlan) (map[string]any, error) {
	acc, err := lockSeatByProviderID(ctx, tx, r.ProviderAccountID)
	if err != nil {
		return nil, err
	}
	switch r.Kind {
	case outreach.ReportInviteAccepted:
		return e.applyAccept(ctx, tx, r, acc)
	case outreach.ReportMessageReceived:
		if r.Text == "" || r.ChatID == "" {
			return nil, outreach.Invalidf("message report without text or chat")
		}
		return e.applyMessage(ctx, tx, r, acc, plan)
	case outreach.ReportAccountDisconnected, outreach.ReportAccountReconnected, outreach.ReportAccountRateLimited,
		outreach.ReportSalesNavUnavailable, outreach.ReportSalesNavRestored:
		return e.applyAccount(ctx, tx, r, acc)
	case outreach.ReportSeatMessaged:
		return e.applySeatMessage(ctx, tx, r, acc)
	}
	return nil, outreach.Invalidf("unknown report kind %q", r.Kind)
}

// scheduleAfterAccept schedules the step after an accepted invitation (step -1: none is left, the
// reply window runs). A prospect stopped meanwhile (POST /inbox/stop) keeps it for the resume
// instead: the wait until it, counted from the resume, as if it had been scheduled when they were
// stopped (paused_next_step_at - paused_at is what a resume gives back).
func (e *Engine) scheduleAfterAccept(ctx context.Context, tx *storage.Tx, p *engineProspect, campaignID string, next time.Time, step int, wait time.Duration) error {
	if p.PausedAt != nil {
		p.PausedNextStepAt = timePtr(p.PausedAt.Add(wait)) // saved with the prospect
		return nil
	}
	if step >= 0 {
		if err := openFollowup(ctx, tx, p.OrgID, p.ID, p.ChatID, next, step); err != nil {
			return err
		}
	}
	p.NextStepAt = &next
	return lowerCampaignNext(ctx, tx, campaignID, next)
}

// applyAccept records an accepted invitation and schedules the first message, also in a paused
// campaign (the message waits for the campaign to run again; with nothing scheduled but the
// invitation's expiry, it would wait three weeks).
func (e *Engine) applyAccept(ctx context.Context, tx *storage.Tx, r reportRow, acc storage.LinkedInAccount) (map[string]any, error) {
	p, found, err := findReportProspect(ctx, tx, acc.OrgID, r.ProfileKey, acc.ID)
	if r.Source == reportFromOperator && r.ProspectID != "" {
		p, err = lockEngineProspect(ctx, tx, r.ProspectID)
		found = err == nil
	}
	if err != nil || !found {
		return map[string]any{"matched": false}, err
	}
	if p.ConnectedAt != nil {
		return map[string]any{"matched": true, "already_connected": true}, nil
	}
	camp, err := getEngineCampaign(ctx, tx, p.CampaignID)
	if err != nil {
		return nil, err
	}
	p.ConnectedAt, p.Contacted = timePtr(r.At), true
	if p.AccountID == nil {
		p.AccountID = &acc.ID
	}
	switch p.Status {
	case outreach.ProspectPending, outreach.ProspectActive, outreach.ProspectConnectionSent:
		p.Status = outreach.ProspectConnected
	}
	unpaused := p
	unpaused.PausedAt = nil
	running := camp.Status == string(outreach.CampaignActive) || camp.Status == string(outreach.CampaignPaused)
	if !halted(unpaused) && p.WithdrawnAt == nil && running {
		steps, _, err := outreach.ParseSequence(camp.Sequence, camp.OutreachType)
		if err != nil {
			return nil, err
		}
		next, step := r.At.Add(e.cfg.ReplyWindow), -1
		if i := nextMessageStep(steps, p.CurrentStep); i < len(steps) {
			next, step = r.At.Add(days(steps[i].DelayDays)), i
		}
		if err := e.scheduleAfterAccept(ctx, tx, &p, camp.ID, next, step, next.Sub(r.At)); err != nil {
			return nil, err
		}
	}
	if err := saveEngineProspect(ctx, tx, p); err != nil {
		return nil, err
	}
	if err := insertActivity(ctx, tx, activity{OrgID: p.OrgID, CampaignID: &p.CampaignID, ProspectID: &p.ID,
		AccountID: &acc.ID, Kind: outreach.ActivityConnectionAccepted, At: r.At}); err != nil {
		return nil, err
	}
	tx.Emit(outreach.NewEvent(outreach.EventConnectionAccepted, p.OrgID, r.At, outreach.EventData{
		Prospect: p.Prospect.EventBlock(), Campaign: &outreach.CampaignBlock{ID: camp.ID, Name: camp.Name}}))
	return map[string]any{"matched": true, "prospect_id": p.ID}, nil
}
