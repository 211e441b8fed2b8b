package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// Campaign is one campaign with its settings. ProspectCounts holds only statuses that occur.
type Campaign struct {
	ID             string
	OrgID          string
	Name           string
	Status         outreach.CampaignStatus
	OutreachType   string // stored form: outbound or inbound
	SourceType     *string
	SourceConfig   json.RawMessage // nil when none
	DailyLimit     int
	Schedule       outreach.Schedule
	Sequence       []outreach.SequenceStep
	HardFilters    outreach.HardFilters
	AISettings     json.RawMessage
	AccountIDs     []string
	StartedAt      *time.Time
	CompletedAt    *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
	ProspectCounts map[string]int
}

// NewCampaign is what a create carries, already checked by the domain (CampaignRequest.Create).
// HardFilters are the campaign's own; CreateCampaign stamps the organization's defaults on.
type NewCampaign = outreach.CampaignSettings

const campaignColumns = `id, org_id, name, status, outreach_type, source_type, source_config, daily_limit,
	schedule, sequence, hard_filters, ai_settings, account_ids, started_at, completed_at, created_at, updated_at`

func scanCampaign(row pgx.Row) (Campaign, error) {
	var c Campaign
	var status string
	var schedule, sequence, filters []byte
	err := row.Scan(&c.ID, &c.OrgID, &c.Name, &status, &c.OutreachType, &c.SourceType, &c.SourceConfig,
		&c.DailyLimit, &schedule, &sequence, &filters, &c.AISettings, &c.AccountIDs,
		&c.StartedAt, &c.CompletedAt, &c.CreatedAt, &c.UpdatedAt)
	if err != nil {
		return Campaign{}, err
	}
	c.Status = outreach.CampaignStatus(status)
	if err := json.Unmarshal(schedule, &c.Schedule); err != nil {
		return Campaign{}, fmt.Errorf("campaign %s schedule: %w", c.ID, err)
	}
	if err := json.Unmarshal(sequence, &c.Sequence); err != nil {
		return Campaign{}, fmt.Errorf("campaign %s sequence: %w", c.ID, err)
	}
	for i := range c.Sequence {
		if c.Sequence[i].Attachments == nil {
			c.Sequence[i].Attachments = []outreach.Attachment{}
		}
	}
	if c.Sequence == nil {
		c.Sequence = []outreach.SequenceStep{}
	}
	if err := json.Unmarshal(filters, &c.HardFilters); err != nil {
		return Campaign{}, fmt.Errorf("campaign %s hard_filters: %w", c.ID, err)
	}
	if c.AccountIDs == nil {
		c.AccountIDs = []string{}
	}
	c.ProspectCounts = map[string]int{}
	return c, nil
}

// orgDefaultFilters reads the organization's default hard filters; a missing organization is
// ErrNotFound.
func orgDefaultFilters(ctx context.Context, q pgx.Tx, orgID string) (outreach.HardFilters, error) {
	var raw []byte
	if err := q.QueryRow(ctx, `SELECT default_filters FROM orgs WHERE id = $1`, orgID).Scan(&raw); err != nil {
		return outreach.HardFilters{}, notFound(err, "org "+orgID)
	}
	f, err := outreach.ParseHardFilters(raw)
	if err != nil {
		// Stored defaults were validated when set; failing here is a server fault, not the client's.
		return outreach.HardFilters{}, fmt.Errorf("org %s default filters are unreadable: %v", orgID, err)
	}
	return f, nil
}

// Settings are c's settings as an edit of it starts from.
func (c Campaign) Settings() outreach.CampaignSettings {
	return outreach.CampaignSettings{Name: c.Name, OutreachType: c.OutreachType, SourceType: c.SourceType,
		SourceConfig: c.SourceConfig, DailyLimit: c.DailyLimit, Schedule: c.Schedule, Sequence: c.Sequence,
		HardFilters: c.HardFilters, AccountIDs: c.AccountIDs}
}

// CreateCampaign inserts a draft with the organization's default filters stamped onto its own
// (outreach.HardFilters.Merge); a clash between the two is outreach.ErrInvalidFilters.
func (s *Store) CreateCampaign(ctx context.Context, orgID string, in NewCampaign) (Campaign, error) {
	var c Campaign
	err := s.InTx(ctx, func(tx *Tx) error {
		merged, err := settingsOf(ctx, tx, orgID, in)
		if err != nil {
			return err
		}
		c, err = insertCampaign(ctx, tx, orgID, in, merged, nil)
		return err
	})
	if err != nil {
		return Campaign{}, outreach.WrapServerErr(err, "create campaign")
	}
	return c, nil
}

// insertCampaign inserts a draft with settings in and filters (the merged ones).
func insertCampaign(ctx context.Context, tx *Tx, orgID string, in outreach.CampaignSettings, filters outreach.HardFilters,
	aiSettings json.RawMessage,
) (Campaign, error) {
	cols, err := settingsValues(in, filters)
	if err != nil {
		return Campaign{}, err
	}
	if aiSettings == nil {
		aiSettings = json.RawMessage(`{}`)
	}
	return scanCampaign(tx.QueryRow(ctx, `INSERT INTO campaigns (id, org_id, ai_settings, status, name, outreach_type,
		source_type, source_config, daily_limit, schedule, sequence, hard_filters, account_ids)
		VALUES ($1, $2, $3, 'draft', $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12) RETURNING `+campaignColumns,
		append([]any{outreach.NewID("cmp"), orgID, []byte(aiSettings)}, cols...)...))
}

// settingsValues are the values of the settings columns, in the order name, outreach_type,
// source_type, source_config, daily_limit, schedule, sequence, hard_filters, account_ids.
func settingsValues(in outreach.CampaignSettings, filters outreach.HardFilters) ([]any, error) {
	sched, err := json.Marshal(in.Schedule)
	if err != nil {
		return nil, err
	}
	if in.Sequence == nil {
		in.Sequence = []outreach.SequenceStep{}
	}
	seq, err := json.Marshal(in.Sequence)
	if err != nil {
		return nil, err
	}
	hf, err := json.Marshal(filters)
	if err != nil {
		return nil, err
	}
	if in.AccountIDs == nil {
		in.AccountIDs = []string{}
	}
	var cfg any // a nil RawMessage must be SQL NULL, not the JSON text "null"
	if in.SourceConfig != nil {
		cfg = string(in.SourceConfig)
	}
	return []any{in.Name, in.OutreachType, in.SourceType, cfg, in.DailyLimit, sched, seq, hf, in.AccountIDs}, nil
}

// GetCampaign reads one campaign of the organization with its prospect counts; another
// organization's campaign is ErrNotFound.
func (s *Store) GetCampaign(ctx context.Context, orgID, id string) (Campaign, error) {
	c, err := scanCampaign(s.pool.QueryRow(ctx, `SELECT `+campaignColumns+` FROM campaigns
		WHERE id = $1 AND org_id = $2`, id, orgID))
	if err != nil {
		return Campaign{}, notFound(err, "campaign "+id)
	}
	rows, err := s.pool.Query(ctx, `SELECT status, n FROM prospect_counts WHERE campaign_id = $1 AND n > 0`, id)
	if err != nil {
		return Campaign{}, err
	}
	counts, err := pgx.CollectRows(rows, pgx.RowToStructByPos[statusCount])
	if err != nil {
		return Campaign{}, err
	}
	for _, sc := range counts {
		c.ProspectCounts[sc.Status] = sc.N
	}
	return c, nil
}

type statusCount struct {
	Status string
	N      int
}

// ListCampaigns returns every campaign of the organization, newest first, with prospect counts.
// The list is not paginated (GET /campaigns takes no parameters); an organization has tens of
// campaigns, not thousands.
func (s *Store) ListCampaigns(ctx context.Context, orgID string) ([]Campaign, error) {
	return s.listCampaigns(ctx, orgID, 0, 0)
}

// ListCampaignsPage is one page of ListCampaigns (limit > 0) and the organization's number of
// campaigns.
func (s *Store) ListCampaignsPage(ctx context.Context, orgID string, limit, offset int) ([]Campaign, int, error) {
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM campaigns WHERE org_id = $1`, orgID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count campaigns: %w", err)
	}
	out, err := s.listCampaigns(ctx, orgID, limit, offset)
	return out, total, err
}

// listCampaigns reads the organization's campaigns newest first; limit 0 means all.
func (s *Store) listCampaigns(ctx context.Context, orgID string, limit, offset int) ([]Campaign, error) {
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	rows, err := s.pool.Query(ctx, `SELECT `+campaignColumns+` FROM campaigns WHERE org_id = $1
		ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, orgID, lim, offset)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Campaign, error) { return scanCampaign(r) })
	if err != nil {
		return nil, fmt.Errorf("list campaigns: %w", err)
	}
	if len(out) == 0 {
		return []Campaign{}, nil
	}
	byID := make(map[string]*Campaign, len(out))
	for i := range out {
		byID[out[i].ID] = &out[i]
	}
	crows, err := s.pool.Query(ctx, `SELECT campaign_id, status, n FROM prospect_counts
		WHERE org_id = $1 AND n > 0`, orgID)
	if err != nil {
		return nil, err
	}
	defer crows.Close()
	for crows.Next() {
		var id, status string
		var n int
		if err := crows.Scan(&id, &status, &n); err != nil {
			return nil, err
		}
		if c, ok := byID[id]; ok {
			c.ProspectCounts[status] = n
		}
	}
	return out, crows.Err()
}

// DuplicateCampaign copies a campaign of the organization into a new draft named after it with a
// copy suffix: "<name> (copy)", then "(copy 2)", "(copy 3)"… whichever is free in the
// organization. It copies the sequence, schedule, filters (re-stamped with the organization's
// current defaults), AI settings, LinkedIn seats, outreach and source settings and daily limit;
// never leads, stats, intake tokens or run dates.
func (s *Store) DuplicateCampaign(ctx context.Context, orgID, id string) (Campaign, error) {
	var c Campaign
	err := s.InTx(ctx, func(tx *Tx) error {
		// Locking the source serializes concurrent duplicates of it, so they pick distinct names.
		src, err := scanCampaign(tx.QueryRow(ctx, `SELECT `+campaignColumns+` FROM campaigns
			WHERE id = $1 AND org_id = $2 FOR UPDATE`, id, orgID))
		if err != nil {
			return notFound(err, "campaign "+id)
		}
		defaults, err := orgDefaultFilters(ctx, tx, orgID)
		if err != nil {
			return err
		}
		filters, err := src.HardFilters.Merge(defaults)
		if err != nil {
			return err
		}
		name, err := copyName(ctx, tx, orgID, src.Name)
		if err != nil {
			return err
		}
		copied := src.Settings()
		copied.Name = name
		c, err = insertCampaign(ctx, tx, orgID, copied, filters, src.AISettings)
		return err
	})
	if err != nil {
		return Campaign{}, outreach.WrapServerErr(err, "duplicate campaign")
	}
	return c, nil
}

// copyName picks the name of a copy of name (outreach.CopyName) among the organization's
// campaign names that could clash with it.
func copyName(ctx context.Context, tx *Tx, orgID, name string) (string, error) {
	rows, err := tx.Query(ctx, `SELECT name FROM campaigns WHERE org_id = $1 AND starts_with(name, $2)`,
		orgID, outreach.CopyNamePrefix(name))
	if err != nil {
		return "", err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", err
	}
	taken := make(map[string]bool, len(names))
	for _, n := range names {
		taken[n] = true
	}
	return outreach.CopyName(name, func(n string) bool { return taken[n] }), nil
}

// SetCampaignStatus moves a campaign to status and writes what the move causes
// (outreach.PlanStatusChange): the stamps of its run dates and its event with the campaign's
// stats, in the same transaction as the change.
func (s *Store) SetCampaignStatus(ctx context.Context, campaignID string, status outreach.CampaignStatus) (Campaign, error) {
	if _, err := outreach.ParseCampaignStatus(string(status)); err != nil {
		return Campaign{}, err
	}
	var c Campaign
	err := s.InTx(ctx, func(tx *Tx) error {
		cur, err := scanCampaign(tx.QueryRow(ctx, `SELECT `+campaignColumns+` FROM campaigns WHERE id = $1 FOR UPDATE`, campaignID))
		if err != nil {
			return notFound(err, "campaign "+campaignID)
		}
		change, err := outreach.PlanStatusChange(campaignID, cur.Status, cur.StartedAt != nil, status)
		if err != nil || change.None {
			c = cur
			return err
		}
		c, err = scanCampaign(tx.QueryRow(ctx, `UPDATE campaigns SET status = $2, updated_at = now(),
			started_at = CASE WHEN $3 THEN now() ELSE started_at END,
			completed_at = CASE WHEN $4 THEN now() ELSE completed_at END
			WHERE id = $1 RETURNING `+campaignColumns, campaignID, string(status), change.StampStarted, change.StampCompleted))
		if err != nil || change.Event == "" {
			return err
		}
		stats, err := campaignStats(ctx, tx, c.OrgID, campaignID)
		if err != nil {
			return err
		}
		tx.Emit(outreach.NewCampaignEvent(change.Event, c.OrgID, c.ID, c.Name, stats, c.UpdatedAt))
		return nil
	})
	if err != nil {
		return Campaign{}, outreach.WrapServerErr(err, "set campaign status")
	}
	return c, nil
}

// campaignStats computes the lifetime totals carried by campaign events, in one round trip (it
// runs in every transaction that emits an event tied to a campaign): the prospect counts by
// status, and the activity counters from the trigger-kept daily rollup (migration 025), which
// counts the same kinds of the same campaign's activities in a few rows per day.
func campaignStats(ctx context.Context, tx *Tx, orgID, campaignID string) (outreach.CampaignStats, error) {
	st := outreach.CampaignStats{ProspectsByStatus: map[string]int{}}
	err := tx.QueryRow(ctx, `SELECT
		(SELECT coalesce(jsonb_object_agg(status, n), '{}') FROM prospect_counts
			WHERE campaign_id = $1 AND org_id = $2 AND n > 0), `+activityTotalsSQL+`
		FROM activity_daily WHERE campaign_id = $1 AND org_id = $2`, campaignID, orgID,
	).Scan(append([]any{&st.ProspectsByStatus}, activityTotalsDest(&st.ActivityTotals)...)...)
	for _, n := range st.ProspectsByStatus {
		st.Prospects += n
	}
	return st, err
}

// fillCampaignStats gives every campaign block of tx's events that has no stats the campaign's
// lifetime totals as of this transaction, computed once per campaign: docs/api.md lists stats
// among the campaign block's fields, so every event tied to a campaign carries them, whichever
// code emitted it.
func fillCampaignStats(ctx context.Context, tx *Tx) error {
	var done map[string]*outreach.CampaignStats
	for _, ev := range tx.events {
		c := ev.Data.Campaign
		if c == nil || c.Stats != nil {
			continue
		}
		st, ok := done[c.ID]
		if !ok {
			s, err := campaignStats(ctx, tx, ev.OrgID, c.ID)
			if err != nil {
				return fmt.Errorf("campaign stats of %s: %w", c.ID, err)
			}
			if done == nil {
				done = map[string]*outreach.CampaignStats{}
			}
			st = &s
			done[c.ID] = st
		}
		c.Stats = st
	}
	return nil
}
