package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
	"outreachd/storage"
)

// ProviderInbox is where a hosted LinkedIn provider that tells its news by webhooks (Unipile)
// leaves them: the received webhooks and the reports they make, the reports its periodic
// reconciliation finds, the member ids and handles it learns, the sign-in links it made for
// seats-to-be, and where each seat's reconciliation stands. The provider's adapter declares
// what it needs of it in outreach's words; this is the engine's SQL behind those interfaces.
// The reports land in provider_reports, which the engine handles as every other report
// (reports.go), whichever instance received them.
type ProviderInbox struct {
	st       Store
	provider string
	owner    string // this process, for the reconciliation's leases
}

// NewProviderInbox is the inbox of the provider named provider ("unipile"): the name its
// reports are kept under.
func NewProviderInbox(st Store, provider string) (*ProviderInbox, error) {
	if st == nil || provider == "" {
		return nil, errors.New("engine: a provider inbox needs a store and a provider name")
	}
	return &ProviderInbox{st: st, provider: provider, owner: outreach.NewID("inst")}, nil
}

// RecordWebhook stores a received webhook and the reports it makes in one transaction; false
// when the same webhook (same dedupe key) was stored before, in which case nothing changes.
// Reports about an account that is no seat of any organization are not kept (the webhook is).
func (pi *ProviderInbox) RecordWebhook(ctx context.Context, w outreach.InboundWebhook) (bool, error) {
	if w.DedupeKey == "" {
		return false, outreach.Invalidf("a webhook needs a dedupe key")
	}
	stored := false
	err := pi.st.InTx(ctx, func(tx *storage.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, `INSERT INTO provider_webhooks (provider, dedupe_key, kind, body, received_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (provider, dedupe_key) DO NOTHING RETURNING id`,
			pi.provider, w.DedupeKey, w.Kind, w.Body, w.ReceivedAt).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("store webhook: %w", err)
		}
		stored = true
		_, err = insertDedupedReports(ctx, tx, pi.provider, w.Reports)
		return err
	})
	return stored, err
}

// LastWebhookID is the id of the latest webhook of the provider whose dedupe key starts with
// prefix and not with except (0 when none): what a provider keys a webhook without an id of
// its own after, so that the same news coming back after other news is news again.
func (pi *ProviderInbox) LastWebhookID(ctx context.Context, prefix, except string) (int64, error) {
	var id int64
	err := pi.st.Pool().QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM provider_webhooks
		WHERE provider = $1 AND starts_with(dedupe_key, $2) AND NOT starts_with(dedupe_key, $3)`, pi.provider, prefix, except).Scan(&id)
	return id, err
}

// RecordReports appends reports a provider found on its own (the reconciliation, a refusal
// that stops a seat), skipping each one recorded before under the same dedupe key; it returns
// how many were new.
func (pi *ProviderInbox) RecordReports(ctx context.Context, reports []outreach.LinkedInReport) (int, error) {
	n := 0
	err := pi.st.InTx(ctx, func(tx *storage.Tx) error {
		var err error
		n, err = insertDedupedReports(ctx, tx, pi.provider, reports)
		return err
	})
	return n, err
}

// insertDedupedReports inserts reports that carry a dedupe key, once each. A report's person
// is keyed as a prospect of the seat's organization was pushed, whichever of these names them:
// the lead key of the chat the engine recorded under the report's chat, the key the provider
// gave, the handle it once taught for the member id ("in:"), the member id itself ("id:").
// With no such prospect, the first handle's key of these, else the key the provider gave.
func insertDedupedReports(ctx context.Context, tx *storage.Tx, provider string, reports []outreach.LinkedInReport) (int, error) {
	n := 0
	for _, r := range reports {
		if r.DedupeKey == "" {
			return n, outreach.Invalidf("report %s has no dedupe key", r.Kind)
		}
		tag, err := tx.Exec(ctx, `INSERT INTO provider_reports (source, provider, dedupe_key, kind, provider_account_id,
				profile_key, provider_id, attendee_name, chat_id, message_id, text, cooldown_hours, cooldown_until, at)
			SELECT 'provider', $1, $2, $3, a.provider_account_id,
				coalesce((SELECT p.lead_key FROM prospects p WHERE p.org_id = a.org_id AND p.lead_key = ANY(k.keys)
					ORDER BY array_position(k.keys, p.lead_key) LIMIT 1),
					(SELECT h.key FROM unnest(k.keys) WITH ORDINALITY AS h(key, n) WHERE h.key LIKE 'in:%' ORDER BY h.n LIMIT 1),
					$5::text),
				$6::text, $7::text, $8::text, $9::text, $10::text, $11::int, $13::timestamptz, $12::timestamptz
			FROM linkedin_accounts a
			CROSS JOIN LATERAL (SELECT array_remove(ARRAY[
				(SELECT c.lead_key FROM chats c WHERE c.account_id = a.id AND c.provider_chat_id = $8::text),
				$5::text,
				(SELECT 'in:' || m.public_identifier FROM linkedin_members m WHERE m.member_id = $6::text),
				'id:' || $6::text], NULL) AS keys) k
			WHERE a.provider_account_id = $4::text
			ON CONFLICT (provider, dedupe_key) WHERE dedupe_key IS NOT NULL DO NOTHING`,
			provider, r.DedupeKey, r.Kind, r.AccountID, nullable(r.ProfileKey), nullable(r.ProviderID),
			nullable(r.AttendeeName), nullable(r.ChatID), nullable(r.MessageID), nullable(r.Text), r.CooldownHours, r.At,
			zeroNil(r.CooldownUntil))
		if err != nil {
			return n, fmt.Errorf("store %s report: %w", r.Kind, err)
		}
		n += int(tag.RowsAffected())
	}
	return n, nil
}

// RememberMembers keeps what a provider taught of members' handles; a member's newer handle
// replaces the older one.
func (pi *ProviderInbox) RememberMembers(ctx context.Context, members []outreach.MemberHandle) error {
	if len(members) == 0 {
		return nil
	}
	batch := &pgx.Batch{}
	for _, m := range members {
		if m.MemberID == "" || m.PublicIdentifier == "" {
			continue
		}
		batch.Queue(`INSERT INTO linkedin_members (member_id, public_identifier) VALUES ($1, $2)
			ON CONFLICT (member_id) DO UPDATE SET public_identifier = excluded.public_identifier, updated_at = now()
			WHERE linkedin_members.public_identifier <> excluded.public_identifier`, m.MemberID, m.PublicIdentifier)
	}
	return pi.st.Pool().SendBatch(ctx, batch).Close()
}

// MemberID is the member id last learned for a folded public handle; ok is false when none was.
func (pi *ProviderInbox) MemberID(ctx context.Context, publicIdentifier string) (string, bool, error) {
	var id string
	err := pi.st.Pool().QueryRow(ctx, `SELECT member_id FROM linkedin_members WHERE public_identifier = $1
		ORDER BY updated_at DESC LIMIT 1`, publicIdentifier).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	return id, err == nil, err
}

// PruneWebhooks deletes received webhooks older than before (at most 1,000 a call) and says how
// many went: their reports stay, and a provider's retries come within hours, so the raw bodies
// (a lead's text among them) are not kept for good.
func (pi *ProviderInbox) PruneWebhooks(ctx context.Context, before time.Time) (int, error) {
	tag, err := pi.st.Pool().Exec(ctx, `DELETE FROM provider_webhooks WHERE id IN (
		SELECT id FROM provider_webhooks WHERE provider = $1 AND received_at < $2 ORDER BY received_at LIMIT 1000)`,
		pi.provider, before)
	return int(tag.RowsAffected()), err
}
