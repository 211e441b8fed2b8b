package storage

import (
	"context"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// UpdateDraftCampaign changes a draft of the organization. edit gets the draft's settings as
// stored and returns the new ones (outreach.CampaignRequest.Edit); they are stored with the
// organization's default filters merged in again, as on create, in one transaction with the
// draft's row locked. A campaign that is no longer a draft is outreach.ErrConflict.
func (s *Store) UpdateDraftCampaign(ctx context.Context, orgID, id string,
	edit func(outreach.CampaignSettings) (outreach.CampaignSettings, error),
) (Campaign, error) {
	err := s.InTx(ctx, func(tx *Tx) error {
		cur, err := scanCampaign(tx.QueryRow(ctx, `SELECT `+campaignColumns+` FROM campaigns
			WHERE id = $1 AND org_id = $2 FOR UPDATE`, id, orgID))
		if err != nil {
			return notFound(err, "campaign "+id)
		}
		if !cur.Status.Editable() {
			return outreach.Conflictf("campaign %s is %s; only a draft can be edited", id, cur.Status)
		}
		in, err := edit(cur.Settings())
		if err != nil {
			return err
		}
		merged, err := settingsOf(ctx, tx, orgID, in)
		if err != nil {
			return err
		}
		return updateCampaign(ctx, tx, id, in, merged)
	})
	if err != nil {
		return Campaign{}, outreach.WrapServerErr(err, "update campaign")
	}
	return s.GetCampaign(ctx, orgID, id)
}

func updateCampaign(ctx context.Context, tx *Tx, id string, in outreach.CampaignSettings, filters outreach.HardFilters) error {
	cols, err := settingsValues(in, filters)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE campaigns SET name = $2, outreach_type = $3, source_type = $4,
		source_config = $5::jsonb, daily_limit = $6, schedule = $7, sequence = $8, hard_filters = $9,
		account_ids = $10, updated_at = now() WHERE id = $1`, append([]any{id}, cols...)...)
	return err
}

// settingsOf checks a create's or an edit's settings against the organization: its seats, and
// its default filters, which it returns merged into the campaign's own (a clash between the two
// is outreach.ErrInvalidFilters).
func settingsOf(ctx context.Context, tx *Tx, orgID string, in outreach.CampaignSettings) (outreach.HardFilters, error) {
	defaults, err := orgDefaultFilters(ctx, tx, orgID)
	if err != nil {
		return outreach.HardFilters{}, err
	}
	merged, err := in.HardFilters.Merge(defaults)
	if err != nil {
		return outreach.HardFilters{}, err
	}
	return merged, checkSeatsOf(ctx, tx, orgID, in.AccountIDs)
}

// checkSeatsOf refuses seats that are not LinkedIn accounts of the organization, naming the
// first one.
func checkSeatsOf(ctx context.Context, tx *Tx, orgID string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT id FROM linkedin_accounts WHERE org_id = $1 AND id = ANY($2)`, orgID, ids)
	if err != nil {
		return err
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	have := make(map[string]bool, len(found))
	for _, f := range found {
		have[f] = true
	}
	for i, id := range ids {
		if !have[id] {
			return outreach.Invalidf("account_ids[%d] %s is not a LinkedIn account of this organization", i, id)
		}
	}
	return nil
}
