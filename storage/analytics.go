package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// SentimentSplitFrom is the first UTC day on which replies are split into positive and negative
// in the daily analytics; replies before it count only in replies.
var SentimentSplitFrom = time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC)

// OrgTotals is the organization analytics of GET /analytics, all time.
type OrgTotals struct {
	Campaigns         int
	TotalProspects    int
	ProspectsByStatus map[string]int
	// Outcomes counts prospects by their current outcome (outreach.CurrentOutcome); every
	// outcome is present, 0 when none.
	Outcomes map[string]int
}

// OrgAnalytics counts the organization's campaigns and its prospects by status.
func (s *Store) OrgAnalytics(ctx context.Context, orgID string) (OrgTotals, error) {
	t := OrgTotals{ProspectsByStatus: map[string]int{}, Outcomes: map[string]int{
		string(outreach.OutcomeInterested): 0, string(outreach.OutcomeLost): 0,
		string(outreach.OutcomeBooked): 0, string(outreach.OutcomeConverted): 0}}
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM campaigns WHERE org_id = $1`, orgID).Scan(&t.Campaigns); err != nil {
		return t, fmt.Errorf("count campaigns: %w", err)
	}
	// The outcome columns follow outreach.CurrentOutcome's precedence: converted > booked >
	// lost > interested.
	rows, err := s.pool.Query(ctx, `SELECT status, count(*),
			count(*) FILTER (WHERE converted_at IS NOT NULL),
			count(*) FILTER (WHERE converted_at IS NULL AND booked_at IS NOT NULL),
			count(*) FILTER (WHERE converted_at IS NULL AND booked_at IS NULL AND outcome_lost_at IS NOT NULL),
			count(*) FILTER (WHERE converted_at IS NULL AND booked_at IS NULL AND outcome_lost_at IS NULL
				AND outcome_interested_at IS NOT NULL)
		FROM prospects WHERE org_id = $1 GROUP BY status`, orgID)
	if err != nil {
		return t, fmt.Errorf("count prospects: %w", err)
	}
	var status string
	var n, converted, booked, lost, interested int
	_, err = pgx.ForEachRow(rows, []any{&status, &n, &converted, &booked, &lost, &interested}, func() error {
		t.ProspectsByStatus[status] = n
		t.Outcomes[string(outreach.OutcomeConverted)] += converted
		t.Outcomes[string(outreach.OutcomeBooked)] += booked
		t.Outcomes[string(outreach.OutcomeLost)] += lost
		t.Outcomes[string(outreach.OutcomeInterested)] += interested
		t.TotalProspects += n
		return nil
	})
	if err != nil {
		return t, fmt.Errorf("count prospects: %w", err)
	}
	return t, nil
}

// DailyQuery selects the rows of GET /analytics/daily. From and To are UTC days (inclusive);
// CampaignID and AccountID are optional filters ("" = all).
type DailyQuery struct {
	OrgID      string
	From, To   time.Time
	CampaignID string
	AccountID  string
}

// activityTotalsSQL sums activity_daily's seven shared counters, in the order activityTotalsDest
// scans them (outreach.ActivityTotals: a campaign's stats and a report's).
const activityTotalsSQL = `coalesce(sum(invites_sent), 0), coalesce(sum(connections_accepted), 0),
	coalesce(sum(messages_sent), 0), coalesce(sum(replies), 0), coalesce(sum(positive_replies), 0),
	coalesce(sum(negative_replies), 0), coalesce(sum(bookings), 0)`

func activityTotalsDest(a *outreach.ActivityTotals) []any {
	return []any{&a.InvitesSent, &a.ConnectionsAccepted, &a.MessagesSent, &a.Replies, &a.PositiveReplies,
		&a.NegativeReplies, &a.Bookings}
}

// DailyRow is one UTC day of GET /analytics/daily: the counters of a report, for that day.
type DailyRow struct {
	Day time.Time
	outreach.ReportStats
}

// DailyAnalytics returns one row per UTC day from q.From to q.To, zero-filled, counting only
// activities of the organization's own campaigns. It reads the activity_daily rollup that
// triggers keep in step with activities (migration 025), so its cost depends on the number of
// days, campaigns and accounts, not on the number of activities. A campaign or account of
// another organization simply matches nothing.
func (s *Store) DailyAnalytics(ctx context.Context, q DailyQuery) ([]DailyRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT g.day::date,
		coalesce(sum(d.invites_sent), 0), coalesce(sum(d.connections_accepted), 0),
		coalesce(sum(d.messages_sent), 0), coalesce(sum(d.replies), 0),
		CASE WHEN g.day::date >= $6::date THEN coalesce(sum(d.positive_replies), 0) ELSE 0 END,
		CASE WHEN g.day::date >= $6::date THEN coalesce(sum(d.negative_replies), 0) ELSE 0 END,
		coalesce(sum(d.bookings), 0), coalesce(sum(d.invites_withdrawn), 0)
		FROM generate_series($2::date, $3::date, interval '1 day') AS g(day)
		LEFT JOIN activity_daily d ON d.org_id = $1 AND d.day = g.day::date
			AND ($4 = '' OR d.campaign_id = $4)
			AND ($5 = '' OR d.account_id = $5)
			AND d.campaign_id IN (SELECT c.id FROM campaigns c WHERE c.org_id = $1)
		GROUP BY g.day ORDER BY g.day`,
		q.OrgID, q.From.Format(time.DateOnly), q.To.Format(time.DateOnly), q.CampaignID, q.AccountID,
		SentimentSplitFrom.Format(time.DateOnly))
	if err != nil {
		return nil, fmt.Errorf("daily analytics: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (DailyRow, error) {
		var r DailyRow
		err := row.Scan(append(append([]any{&r.Day}, activityTotalsDest(&r.ActivityTotals)...), &r.InvitesWithdrawn)...)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("daily analytics: %w", err)
	}
	return out, nil
}

// ConversionCounts are the client conversion events an organization recorded
// (POST /api/webhooks/conversions), all time.
type ConversionCounts struct {
	Recorded int // every event recorded (duplicates within the window are not)
	Matched  int // those matched to a prospect of a campaign
}

// OrgConversions counts the organization's recorded conversions.
func (s *Store) OrgConversions(ctx context.Context, orgID string) (ConversionCounts, error) {
	var c ConversionCounts
	err := s.pool.QueryRow(ctx, `SELECT count(*), count(prospect_id) FROM conversions WHERE org_id = $1`, orgID).
		Scan(&c.Recorded, &c.Matched)
	if err != nil {
		return c, fmt.Errorf("count conversions: %w", err)
	}
	return c, nil
}
