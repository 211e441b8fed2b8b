package storage

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// IntakeTarget is what a live intake token opens: one campaign of one organization.
type IntakeTarget struct {
	OrgID      string
	CampaignID string
	// Bucket names the token's own rate-limit budget (a prefix of its hash, never the token).
	Bucket string
}

// IntakeToken is a campaign's live intake token as the API shows it. Token is empty when it
// cannot be shown: only its hash is known (made before tokens were also kept sealed).
type IntakeToken struct {
	CampaignID string
	Token      string
	CreatedAt  time.Time
	// Replaced is set by CreateIntakeToken when a live token was revoked for the new one.
	Replaced bool
}

// SealFunc seals a secret for storage; OpenFunc reverses it (delivery.SecretBox).
type (
	SealFunc func(plaintext string) (string, error)
	OpenFunc func(sealed string) (string, error)
)

// campaignInOrg locks the campaign row and checks it belongs to orgID ("" = any organization,
// the operator CLI); another organization's campaign is outreach.ErrNotFound.
func campaignInOrg(ctx context.Context, tx pgx.Tx, orgID, campaignID string) (string, error) {
	var owner string
	err := tx.QueryRow(ctx, `SELECT org_id FROM campaigns WHERE id = $1 FOR UPDATE`, campaignID).Scan(&owner)
	if err != nil {
		return "", notFound(err, "campaign "+campaignID)
	}
	if orgID != "" && owner != orgID {
		return "", outreach.NotFound("campaign %s", campaignID)
	}
	return owner, nil
}

// CreateIntakeToken makes a new intake token for a campaign of orgID ("" = any), revoking any
// previous one in the same transaction: "create" and "rotate" are the same act, and a replaced
// token stops working the moment the new one exists. The token's hash is what intake looks
// up; a sealed copy (seal) lets the URL be shown again. seal may be nil (no copy kept).
func (s *Store) CreateIntakeToken(ctx context.Context, orgID, campaignID string, seal SealFunc) (IntakeToken, error) {
	var raw [24]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return IntakeToken{}, err
	}
	out := IntakeToken{CampaignID: campaignID, Token: "itk_" + base64.RawURLEncoding.EncodeToString(raw[:])}
	var sealed *string
	if seal != nil {
		v, err := seal(out.Token)
		if err != nil {
			return IntakeToken{}, fmt.Errorf("seal intake token: %w", err)
		}
		sealed = &v
	}
	err := s.InTx(ctx, func(tx *Tx) error {
		owner, err := campaignInOrg(ctx, tx, orgID, campaignID)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE intake_tokens SET revoked_at = now() WHERE campaign_id = $1 AND revoked_at IS NULL`, campaignID)
		if err != nil {
			return err
		}
		out.Replaced = tag.RowsAffected() > 0
		return tx.QueryRow(ctx, `INSERT INTO intake_tokens (token_hash, campaign_id, org_id, token_sealed) VALUES ($1, $2, $3, $4)
			RETURNING created_at`, HashKey(out.Token), campaignID, owner, sealed).Scan(&out.CreatedAt)
	})
	if err != nil {
		return IntakeToken{}, fmt.Errorf("create intake token: %w", err)
	}
	return out, nil
}

// IntakeTokenOf returns the campaign's live token (ok false when it has none), opening its
// sealed copy with open. A campaign of another organization is outreach.ErrNotFound.
func (s *Store) IntakeTokenOf(ctx context.Context, orgID, campaignID string, open OpenFunc) (tok IntakeToken, ok bool, err error) {
	var sealed *string
	var createdAt *time.Time
	err = s.pool.QueryRow(ctx, `SELECT t.token_sealed, t.created_at FROM campaigns c
		LEFT JOIN intake_tokens t ON t.campaign_id = c.id AND t.revoked_at IS NULL
		WHERE c.id = $1 AND c.org_id = $2`, campaignID, orgID).Scan(&sealed, &createdAt)
	if err != nil {
		return IntakeToken{}, false, notFound(err, "campaign "+campaignID)
	}
	if createdAt == nil {
		return IntakeToken{CampaignID: campaignID}, false, nil
	}
	tok = IntakeToken{CampaignID: campaignID, CreatedAt: *createdAt}
	if sealed != nil && open != nil {
		if tok.Token, err = open(*sealed); err != nil {
			return IntakeToken{}, false, fmt.Errorf("open intake token of %s: %w", campaignID, err)
		}
	}
	return tok, true, nil
}

// RevokeIntakeToken kills the campaign's live token, if any, and says whether there was one.
// orgID "" means any organization (the operator CLI).
func (s *Store) RevokeIntakeToken(ctx context.Context, orgID, campaignID string) (bool, error) {
	revoked := false
	err := s.InTx(ctx, func(tx *Tx) error {
		if _, err := campaignInOrg(ctx, tx, orgID, campaignID); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE intake_tokens SET revoked_at = now() WHERE campaign_id = $1 AND revoked_at IS NULL`, campaignID)
		revoked = tag.RowsAffected() > 0
		return err
	})
	if err != nil {
		return false, fmt.Errorf("revoke intake token: %w", err)
	}
	return revoked, nil
}

// ResolveIntakeToken finds the campaign a live token opens; unknown, replaced and revoked
// tokens are outreach.ErrNotFound.
func (s *Store) ResolveIntakeToken(ctx context.Context, token string) (IntakeTarget, error) {
	var t IntakeTarget
	hash := HashKey(token)
	err := s.pool.QueryRow(ctx, `SELECT org_id, campaign_id FROM intake_tokens
		WHERE token_hash = $1 AND revoked_at IS NULL`, hash).Scan(&t.OrgID, &t.CampaignID)
	if err != nil {
		return IntakeTarget{}, notFound(err, "intake token")
	}
	t.Bucket = "intake:" + hex.EncodeToString(hash[:8])
	return t, nil
}

// Service settings a serving instance records for the operator CLI.
const settingPublicURL = "public_url"

// RecordPublicURL stores the PUBLIC_URL the serving instance answers on (the last one started
// wins), so the operator CLI builds intake URLs on the server's origin, not its own.
func (s *Store) RecordPublicURL(ctx context.Context, url string) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO service_settings (name, value) VALUES ($1, $2)
		ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`, settingPublicURL, url)
	if err != nil {
		return fmt.Errorf("record public url: %w", err)
	}
	return nil
}

// RecordedPublicURL is the PUBLIC_URL a serving instance recorded, "" when none has.
func (s *Store) RecordedPublicURL(ctx context.Context) (string, error) {
	var url string
	err := s.pool.QueryRow(ctx, `SELECT value FROM service_settings WHERE name = $1`, settingPublicURL).Scan(&url)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read recorded public url: %w", err)
	}
	return url, nil
}
