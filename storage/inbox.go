package storage

import (
	"context"
	"fmt"
	"time"

	"outreachd/outreach"

	"github.com/jackc/pgx/v5"
)

// InboxAccount is a LinkedIn seat GET /inbox reads live.
type InboxAccount = outreach.InboxSeat

// InboxAccounts returns the organization's first n connected LinkedIn accounts, oldest first
// (the first five). A rate-limited seat can still read its inbox, so it counts;
// a disconnected one cannot.
func (s *Store) InboxAccounts(ctx context.Context, orgID string, n int) ([]InboxAccount, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, provider_account_id FROM linkedin_accounts
		WHERE org_id = $1 AND status IN ('connected', 'rate_limited')
		ORDER BY created_at, id LIMIT $2`, orgID, n)
	if err != nil {
		return nil, fmt.Errorf("inbox accounts: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[InboxAccount])
	if err != nil {
		return nil, fmt.Errorf("inbox accounts: %w", err)
	}
	return out, nil
}

// InboxPeople finds, for each live chat, the organization's prospect it is with: by the lead key
// the provider knows (Chat.ProfileKey), by member id key ("id:"+Chat.AttendeeProviderID), or
// through the chats table the engine keeps (the seat and the chat id). The result has one entry
// per chat; nil means a stranger (never in any of the organization's campaigns). When one person
// is in several campaigns the newest prospect wins.
func (s *Store) InboxPeople(ctx context.Context, orgID string, chats []outreach.InboxChat) ([]*outreach.Person, error) {
	keys := make([]string, len(chats))
	provs := make([]string, len(chats))
	accs := make([]string, len(chats))
	ids := make([]string, len(chats))
	for i, c := range chats {
		keys[i], provs[i], accs[i], ids[i] = c.Chat.ProfileKey, c.Chat.AttendeeProviderID, c.AccountID, c.Chat.ID
	}
	rows, err := s.pool.Query(ctx, `SELECT r.i, `+personSelect+`
		FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS r(key, prov, acc, chat, i)
		LEFT JOIN LATERAL (SELECT c.lead_key, c.prospect_id FROM chats c
			WHERE c.org_id = $1 AND c.account_id = r.acc AND c.provider_chat_id = r.chat) c ON true
		CROSS JOIN LATERAL (SELECT pp.* FROM prospects pp
			WHERE pp.org_id = $1
			  AND (pp.lead_key IN (nullif(r.key, ''), 'id:' || nullif(r.prov, ''), c.lead_key) OR pp.id = c.prospect_id)
			ORDER BY pp.created_at DESC, pp.id DESC LIMIT 1) p`,
		orgID, keys, provs, accs, ids)
	if err != nil {
		return nil, fmt.Errorf("inbox people: %w", err)
	}
	out := make([]*outreach.Person, len(chats))
	var i int
	var p outreach.Person
	_, err = pgx.ForEachRow(rows, append([]any{&i}, personDest(&p)...), func() error {
		cp := p
		out[i-1] = &cp
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("inbox people: %w", err)
	}
	return out, nil
}

// PersonRef is one person named to POST /inbox/stop or /inbox/block, already normalized.
type PersonRef struct {
	Key      string // lead key, "in:<handle>" or "id:<member id>"
	MemberID string // the member id when the input was one; matches chats by attendee
	Value    string // how a block-list entry shows the person (profile URL or member id)
}

// NewPersonRef names the person of a normalized profile (outreach.NormalizeProfile), the one way
// the API and the application turn what a person typed or clicked into a PersonRef.
func NewPersonRef(p outreach.Profile) PersonRef {
	value := p.URL
	if value == "" {
		value = p.MemberID
	}
	return PersonRef{Key: p.Key, MemberID: p.MemberID, Value: value}
}

// StopResult is what POST /inbox/stop did for one person.
type StopResult struct {
	Found                bool
	MatchedConversations int
	RepliesStopped       bool
	FollowupsClosed      int
	CampaignsPaused      int
}

// BlockResult is what POST /inbox/block did for one person.
type BlockResult struct {
	MatchedConversations int
	FollowupsClosed      int
	DraftsDismissed      int
}

// personMatch is what the service holds for one person: prospects and chats.
type personMatch struct {
	prospects []string
	chats     []string
}

func matchPerson(ctx context.Context, tx *Tx, orgID string, ref PersonRef) (personMatch, error) {
	var m personMatch
	rows, err := tx.Query(ctx, `SELECT id FROM prospects WHERE org_id = $1 AND lead_key = $2`, orgID, ref.Key)
	if err != nil {
		return m, err
	}
	if m.prospects, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return m, err
	}
	rows, err = tx.Query(ctx, `SELECT id, prospect_id FROM chats WHERE org_id = $1
		AND (lead_key = $2 OR ($3 <> '' AND attendee_provider_id = $3) OR prospect_id = ANY($4))
		ORDER BY id`, orgID, ref.Key, ref.MemberID, m.prospects)
	if err != nil {
		return m, err
	}
	seen := map[string]bool{}
	for _, id := range m.prospects {
		seen[id] = true
	}
	var chatID string
	var prospectID *string
	_, err = pgx.ForEachRow(rows, []any{&chatID, &prospectID}, func() error {
		m.chats = append(m.chats, chatID)
		if prospectID != nil && !seen[*prospectID] {
			seen[*prospectID] = true
			m.prospects = append(m.prospects, *prospectID)
		}
		return nil
	})
	return m, err
}

// stopReplies marks the chats and the prospect rows so that no more replies are drafted or sent
// to the person, in the conversations that exist and in any that starts later, and closes the
// person's open follow-ups; it returns how many follow-ups it closed.
func stopReplies(ctx context.Context, tx *Tx, orgID string, m personMatch, now time.Time) (int, error) {
	if _, err := tx.Exec(ctx, `UPDATE chats SET replies_stopped_at = $3
		WHERE org_id = $1 AND id = ANY($2) AND replies_stopped_at IS NULL`, orgID, m.chats, now); err != nil {
		return 0, fmt.Errorf("stop replies: %w", err)
	}
	// The person's prospect rows remember the stop, so a conversation that starts later is
	// stopped from its first message (the engine records a new chat stopped when they are).
	if _, err := tx.Exec(ctx, `UPDATE prospects SET replies_stopped_at = $3
		WHERE org_id = $1 AND id = ANY($2) AND replies_stopped_at IS NULL`, orgID, m.prospects, now); err != nil {
		return 0, fmt.Errorf("stop replies: %w", err)
	}
	tag, err := tx.Exec(ctx, `UPDATE followups SET closed_at = $4
		WHERE org_id = $1 AND closed_at IS NULL AND (prospect_id = ANY($2) OR chat_id = ANY($3))`,
		orgID, m.prospects, m.chats, now)
	if err != nil {
		return 0, fmt.Errorf("close follow-ups: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// StopPeople applies POST /inbox/stop to every ref in one transaction: replies
// stop in the person's chats, open follow-ups close, and each running sequence pauses with its
// position kept (next_step_at moves to paused_next_step_at beside paused_at, so the time that was
// left until the next step is kept too; current_step and membership stay), so ResumePeople
// continues exactly where it stopped. A person it finds is listed as stopped (person_stops, with
// actor as who stopped them) unless they are on the do-not-contact list. Pending drafts are left
// as they are: the engine sends nothing in a chat whose replies are stopped, and a resume finds
// them again. Repeating a stop changes nothing and reports zero new closures.
func (s *Store) StopPeople(ctx context.Context, orgID string, refs []PersonRef, actor string, now time.Time) ([]StopResult, error) {
	out := make([]StopResult, len(refs))
	err := s.InTx(ctx, func(tx *Tx) error {
		for i, ref := range refs {
			m, err := matchPerson(ctx, tx, orgID, ref)
			if err != nil {
				return fmt.Errorf("match person: %w", err)
			}
			found := len(m.prospects)+len(m.chats) > 0
			r := StopResult{Found: found, MatchedConversations: len(m.chats), RepliesStopped: found}
			if r.FollowupsClosed, err = stopReplies(ctx, tx, orgID, m, now); err != nil {
				return err
			}
			if found {
				if _, err := tx.Exec(ctx, `INSERT INTO person_stops (org_id, key, member_id, value, stopped_at, stopped_by)
					SELECT $1, $2, $3, $4, $5, nullif($6, '')
					WHERE NOT EXISTS (SELECT 1 FROM blacklist WHERE org_id = $1 AND type = 'account' AND key = $2)
					ON CONFLICT (org_id, key) DO NOTHING`, orgID, ref.Key, ref.MemberID, ref.Value, now, actor); err != nil {
					return fmt.Errorf("record the stop: %w", err)
				}
			}
			if err := tx.QueryRow(ctx, `WITH paused AS (
				UPDATE prospects SET paused_at = $3, paused_next_step_at = next_step_at, next_step_at = NULL, updated_at = $3
				WHERE org_id = $1 AND id = ANY($2) AND paused_at IS NULL AND sequence_ended_at IS NULL
				  AND status NOT IN ('opted_out', 'completed')
				RETURNING campaign_id)
				SELECT count(DISTINCT campaign_id) FROM paused`, orgID, m.prospects, now).Scan(&r.CampaignsPaused); err != nil {
				return fmt.Errorf("pause sequences: %w", err)
			}
			out[i] = r
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// BlockPeople applies POST /inbox/block to every ref in one transaction:
// each person becomes an account entry of the do-not-contact list with reason, marked blocked
// by actor (an existing entry keeps its value and reason and is marked blocked), replies stop,
// follow-ups close, pending drafts are dismissed, open needs-human items are resolved, every
// prospect row of theirs whose sequence is still running is ended with status opted_out, and a
// stop of theirs is no longer listed (the block ended what it paused). The rows stay, so history
// and analytics keep them; the block-list entry keeps them out of every campaign from then on.
func (s *Store) BlockPeople(ctx context.Context, orgID string, refs []PersonRef, reason *string, actor string, now time.Time) ([]BlockResult, error) {
	out := make([]BlockResult, len(refs))
	err := s.InTx(ctx, func(tx *Tx) error {
		for i, ref := range refs {
			if _, err := tx.Exec(ctx, `INSERT INTO blacklist (org_id, type, key, value, reason, created_at, added_by, blocked_at)
				VALUES ($1, 'account', $2, $3, $4, $5, nullif($6, ''), $5) ON CONFLICT (org_id, type, key)
				DO UPDATE SET blocked_at = coalesce(blacklist.blocked_at, excluded.blocked_at),
					added_by = coalesce(blacklist.added_by, excluded.added_by)`,
				orgID, ref.Key, ref.Value, reason, now, actor); err != nil {
				return fmt.Errorf("block-list entry: %w", err)
			}
			if _, err := tx.Exec(ctx, `DELETE FROM person_stops WHERE org_id = $1 AND key = $2`, orgID, ref.Key); err != nil {
				return fmt.Errorf("end the stop: %w", err)
			}
			m, err := matchPerson(ctx, tx, orgID, ref)
			if err != nil {
				return fmt.Errorf("match person: %w", err)
			}
			r := BlockResult{MatchedConversations: len(m.chats)}
			if r.FollowupsClosed, err = stopReplies(ctx, tx, orgID, m, now); err != nil {
				return err
			}
			tag, err := tx.Exec(ctx, `UPDATE reply_drafts SET status = 'dismissed', updated_at = $4
				WHERE org_id = $1 AND status = 'pending' AND (chat_id = ANY($2) OR prospect_id = ANY($3))`,
				orgID, m.chats, m.prospects, now)
			if err != nil {
				return fmt.Errorf("dismiss drafts: %w", err)
			}
			r.DraftsDismissed = int(tag.RowsAffected())
			if _, err := tx.Exec(ctx, `UPDATE needs_human SET resolved_at = $4
				WHERE org_id = $1 AND resolved_at IS NULL AND (chat_id = ANY($2) OR prospect_id = ANY($3))`,
				orgID, m.chats, m.prospects, now); err != nil {
				return fmt.Errorf("resolve needs-human: %w", err)
			}
			if _, err := tx.Exec(ctx, `UPDATE prospects SET status = 'opted_out',
				sequence_ended_at = coalesce(sequence_ended_at, $3), next_step_at = NULL,
				paused_next_step_at = NULL, updated_at = $3
				WHERE org_id = $1 AND id = ANY($2) AND status NOT IN ('opted_out', 'completed')`,
				orgID, m.prospects, now); err != nil {
				return fmt.Errorf("remove from campaigns: %w", err)
			}
			out[i] = r
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
