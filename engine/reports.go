package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

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
		ids, err := e.store.NewReportIDs(ctx, storage.ReportFromOperator, reportBatch)
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
		c, err := e.store.ProviderCursor(ctx, e.cfg.ProviderName)
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
		rows := make([]storage.ProviderReport, len(reps))
		for i, r := range reps {
			rows[i] = storage.ProviderReport{ProviderSeq: r.Seq, Kind: r.Kind, ProviderAccountID: r.AccountID,
				ProfileKey: r.ProfileKey, ProviderID: r.ProviderID, AttendeeName: r.AttendeeName, ChatID: r.ChatID,
				MessageID: r.MessageID, Text: r.Text, CooldownHours: r.CooldownHours, At: r.At}
		}
		last := reps[len(reps)-1].Seq
		if err := e.store.AppendProviderReports(ctx, e.cfg.ProviderName, last, rows); err != nil {
			return err
		}
		e.cursor = last
	}
}

// handleNew handles every new report, oldest first.
func (e *Engine) handleNew(ctx context.Context) (int, error) {
	source := ""
	if e.op != nil {
		source = storage.ReportFromProvider // operator rows are forwarded, not handled, here
	}
	n := 0
	for {
		ids, err := e.store.NewReportIDs(ctx, source, reportBatch)
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
	r, err := e.store.GetReport(ctx, id)
	if err != nil || r.State != storage.ReportNew {
		return false, err
	}
	var plan replyPlan
	if r.Kind == ReportMessageReceived {
		if err := e.resolveOperator(ctx, &r); err == nil {
			if acc, err := e.accountOf(ctx, r); err == nil {
				plan = e.planReply(ctx, r, acc)
			}
		}
	}
	done := false
	err = e.store.InTx(ctx, func(tx *storage.Tx) error {
		claimed, ok, err := tx.ClaimReport(ctx, id)
		if err != nil || !ok {
			return err
		}
		done = true
		if err := e.resolveOperator(ctx, &claimed); err != nil {
			return tx.FinishReport(ctx, id, storage.ReportFailed, nil, err.Error(), e.clock.Now())
		}
		res, err := e.applyInSavepoint(ctx, tx, claimed, plan)
		if err != nil {
			if !permanent(err) {
				return err
			}
			return tx.FinishReport(ctx, id, storage.ReportFailed, nil, err.Error(), e.clock.Now())
		}
		return tx.FinishReport(ctx, id, storage.ReportHandled, res, "", e.clock.Now())
	})
	return done, err
}

// applyInSavepoint applies a report so that a permanent failure can still be recorded on the
// report row in the same transaction.
func (e *Engine) applyInSavepoint(ctx context.Context, tx *storage.Tx, r storage.ProviderReport, plan replyPlan) (map[string]any, error) {
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
func (e *Engine) resolveOperator(ctx context.Context, r *storage.ProviderReport) error {
	if r.Source != storage.ReportFromOperator {
		return nil
	}
	if r.ProspectID != "" && r.ChatID == "" && r.Kind == ReportMessageReceived {
		p, err := e.store.GetEngineProspect(ctx, r.ProspectID)
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

func (e *Engine) accountOf(ctx context.Context, r storage.ProviderReport) (storage.LinkedInAccount, error) {
	var acc storage.LinkedInAccount
	err := e.store.InTx(ctx, func(tx *storage.Tx) error {
		var err error
		acc, err = tx.LockAccountByProviderID(ctx, r.ProviderAccountID)
		return err
	})
	return acc, err
}

// applyReport is the one handler of every report.
func (e *Engine) applyReport(ctx context.Context, tx *storage.Tx, r storage.ProviderReport, plan replyPlan) (map[string]any, error) {
	acc, err := tx.LockAccountByProviderID(ctx, r.ProviderAccountID)
	if err != nil {
		return nil, err
	}
	switch r.Kind {
	case ReportInviteAccepted:
		return e.applyAccept(ctx, tx, r, acc)
	case ReportMessageReceived:
		if r.Text == "" || r.ChatID == "" {
			return nil, outreach.Invalidf("message report without text or chat")
		}
		return e.applyMessage(ctx, tx, r, acc, plan)
	case ReportAccountDisconnected, ReportAccountReconnected, ReportAccountRateLimited,
		ReportSalesNavUnavailable, ReportSalesNavRestored:
		return e.applyAccount(ctx, tx, r, acc)
	}
	return nil, outreach.Invalidf("unknown report kind %q", r.Kind)
}

// applyAccept records an accepted invitation and schedules the first message.
func (e *Engine) applyAccept(ctx context.Context, tx *storage.Tx, r storage.ProviderReport, acc storage.LinkedInAccount) (map[string]any, error) {
	p, found, err := tx.FindReportProspect(ctx, acc.OrgID, r.ProfileKey, acc.ID)
	if r.Source == storage.ReportFromOperator && r.ProspectID != "" {
		p, err = tx.LockEngineProspect(ctx, r.ProspectID)
		found = err == nil
	}
	if err != nil || !found {
		return map[string]any{"matched": false}, err
	}
	if p.ConnectedAt != nil {
		return map[string]any{"matched": true, "already_connected": true}, nil
	}
	camp, err := tx.GetEngineCampaign(ctx, p.CampaignID)
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
	if !halted(p) && p.WithdrawnAt == nil && camp.Status == string(outreach.CampaignActive) {
		steps, _, err := outreach.ParseSequence(camp.Sequence, camp.OutreachType)
		if err != nil {
			return nil, err
		}
		next := r.At.Add(e.cfg.ReplyWindow)
		if i := nextMessageStep(steps, p.CurrentStep); i < len(steps) {
			next = r.At.Add(days(steps[i].DelayDays))
			if err := tx.OpenFollowup(ctx, p.OrgID, p.ID, p.ChatID, next, i); err != nil {
				return nil, err
			}
		}
		p.NextStepAt = &next
		if err := tx.LowerCampaignNext(ctx, camp.ID, next); err != nil {
			return nil, err
		}
	}
	if err := tx.SaveEngineProspect(ctx, p); err != nil {
		return nil, err
	}
	if err := tx.InsertActivity(ctx, storage.Activity{OrgID: p.OrgID, CampaignID: &p.CampaignID, ProspectID: &p.ID,
		AccountID: &acc.ID, Kind: outreach.ActivityConnectionAccepted, At: r.At}); err != nil {
		return nil, err
	}
	tx.Emit(outreach.NewEvent(outreach.EventConnectionAccepted, p.OrgID, r.At, outreach.EventData{
		Prospect: p.Prospect.EventBlock(), Campaign: &outreach.CampaignBlock{ID: camp.ID, Name: camp.Name}}))
	return map[string]any{"matched": true, "prospect_id": p.ID}, nil
}

// applyAccount records a seat's status change and emits its alert with the fields of its account block.
func (e *Engine) applyAccount(ctx context.Context, tx *storage.Tx, r storage.ProviderReport, acc storage.LinkedInAccount) (map[string]any, error) {
	block := &outreach.AccountBlock{Name: acc.Name, AccountID: acc.ID}
	reconnect := outreach.AccountURL(e.cfg.PublicURL, acc.ID)
	change := storage.AccountChange{Status: acc.Status, CooldownUntil: acc.CooldownUntil}
	var kind outreach.EventKind
	switch r.Kind {
	case ReportAccountDisconnected:
		if acc.Status == "disconnected" {
			return map[string]any{"changed": false}, nil
		}
		change.Status, change.DisconnectedAt = "disconnected", timePtr(r.At)
		kind = outreach.EventAccountDisconnected
		block.Reason = "LinkedIn ended the session; reconnect the account to resume its campaigns"
		block.ReconnectURL, block.Status, block.DisconnectedAt = reconnect, "disconnected", outreach.FormatTime(r.At)
	case ReportAccountReconnected:
		if acc.Status != "disconnected" {
			return map[string]any{"changed": false}, nil
		}
		change.Status = "connected"
		kind = outreach.EventAccountReconnected
		block.Status, block.ReconnectedAt = "connected", outreach.FormatTime(r.At)
	case ReportAccountRateLimited:
		hours := max(r.CooldownHours, 1)
		until := r.At.Add(time.Duration(hours) * time.Hour)
		if acc.Status == "rate_limited" && acc.CooldownUntil != nil && until.Before(acc.CooldownUntil.Add(time.Hour)) {
			// The limit the seat is under, reported again (it ends no later, or by less than the
			// hour the alert counts in): nothing new to tell.
			return map[string]any{"changed": false}, nil
		}
		change.Status, change.CooldownUntil = "rate_limited", &until
		kind = outreach.EventAccountRateLimited
		block.Reason = "LinkedIn is refusing further invitations from this seat for now"
		block.CooldownHours, block.CooldownUntil = hours, outreach.FormatTime(until)
	case ReportSalesNavUnavailable, ReportSalesNavRestored:
		prev := outreach.SalesNavActive
		if acc.SNVerdict != nil {
			prev = *acc.SNVerdict
		}
		verdict, reason := outreach.SalesNavLapsed, "Sales Navigator lapsed on this seat; classic LinkedIn still works"
		kind = outreach.EventSalesNavUnavailable
		if r.Kind == ReportSalesNavRestored {
			verdict, reason, kind = outreach.SalesNavActive, "Sales Navigator works again on this seat", outreach.EventSalesNavRestored
		} else {
			block.ReconnectURL = reconnect
		}
		if prev == verdict {
			return map[string]any{"changed": false}, nil
		}
		change.SNVerdict, change.SNChangedAt = &verdict, timePtr(r.At)
		block.Reason, block.SNVerdict, block.PreviousSNVerdict, block.SNChangedAt = reason, verdict, prev, outreach.FormatTime(r.At)
	}
	if err := tx.UpdateLinkedInAccount(ctx, acc.ID, change); err != nil {
		return nil, err
	}
	tx.Emit(outreach.NewEvent(kind, acc.OrgID, r.At, outreach.EventData{Account: block}))
	return map[string]any{"changed": true}, nil
}
