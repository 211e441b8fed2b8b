package engine

import (
	"context"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// digestAt is when the daily digest goes out: 13:05 UTC.
const digestAt = 13*time.Hour + 5*time.Minute

// sentimentSince is the first UTC day whose positive and negative replies are reported
// (split from 2026-07-02 on); the digest follows the same rule as GET /analytics/daily.
var sentimentSince = time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC)

// sendDigests emits, from 13:05 UTC on, each organization's daily_digest for the previous UTC
// day: the eight counters of GET /analytics/daily. digest_runs makes it once per organization and day, however
// many instances run and however late after 13:05 the engine gets to it that day.
func (e *Engine) sendDigests(ctx context.Context) (int, error) {
	now := e.clock.Now().UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	if now.Before(today.Add(digestAt)) {
		return 0, nil
	}
	day := today.AddDate(0, 0, -1)
	orgs, err := digestOrgsDue(ctx, e.db, day)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, org := range orgs {
		err := e.store.InTx(ctx, func(tx *storage.Tx) error {
			ok, err := claimDigest(ctx, tx, org, day, now)
			if err != nil || !ok {
				return err
			}
			stats, err := storage.PeriodCounts(ctx, tx, org, day, day)
			if err != nil {
				return err
			}
			if day.Before(sentimentSince) {
				stats.PositiveReplies, stats.NegativeReplies = 0, 0
			}
			period := day.Format(time.DateOnly)
			tx.Emit(outreach.NewEvent(outreach.EventDailyDigest, org, now, outreach.EventData{Report: &outreach.ReportBlock{
				Type: outreach.ReportTypeDailyDigest, Period: period, Stats: &stats,
				ShareURL: outreach.ReportURL(e.cfg.PublicURL, outreach.ReportTypeDailyDigest, period),
			}}))
			n++
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
