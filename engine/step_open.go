package engine

import (
	"context"

	"outreachd/outreach"
)

// checkOpenActions checks the sequence actions left open (an answer lost, an instance dead) of
// prospects no step will come back to, because a stop or block landed meanwhile: what the
// provider shows was carried out is recorded (the invitation or message did go out), and
// nothing more is sent. Profile views an instance did not live to finish are closed, counted.
// It returns how many actions it looked at.
func (e *Engine) checkOpenActions(ctx context.Context) (int, error) {
	if e.li == nil {
		return 0, nil
	}
	now := e.clock.Now()
	if err := closeStaleViews(ctx, e.db, now); err != nil {
		return 0, err
	}
	open, err := openActionsOutOfSequence(ctx, e.db, 20)
	if err != nil {
		return 0, err
	}
	for _, o := range open {
		c, err := getEngineCampaign(ctx, e.db, o[1])
		if err != nil {
			return 0, err
		}
		steps, _, err := outreach.ParseSequence(c.Sequence, c.OutreachType)
		if err != nil {
			e.log.Warn("engine: open action of a campaign whose sequence does not parse", "campaign", c.ID, "err", err)
			continue
		}
		if _, _, err := e.act(ctx, campaignRun{c: c, steps: steps}, o[0], now, true, nil); err != nil {
			e.log.Warn("engine: check an open action", "prospect", o[0], "err", err)
		}
	}
	return len(open), nil
}
