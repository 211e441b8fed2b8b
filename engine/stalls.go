package engine

import (
	"context"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// detectStalls emits conversation_stalled once per stall: a positive replier silent for
// StallDays. The stalls row (unique per prospect and last_activity_at) is what makes it once:
// a new message moves last_activity_at and so starts a new silence that may stall again.
func (e *Engine) detectStalls(ctx context.Context) (int, error) {
	now := e.clock.Now()
	cands, err := stallCandidates(ctx, e.db, now.Add(-days(e.cfg.StallDays)), 500)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range cands {
		err := e.store.InTx(ctx, func(tx *storage.Tx) error {
			ok, err := recordStall(ctx, tx, c, now)
			if err != nil || !ok {
				return err
			}
			p, err := lockEngineProspect(ctx, tx, c.ProspectID)
			if err != nil {
				return err
			}
			camp, err := getEngineCampaign(ctx, tx, c.CampaignID)
			if err != nil {
				return err
			}
			recent := []outreach.ConversationTurn{}
			if c.ChatID != nil {
				if recent, err = storage.RecentTurns(ctx, tx, *c.ChatID, outreach.MaxRecentConversation); err != nil {
					return err
				}
			}
			if recent == nil {
				recent = []outreach.ConversationTurn{}
			}
			tx.Emit(outreach.NewEvent(outreach.EventConversationStalled, c.OrgID, now, outreach.EventData{
				Prospect: p.Prospect.EventBlock(),
				Campaign: &outreach.CampaignBlock{ID: camp.ID, Name: camp.Name},
				Stalled: &outreach.StalledBlock{DaysSinceActivity: int(now.Sub(c.LastActivityAt) / (24 * time.Hour)),
					RecentConversation: recent},
			}))
			n++
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
