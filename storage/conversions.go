package storage

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// Conversion is one client conversion event. ProfileKey is the lead key of
// LinkedInID when it could be read, and Email is already lower-cased; both are only used to
// find the prospect the conversion is about.
type Conversion struct {
	OrgID        string
	EventType    string
	LinkedInID   *string
	ProfileKey   string
	ProspectName *string
	Email        *string
	Meta         []byte // raw JSON or nil
	// DedupeKey identifies the event for the duplicate window (meta excluded).
	DedupeKey []byte
}

// ConversionResult says what RecordConversion did.
type ConversionResult struct {
	ID         string
	Deduped    bool
	ProspectID *string
}

// RecordConversion records a conversion unless an identical one (same DedupeKey) was recorded
// within window, and logs it as a 'conversion' activity of the prospect it matches, if any.
// Concurrent identical events are serialized on a transaction-scoped advisory lock on the key,
// so exactly one of them is recorded.
func (s *Store) RecordConversion(ctx context.Context, c Conversion, window time.Duration) (ConversionResult, error) {
	var res ConversionResult
	h := sha256.Sum256(append([]byte(c.OrgID+"\x00"), c.DedupeKey...))
	lockKey := int64(binary.BigEndian.Uint64(h[:8]))
	err := s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockKey); err != nil {
			return err
		}
		var dup bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM conversions WHERE org_id = $1 AND dedupe_key = $2
			AND created_at > now() - make_interval(secs => $3))`, c.OrgID, c.DedupeKey, window.Seconds()).Scan(&dup); err != nil {
			return err
		}
		if dup {
			res.Deduped = true
			return nil
		}
		var campaignID *string
		if c.ProfileKey != "" || c.Email != nil {
			var pid, cid string
			err := tx.QueryRow(ctx, `SELECT id, campaign_id FROM prospects
				WHERE org_id = $1 AND (($2 <> '' AND lead_key = $2) OR ($3::text IS NOT NULL AND lower(email) = $3))
				ORDER BY ($2 <> '' AND lead_key = $2) DESC, created_at DESC LIMIT 1`, c.OrgID, c.ProfileKey, c.Email).Scan(&pid, &cid)
			if err == nil {
				res.ProspectID, campaignID = &pid, &cid
			} else if !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
		}
		res.ID = outreach.NewID("cnv")
		if _, err := tx.Exec(ctx, `INSERT INTO conversions (id, org_id, event_type, linkedin_id, prospect_name, prospect_email, meta, dedupe_key, prospect_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, res.ID, c.OrgID, c.EventType, c.LinkedInID, c.ProspectName, c.Email,
			c.Meta, c.DedupeKey, res.ProspectID); err != nil {
			return fmt.Errorf("insert conversion: %w", err)
		}
		_, err := tx.Exec(ctx, `INSERT INTO activities (org_id, campaign_id, prospect_id, kind) VALUES ($1, $2, $3, 'conversion')`,
			c.OrgID, campaignID, res.ProspectID)
		return err
	})
	if err != nil {
		return ConversionResult{}, fmt.Errorf("record conversion: %w", err)
	}
	return res, nil
}
