package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"outreachd/outreach"
	"outreachd/storage"
)

type stopInput struct {
	LinkedInURLs []string `json:"linkedin_urls" jsonschema:"1 to 200 people: LinkedIn profile URLs, handles or member ids"`
}

type blockInput struct {
	LinkedInURLs []string `json:"linkedin_urls" jsonschema:"1 to 200 people: LinkedIn profile URLs, handles or member ids"`
	Reason       string   `json:"reason,omitempty" jsonschema:"why, as the person said it (kept on the do-not-contact entry; at most 500 characters)"`
}

const maxPeople = 200

func peopleBounds(sc *jsonschema.Schema) {
	array(sc, "linkedin_urls", 1, maxPeople)
}

// messagingTools stop or block people: every automated message to them ends.
func (s *Server) messagingTools() []*toolDef {
	return []*toolDef{
		writeTool(s, "stop_person", "Stop messaging people",
			"Propose stopping every automated message (replies, follow-ups, campaign steps) to some people. Changes nothing until confirm_proposal.",
			groupMessaging, true, endpoint{"POST", "/inbox/stop"}, peopleBounds,
			func(ctx context.Context, c caller, in stopInput) (plan, error) {
				who, err := s.describePeople(ctx, c, in.LinkedInURLs)
				if err != nil {
					return plan{}, err
				}
				return plan{irreversible: true, summary: fmt.Sprintf(
					"stop every automated reply, follow-up and campaign step to %s: %s; this cannot be undone from the assistant",
					plural(len(in.LinkedInURLs), "person"), who)}, nil
			},
			func(ctx context.Context, c caller, in stopInput) (json.RawMessage, error) {
				return s.rest(ctx, c, "POST", "/inbox/stop", nil, in)
			}),
		writeTool(s, "block_person", "Block people",
			"Propose blocking people: they go on the do-not-contact list, every automated message to them stops and their pending drafts are dismissed. Changes nothing until confirm_proposal.",
			groupMessaging, true, endpoint{"POST", "/inbox/block"}, peopleBounds,
			func(ctx context.Context, c caller, in blockInput) (plan, error) {
				if err := outreach.CheckBlockReason(in.Reason); err != nil {
					return plan{}, err
				}
				who, err := s.describePeople(ctx, c, in.LinkedInURLs)
				if err != nil {
					return plan{}, err
				}
				return plan{irreversible: true, summary: fmt.Sprintf(
					"block %s: %s; they go on your do-not-contact list, every automated message to them stops and their pending drafts are dismissed; this cannot be undone from the assistant",
					plural(len(in.LinkedInURLs), "person"), who)}, nil
			},
			func(ctx context.Context, c caller, in blockInput) (json.RawMessage, error) {
				body := map[string]any{"linkedin_urls": in.LinkedInURLs}
				if in.Reason != "" {
					body["reason"] = in.Reason
				}
				return s.rest(ctx, c, "POST", "/inbox/block", nil, body)
			}),
	}
}

// describePeople names each person as the workspace knows them: a lead's name and how many
// conversations, or that nothing matches.
func (s *Server) describePeople(ctx context.Context, c caller, inputs []string) (string, error) {
	if len(inputs) == 0 || len(inputs) > maxPeople {
		return "", userErrorf("linkedin_urls must hold 1 to %d entries, got %d", maxPeople, len(inputs))
	}
	var refs []storage.PersonRef
	var at []int // index in refs of each input, -1 for an unreadable one
	var bad []string
	for _, in := range inputs {
		p, err := outreach.NormalizeProfile(in)
		if err != nil {
			at = append(at, -1)
			bad = append(bad, err.Error())
			continue
		}
		value := p.URL
		if value == "" {
			value = p.MemberID
		}
		at = append(at, len(refs))
		refs = append(refs, storage.PersonRef{Key: p.Key, MemberID: p.MemberID, Value: value})
	}
	known, err := s.store.KnowPeople(ctx, c.principal.OrgID, refs)
	if err != nil {
		return "", err
	}
	parts := make([]string, len(inputs))
	badAt := 0
	for i, in := range inputs {
		label := fmt.Sprintf("%q", clip(in, 80))
		switch {
		case at[i] < 0:
			parts[i] = label + " (not a LinkedIn profile: " + bad[badAt] + "; skipped)"
			badAt++
		case known[at[i]].Prospects == 0 && known[at[i]].Conversations == 0:
			parts[i] = label + " (no lead or conversation in this workspace yet)"
		default:
			k := known[at[i]]
			parts[i] = fmt.Sprintf("%s %s (%s, %s)", quoteName(k.Name), label, plural(k.Prospects, "lead"), plural(k.Conversations, "conversation"))
		}
	}
	return strings.Join(parts, ", "), nil
}
