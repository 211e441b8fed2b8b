package engine

import (
	"context"
	"fmt"
	"hash/fnv"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// Simulated content: posts, market analyses and weekly reports come from outside this service
// (the application's content and research features). With a simulated LinkedIn the engine
// stands in for them on the engine clock, so every event kind has a producer:
// each organization with a connected seat schedules a post at 09:00 UTC for 15:00 UTC and
// publishes it then, and every Monday from 08:00 UTC gets a market analysis and a weekly
// summary of the previous Monday-Sunday. content_runs makes each one happen once.

var postTexts = []string{
	"Three things we learned cutting our reporting time in half.",
	"Most outreach fails on timing, not on copy. Here is what we changed.",
	"We asked 40 heads of growth what they would automate first. The answers surprised us.",
	"A short checklist before you launch your next campaign.",
	"What a good first message looks like, in five lines.",
}

func pick(parts ...string) uint32 {
	h := fnv.New32a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum32()
}

func (e *Engine) simulateContent(ctx context.Context) (int, error) {
	now := e.clock.Now().UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	accs, err := contentOrgs(ctx, e.db)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, acc := range accs {
		day := today.Format(time.DateOnly)
		text := postTexts[pick(acc.OrgID, day)%uint32(len(postTexts))]
		publishAt := today.Add(15 * time.Hour)
		var evs []outreach.Event
		if now.After(today.Add(9 * time.Hour)) {
			evs = append(evs, outreach.NewEvent(outreach.EventPostScheduled, acc.OrgID, now, outreach.EventData{
				Post: &outreach.PostBlock{Text: text, ScheduledTime: outreach.FormatTime(publishAt)}}))
		}
		if !now.Before(publishAt) {
			evs = append(evs, outreach.NewEvent(outreach.EventPostPublished, acc.OrgID, now, outreach.EventData{
				Post: &outreach.PostBlock{Text: text, URL: fmt.Sprintf("https://www.linkedin.com/feed/update/urn:li:activity:%d",
					7_200_000_000_000_000_000+uint64(pick(acc.OrgID, day, "post")))}}))
		}
		if now.Weekday() == time.Monday && !now.Before(today.Add(8*time.Hour)) {
			from, to := today.AddDate(0, 0, -7), today.AddDate(0, 0, -1)
			period := from.Format(time.DateOnly) + "/" + to.Format(time.DateOnly)
			evs = append(evs,
				outreach.NewEvent(outreach.EventMarketAnalysisGenerated, acc.OrgID, now, outreach.EventData{Report: &outreach.ReportBlock{
					Type: outreach.ReportTypeMarketAnalysis, Period: period,
					ShareURL: outreach.ReportURL(e.cfg.PublicURL, outreach.ReportTypeMarketAnalysis, from.Format(time.DateOnly))}}),
				outreach.NewEvent(outreach.EventReportGenerated, acc.OrgID, now, outreach.EventData{Report: &outreach.ReportBlock{
					Type: outreach.ReportTypeWeeklySummary, Period: period,
					ShareURL: outreach.ReportURL(e.cfg.PublicURL, outreach.ReportTypeWeeklySummary, from.Format(time.DateOnly))}}))
		}
		for _, ev := range evs {
			err := e.store.InTx(ctx, func(tx *storage.Tx) error {
				period := day
				if ev.Data.Report != nil {
					period = ev.Data.Report.Period
				}
				ok, err := claimContentRun(ctx, tx, acc.OrgID, string(ev.Kind), period, now)
				if err != nil || !ok {
					return err
				}
				if ev.Kind == outreach.EventReportGenerated {
					from, _ := time.Parse(time.DateOnly, period[:10])
					stats, err := storage.PeriodCounts(ctx, tx, acc.OrgID, from, from.AddDate(0, 0, 6))
					if err != nil {
						return err
					}
					ev.Data.Report.Stats = &stats
				}
				tx.Emit(ev)
				n++
				return nil
			})
			if err != nil {
				return n, err
			}
		}
	}
	return n, nil
}
