package storage

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"outreachd/outreach"
)

// IntakeTarget is what a live intake token opens: one campaign of one organization.
type IntakeTarget struct {
	OrgID      string
	CampaignID string
}

// CreateIntakeToken makes a new intake token for a campaign, revoking any previous one in the
// same transaction: "create" and "rotate" are the same act, and a replaced token stops working
// the moment the new one exists. Only the token's hash is stored.
func (s *Store) CreateIntakeToken(ctx context.Context, campaignID string) (string, error) {
	var raw [24]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	token := "itk_" + base64.RawURLEncoding.EncodeToString(raw[:])
	err := s.InTx(ctx, func(tx *Tx) error {
		var orgID string
		if err := tx.QueryRow(ctx, `SELECT org_id FROM campaigns WHERE id = $1 FOR UPDATE`, campaignID).Scan(&orgID); err != nil {
			return notFound(err, "campaign "+campaignID)
		}
		if _, err := tx.Exec(ctx, `UPDATE intake_tokens SET revoked_at = now() WHERE campaign_id = $1 AND revoked_at IS NULL`, campaignID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO intake_tokens (token_hash, campaign_id, org_id) VALUES ($1, $2, $3)`,
			HashKey(token), campaignID, orgID)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("create intake token: %w", err)
	}
	return token, nil
}

// RevokeIntakeToken kills the campaign's live token, if any.
func (s *Store) RevokeIntakeToken(ctx context.Context, campaignID string) error {
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM campaigns WHERE id = $1)`, campaignID).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		return fmt.Errorf("campaign %s: %w", campaignID, outreach.ErrNotFound)
	}
	_, err := s.pool.Exec(ctx, `UPDATE intake_tokens SET revoked_at = now() WHERE campaign_id = $1 AND revoked_at IS NULL`, campaignID)
	return err
}

// ResolveIntakeToken finds the campaign a live token opens; unknown, replaced and revoked
// tokens are outreach.ErrNotFound.
func (s *Store) ResolveIntakeToken(ctx context.Context, token string) (IntakeTarget, error) {
	var t IntakeTarget
	err := s.pool.QueryRow(ctx, `SELECT org_id, campaign_id FROM intake_tokens
		WHERE token_hash = $1 AND revoked_at IS NULL`, HashKey(token)).Scan(&t.OrgID, &t.CampaignID)
	if err != nil {
		return IntakeTarget{}, notFound(err, "intake token")
	}
	return t, nil
}
