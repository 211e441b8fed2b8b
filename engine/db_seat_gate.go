package engine

import (
	"context"
	"time"

	"outreachd/storage"
)

// A seat's gate: its status, pace (next_action_at) and caps with what it used of them, read
// under the seat's row lock before an action starts, so that instances taking actions on one
// seat at once are serialised and the caps are exact.

// seatGate is a seat as the gate sees it at one engine time.
type seatGate struct {
	acc    storage.LinkedInAccount
	next   *time.Time // next_action_at: the seat may not act before it
	limits SeatLimits
	use    SeatUse
	day    seatDay
}

// seatGateColumns follow storage.LinkedInAccountColumns (prefixed a.) in readSeatGate's order.
const seatGateColumns = `, a.next_action_at, a.invites_per_day, a.invites_per_week, a.messages_per_day,
	a.profile_views_per_day, a.max_pending_invites,
	coalesce((SELECT c.schedule->>'timezone' FROM campaigns c WHERE c.org_id = a.org_id AND c.status = 'active'
		AND (a.id = ANY(c.account_ids) OR cardinality(c.account_ids) = 0)
		ORDER BY (a.id = ANY(c.account_ids)) DESC, c.created_at, c.id LIMIT 1), 'UTC')`

// readSeatGate reads seat id with its caps and use at now; lock takes the seat's row lock
// for the transaction q is.
func readSeatGate(ctx context.Context, q storage.Querier, id string, now time.Time, lock bool) (seatGate, error) {
	var g seatGate
	var caps [5]*int
	var zone string
	sql := `SELECT ` + prefixedSeatColumns + seatGateColumns + ` FROM linkedin_accounts a WHERE a.id = $1`
	if lock {
		sql += ` FOR UPDATE OF a`
	}
	acc, err := storage.ScanLinkedInAccount(engExtraRow{row: q.QueryRow(ctx, sql, id),
		extra: []any{&g.next, &caps[0], &caps[1], &caps[2], &caps[3], &caps[4], &zone}})
	if err != nil {
		return g, storage.NotFound(err, "linkedin account "+id)
	}
	g.acc = acc
	g.limits = DefaultSeatLimits()
	for i, dst := range []*int{&g.limits.InvitesPerDay, &g.limits.InvitesPerWeek, &g.limits.MessagesPerDay,
		&g.limits.ProfileViewsPerDay, &g.limits.MaxPending} {
		if caps[i] != nil {
			*dst = *caps[i]
		}
	}
	g.day = dayOf(zone, now)
	g.use, err = seatUse(ctx, q, id, g.day.start, now.Add(-7*24*time.Hour))
	return g, err
}

// prefixedSeatColumns is storage.LinkedInAccountColumns on the alias a.
const prefixedSeatColumns = `a.id, a.org_id, a.name, a.provider_account_id, a.status, a.cooldown_until,
	a.disconnected_at, a.disconnected_by, a.sn_verdict, a.sn_changed_at, a.created_at`

// seatUse counts what a seat did since dayStart (invitations, messages and replies, profile
// views) and since weekStart (invitations), and its pending invitations. Actions that surely
// did not happen (failed) do not count; those whose outcome is not known yet do.
func seatUse(ctx context.Context, q storage.Querier, id string, dayStart, weekStart time.Time) (SeatUse, error) {
	var u SeatUse
	err := q.QueryRow(ctx, `SELECT
			count(*) FILTER (WHERE kind = 'invite' AND started_at >= $2),
			count(*) FILTER (WHERE kind = 'invite' AND started_at > $3),
			count(*) FILTER (WHERE kind IN ('message', 'reply') AND started_at >= $2),
			count(*) FILTER (WHERE kind = 'profile_view' AND started_at >= $2),
			(SELECT count(*) FROM prospects WHERE account_id = $1
				AND invited_at IS NOT NULL AND connected_at IS NULL AND withdrawn_at IS NULL)
		FROM linkedin_actions WHERE account_id = $1 AND state <> 'failed' AND started_at >= LEAST($2::timestamptz, $3::timestamptz)`,
		id, dayStart, weekStart).Scan(&u.InvitesToday, &u.InvitesThisWeek, &u.MessagesToday, &u.ProfileViewsToday, &u.PendingInvites)
	return u, err
}

// claimSeatSlot moves a seat's next_action_at to at: the seat's next action waits until then.
func claimSeatSlot(ctx context.Context, q storage.Querier, id string, at time.Time) error {
	_, err := q.Exec(ctx, `UPDATE linkedin_accounts SET next_action_at = $2 WHERE id = $1`, id, at)
	return err
}

// gateVerdict is whether a seat may take an action now.
type gateVerdict struct {
	down   bool      // disconnected, or rate limited for an invitation: stop the seat for now
	wait   time.Time // set when the seat may not act before then (its pace, or a cap)
	capped string    // the cap that was reached, when one was
}

// admit decides whether the seat may take an action of kind now (lookUp: an invitation that
// first looks the person up, a profile view too).
func (g seatGate) admit(kind string, lookUp bool, now time.Time) gateVerdict {
	switch {
	case g.acc.Status == "disconnected":
		return gateVerdict{down: true}
	case kind == actInvite && g.acc.Status == "rate_limited" && g.acc.CooldownUntil != nil && g.acc.CooldownUntil.After(now):
		return gateVerdict{down: true, wait: *g.acc.CooldownUntil}
	}
	if reason, until, hit := g.limits.capHit(g.use, kind, lookUp, g.day, now); hit {
		return gateVerdict{wait: until, capped: reason}
	}
	if g.next != nil && g.next.After(now) {
		return gateVerdict{wait: *g.next}
	}
	return gateVerdict{}
}
