package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"outreachd/engine"
	"outreachd/outreach"
)

// Operator commands of the outreach engine: connecting a LinkedIn seat on the
// configured provider and `simulate ...`, which reports what LinkedIn would. A simulate
// command files a report in the same inbox the provider's reports enter (provider_reports);
// a serving engine re-enacts it on its simulator and handles it, or, with no engine serving,
// this process handles it with the same handler (engine/reports.go).

// simulateWait bounds how long a simulate command waits for a serving engine.
const simulateWait = 20 * time.Second

func adminAccountConnect(ctx context.Context, env *adminEnv, fs *flag.FlagSet, args []string) (any, error) {
	org := fs.String("org", "", "organization id")
	name := fs.String("name", "", "the seat's name (the LinkedIn member's name)")
	providerID := fs.String("provider-account-id", "", "an account Unipile already holds (LINKEDIN_PROVIDER=unipile)")
	if err := parseFlags(fs, args, "org", "name"); err != nil {
		return nil, err
	}
	n, err := outreach.SeatName(*name)
	if err != nil {
		return nil, fmt.Errorf("--name: %w", err)
	}
	if _, err := env.store.GetOrg(ctx, *org); err != nil {
		return nil, err
	}
	if env.cfg.LinkedInProvider == "unipile" {
		return unipileConnect(ctx, env, *org, n, strings.TrimSpace(*providerID))
	}
	if *providerID != "" {
		return nil, outreach.Invalidf("--provider-account-id binds a Unipile account; set LINKEDIN_PROVIDER=unipile")
	}
	// The simulator derives a seat's id from organization and name, so the serving process's
	// simulator gives the same seat the same id when it learns of it.
	sim, err := newSimulator(env.cfg, outreach.SystemClock{})
	if err != nil {
		return nil, err
	}
	acc, err := (simulatedSeats{sim: sim, q: env.store.Pool()}).Connect(ctx, *org, n)
	if err != nil {
		return nil, err
	}
	return map[string]any{"account_id": acc.ID}, nil
}

// unipileConnect binds the Unipile account providerID as the seat (once Unipile confirms it
// holds it), or without an id makes a sign-in link through which a person connects one; the
// link's call-back reaches the serving instance at its recorded PUBLIC_URL.
func unipileConnect(ctx context.Context, env *adminEnv, orgID, name, providerID string) (any, error) {
	origin, err := serverPublicURL(ctx, env)
	if err != nil {
		return nil, err
	}
	parts, err := newUnipileParts(env.cfg, env.store, origin)
	if err != nil {
		return nil, err
	}
	if providerID == "" {
		link, err := parts.seats.ConnectLink(ctx, orgID, name)
		if err != nil {
			return nil, err
		}
		return map[string]any{"connect_url": link.URL, "expires_at": outreach.FormatTime(link.ExpiresAt)}, nil
	}
	if err := parts.seats.CheckAccount(ctx, providerID); err != nil {
		return nil, err
	}
	acc, err := engine.ConnectSeat(ctx, env.store.Pool(), orgID, name, providerID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"account_id": acc.ID}, nil
}

// adminAccountList is `account list --org O`: the organization's seats as engine.SeatRows
// builds them.
func adminAccountList(ctx context.Context, env *adminEnv, fs *flag.FlagSet, args []string) (any, error) {
	org := fs.String("org", "", "organization id")
	if err := parseFlags(fs, args, "org"); err != nil {
		return nil, err
	}
	if _, err := env.store.GetOrg(ctx, *org); err != nil {
		return nil, err
	}
	rows, err := engine.SeatRows(ctx, env.store.Pool(), *org, engine.EngineNow(ctx, env.store.Pool()))
	if err != nil {
		return nil, err
	}
	return map[string]any{"data": rows}, nil
}

func adminEngine(env *adminEnv) (*engine.Engine, error) {
	d, err := newDrafter(env.cfg)
	if err != nil {
		return nil, err
	}
	return engine.New(env.store, nil, d, outreach.SystemClock{}, nil,
		engine.Config{PublicURL: env.cfg.PublicURL, Traces: env.cfg.Traces})
}

// simulateProspect is `simulate accept|reply --prospect P [--text T]`.
func simulateProspect(kind outreach.LinkedInReportKind) adminCommand {
	return func(ctx context.Context, env *adminEnv, fs *flag.FlagSet, args []string) (any, error) {
		prospect := fs.String("prospect", "", "prospect id")
		text := fs.String("text", "", "the person's message")
		required := []string{"prospect"}
		if kind == outreach.ReportMessageReceived {
			required = append(required, "text")
		}
		if err := parseFlags(fs, args, required...); err != nil {
			return nil, err
		}
		if kind != outreach.ReportMessageReceived && *text != "" {
			return nil, outreach.Invalidf("--text is only for simulate reply")
		}
		eng, err := adminEngine(env)
		if err != nil {
			return nil, err
		}
		res, err := eng.Simulate(ctx, engine.OperatorReport{Kind: kind, ProspectID: *prospect, Text: *text}, simulateWait)
		if err != nil {
			return nil, err
		}
		out := map[string]any{"ok": true}
		if kind == outreach.ReportMessageReceived {
			out["chat_id"] = res["chat_id"]
		}
		return out, nil
	}
}

// simulateAccount is `simulate disconnect|reconnect|rate-limit|sales-nav-lapse|sales-nav-restore --account A`.
func simulateAccount(kind outreach.LinkedInReportKind) adminCommand {
	return func(ctx context.Context, env *adminEnv, fs *flag.FlagSet, args []string) (any, error) {
		account := fs.String("account", "", "LinkedIn account id (from admin account connect)")
		var cooldown *time.Duration
		if kind == outreach.ReportAccountRateLimited {
			cooldown = fs.Duration("cooldown", 24*time.Hour, "how long invitations are refused")
		}
		if err := parseFlags(fs, args, "account"); err != nil {
			return nil, err
		}
		in := engine.OperatorReport{Kind: kind, AccountID: *account}
		if cooldown != nil {
			if *cooldown <= 0 {
				return nil, outreach.Invalidf("--cooldown must be positive")
			}
			in.Cooldown = *cooldown
		}
		eng, err := adminEngine(env)
		if err != nil {
			return nil, err
		}
		if _, err := eng.Simulate(ctx, in, simulateWait); err != nil {
			return nil, err
		}
		return map[string]any{"ok": true}, nil
	}
}

var (
	adminSimulateAccept         = simulateProspect(outreach.ReportInviteAccepted)
	adminSimulateReply          = simulateProspect(outreach.ReportMessageReceived)
	adminSimulateDisconnect     = simulateAccount(outreach.ReportAccountDisconnected)
	adminSimulateReconnect      = simulateAccount(outreach.ReportAccountReconnected)
	adminSimulateRateLimit      = simulateAccount(outreach.ReportAccountRateLimited)
	adminSimulateSalesNavLapse  = simulateAccount(outreach.ReportSalesNavUnavailable)
	adminSimulateSalesNavReturn = simulateAccount(outreach.ReportSalesNavRestored)
)
