package main

import (
	"context"
	"flag"

	"outreachd/outreach"
)

// adminCampaignSetStatus is `admin campaign set-status --campaign C --status S`:
// the application's launch, pause, complete and archive buttons. Launching is `active`.
func adminCampaignSetStatus(ctx context.Context, env *adminEnv, fs *flag.FlagSet, args []string) (any, error) {
	campaign := fs.String("campaign", "", "campaign id")
	status := fs.String("status", "", "draft, active, paused, completed or archived")
	if err := parseFlags(fs, args, "campaign", "status"); err != nil {
		return nil, err
	}
	st, err := outreach.ParseCampaignStatus(*status)
	if err != nil {
		return nil, err
	}
	c, err := env.store.SetCampaignStatus(ctx, *campaign, st)
	if err != nil {
		return nil, err
	}
	return map[string]any{"campaign_id": c.ID, "status": string(c.Status)}, nil
}
