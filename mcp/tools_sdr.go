package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"outreachd/api"
	"outreachd/outreach"
)

// DraftDecider approves and dismisses needs-human drafts: the outreach engine's one action,
// shared with the application and the REST API.
type DraftDecider interface {
	ApproveDraft(ctx context.Context, d outreach.DraftDecision) (outreach.DraftOutcome, error)
	DismissDraft(ctx context.Context, d outreach.DraftDecision) (outreach.DraftOutcome, error)
}

type approveInput struct {
	ItemID string  `json:"item_id" jsonschema:"the needs-human item (nhu_…), from list_needs_human"`
	Text   *string `json:"text,omitempty" jsonschema:"ONLY text the person wrote or edited themselves, passed exactly as they gave it; leave out to send the AI draft as it is. Never write or rephrase it yourself."`
}

type dismissInput struct {
	ItemID string `json:"item_id" jsonschema:"the needs-human item (nhu_…), from list_needs_human"`
}

// sdrTools decide needs-human drafts. Approving sends on LinkedIn: irreversible.
func (s *Server) sdrTools() []*toolDef {
	return []*toolDef{
		writeTool(s, "approve_draft", "Approve a drafted reply",
			"Propose sending a needs-human item's reply on LinkedIn: the AI draft as it is, or the person's own edited text. Irreversible once confirmed. Changes nothing until confirm_proposal.",
			groupSDR, true, endpoint{"POST", "/needs-human/{id}/approve"}, nil,
			func(ctx context.Context, c caller, in approveInput) (plan, error) {
				b, err := s.openItem(ctx, c, in.ItemID)
				if err != nil {
					return plan{}, err
				}
				text, whose := b.AIDraft, "as drafted"
				if in.Text != nil {
					if strings.TrimSpace(*in.Text) == "" {
						return plan{}, userErrorf("text is empty: leave it out to send the draft as it is, or pass the person's own text")
					}
					if n := utf8.RuneCountInString(*in.Text); n > outreach.MaxReplyText {
						return plan{}, userErrorf("text is %d characters long; LinkedIn takes at most %d", n, outreach.MaxReplyText)
					}
					text, whose = *in.Text, "with the person's edited text"
				} else if strings.TrimSpace(b.AIDraft) == "" {
					return plan{}, userErrorf("item %s has no draft to send; pass the person's own text in text", b.ID)
				}
				return plan{irreversible: true, summary: fmt.Sprintf("send this reply to %s%s on LinkedIn, %s: %q — once sent it cannot be taken back",
					quoteName(b.Name), inCampaign(b.CampaignName), whose, clip(text, 600))}, nil
			},
			func(ctx context.Context, c caller, in approveInput) (json.RawMessage, error) {
				return s.decide(ctx, c, outreach.DraftDecision{ItemID: in.ItemID, Text: in.Text}, true)
			}),
		writeTool(s, "dismiss_draft", "Dismiss a drafted reply",
			"Propose dismissing a needs-human item's draft: nothing is sent and the item leaves the queue. Changes nothing until confirm_proposal.",
			groupSDR, true, endpoint{"POST", "/needs-human/{id}/dismiss"}, nil,
			func(ctx context.Context, c caller, in dismissInput) (plan, error) {
				b, err := s.openItem(ctx, c, in.ItemID)
				if err != nil {
					return plan{}, err
				}
				return plan{irreversible: true, summary: fmt.Sprintf("dismiss the drafted reply to %s%s: nothing is sent and the item leaves the Needs Human queue",
					quoteName(b.Name), inCampaign(b.CampaignName))}, nil
			},
			func(ctx context.Context, c caller, in dismissInput) (json.RawMessage, error) {
				return s.decide(ctx, c, outreach.DraftDecision{ItemID: in.ItemID}, false)
			}),
	}
}

func inCampaign(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf(" (campaign %q)", name)
}

// openItem reads an open item of the caller's organization for a proposal.
func (s *Server) openItem(ctx context.Context, c caller, id string) (itemBrief, error) {
	if s.deps.Drafts == nil {
		return itemBrief{}, userErrorf("drafts cannot be approved or dismissed in this process")
	}
	if !outreach.ValidID("nhu", id) {
		return itemBrief{}, userErrorf("needs-human item %q was not found in this workspace", clip(id, 60))
	}
	b, err := s.proposals.needsHumanItem(ctx, c.principal.OrgID, id)
	if err != nil {
		return itemBrief{}, err
	}
	if b.Resolved {
		return itemBrief{}, userErrorf("needs-human item %s was already resolved", id)
	}
	return b, nil
}

// decide carries out a confirmed approve_draft or dismiss_draft through the engine, recording
// who decided, and answers as the REST endpoints do.
func (s *Server) decide(ctx context.Context, c caller, d outreach.DraftDecision, approve bool) (json.RawMessage, error) {
	if s.deps.Drafts == nil {
		return nil, userErrorf("drafts cannot be approved or dismissed in this process")
	}
	d.OrgID, d.Actor = c.principal.OrgID, c.actor
	var out outreach.DraftOutcome
	var err error
	if approve {
		out, err = s.deps.Drafts.ApproveDraft(ctx, d)
	} else {
		out, err = s.deps.Drafts.DismissDraft(ctx, d)
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(api.DraftOutcomeBody(out))
}
