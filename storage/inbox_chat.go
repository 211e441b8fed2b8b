package storage

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// InboxChat is one conversation of an organization as the application's inbox opens it: the
// chat the engine recorded, the seat it is on, and who the person is to the organization.
type InboxChat struct {
	ID                 string // ours, which is also the provider's chat id
	AccountID          string
	AccountName        string
	ProviderAccountID  string
	ProviderChatID     string
	AttendeeName       string
	AttendeeProviderID string
	ProspectID         *string
	// Key is the person's lead key: the chat's, else its prospect's, else "id:" + the attendee's
	// member id; "" when none is known.
	Key            string
	RepliesStopped bool
	Stopped        bool // listed as stopped (person_stops)
	Blocked        bool // an account entry of the do-not-contact list
}

// PersonRef names the chat's person the way POST /inbox/stop and /inbox/block name people.
func (c InboxChat) PersonRef() PersonRef {
	r := refOfKey(c.Key)
	if r.MemberID == "" {
		r.MemberID = c.AttendeeProviderID
	}
	if h, ok := strings.CutPrefix(c.Key, "in:"); ok {
		r.Value = "https://www.linkedin.com/in/" + h
	}
	return r
}

// GetInboxChat reads chat id of orgID; another organization's or an unknown chat is
// outreach.ErrNotFound.
func (s *Store) GetInboxChat(ctx context.Context, orgID, id string) (InboxChat, error) {
	var c InboxChat
	err := s.pool.QueryRow(ctx, `SELECT c.id, c.account_id, a.name, a.provider_account_id, c.provider_chat_id,
			c.attendee_name, c.attendee_provider_id, c.prospect_id,
			coalesce(c.lead_key, p.lead_key, 'id:' || nullif(c.attendee_provider_id, ''), ''),
			c.replies_stopped_at IS NOT NULL
		FROM chats c JOIN linkedin_accounts a ON a.id = c.account_id
		LEFT JOIN prospects p ON p.id = c.prospect_id
		WHERE c.org_id = $1 AND c.id = $2`, orgID, id).Scan(&c.ID, &c.AccountID, &c.AccountName, &c.ProviderAccountID,
		&c.ProviderChatID, &c.AttendeeName, &c.AttendeeProviderID, &c.ProspectID, &c.Key, &c.RepliesStopped)
	if err != nil {
		return c, notFound(err, "conversation "+id)
	}
	if c.Key == "" {
		return c, nil
	}
	err = s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM person_stops WHERE org_id = $1 AND key = $2),
			EXISTS (SELECT 1 FROM blacklist WHERE org_id = $1 AND type = 'account' AND key = $2)`,
		orgID, c.Key).Scan(&c.Stopped, &c.Blocked)
	if err != nil {
		return c, fmt.Errorf("conversation %s: %w", id, err)
	}
	return c, nil
}

// OrgLinkedInAccounts lists the organization's seats, oldest first, whatever their status.
func (s *Store) OrgLinkedInAccounts(ctx context.Context, orgID string) ([]LinkedInAccount, error) {
	return OrgLinkedInAccounts(ctx, s.pool, orgID)
}

// OrgLinkedInAccounts lists an organization's seats through q (a pool or a transaction), oldest
// first, whatever their status.
func OrgLinkedInAccounts(ctx context.Context, q Querier, orgID string) ([]LinkedInAccount, error) {
	rows, err := q.Query(ctx, `SELECT `+LinkedInAccountColumns+` FROM linkedin_accounts
		WHERE org_id = $1 ORDER BY created_at, id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("seats: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (LinkedInAccount, error) { return ScanLinkedInAccount(r) })
	if err != nil {
		return nil, fmt.Errorf("seats: %w", err)
	}
	return out, nil
}
