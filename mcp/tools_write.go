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

type createCampaignInput struct {
	Name         string `json:"name" jsonschema:"the campaign's name, as the person gave it"`
	OutreachType string `json:"outreach_type,omitempty" jsonschema:"outbound (default: connection invites, then messages) or inbound (people who already reached out)"`
}

type leadInput struct {
	LinkedInURL string         `json:"linkedin_url" jsonschema:"the person's LinkedIn profile URL (linkedin.com/in/…), handle or member id"`
	FirstName   string         `json:"first_name,omitempty" jsonschema:"first name"`
	LastName    string         `json:"last_name,omitempty" jsonschema:"last name"`
	Name        string         `json:"name,omitempty" jsonschema:"full name, when first and last are not separate"`
	Company     string         `json:"company,omitempty" jsonschema:"company name or its LinkedIn company page"`
	Title       string         `json:"title,omitempty" jsonschema:"job title"`
	Email       string         `json:"email,omitempty" jsonschema:"email address"`
	Location    string         `json:"location,omitempty" jsonschema:"location"`
	Headline    string         `json:"headline,omitempty" jsonschema:"LinkedIn headline"`
	Source      string         `json:"source,omitempty" jsonschema:"where the lead came from (a short label; default api)"`
	Data        map[string]any `json:"data,omitempty" jsonschema:"extra fields kept with the lead"`
}

type pushLeadsInput struct {
	CampaignID string      `json:"campaign_id" jsonschema:"the campaign to push into (cmp_…)"`
	Leads      []leadInput `json:"leads" jsonschema:"1 to 100 leads, as the person gave them"`
}

type exclusionInput struct {
	Value string `json:"value" jsonschema:"a LinkedIn profile URL or member id (type account), or a company name or LinkedIn company page (type company)"`
	Type  string `json:"type" jsonschema:"account (one person) or company"`
}

type addExclusionsInput struct {
	Entries []exclusionInput `json:"entries" jsonschema:"1 to 500 entries for the do-not-contact list"`
}

type markOutcomeInput struct {
	ProspectID string `json:"prospect_id" jsonschema:"the prospect (prs_…)"`
	Outcome    string `json:"outcome" jsonschema:"booked, converted, interested or lost"`
}

// campaignTools are the writing tools of the campaigns and leads groups.
func (s *Server) campaignTools() []*toolDef {
	return []*toolDef{
		writeTool(s, "create_campaign", "Create a campaign",
			"Propose a new draft campaign with a name (no messages: the person writes the sequence in the application). Changes nothing until confirm_proposal.",
			groupCampaigns, false, endpoint{"POST", "/campaigns"}, func(sc *jsonschema.Schema) { enum(sc, "outreach_type", "outbound", "inbound") },
			s.proposeCreateCampaign, func(ctx context.Context, c caller, in createCampaignInput) (json.RawMessage, error) {
				body := map[string]any{"name": in.Name}
				if in.OutreachType != "" {
					body["outreach_type"] = in.OutreachType
				}
				return s.rest(ctx, c, "POST", "/campaigns", nil, body)
			}),
		writeTool(s, "duplicate_campaign", "Duplicate a campaign",
			"Propose a new draft copy of a campaign: same sequence, schedule, limits and filters, no leads. Changes nothing until confirm_proposal.",
			groupCampaigns, false, endpoint{"POST", "/campaigns/{id}/duplicate"}, nil, s.proposeDuplicate, func(ctx context.Context, c caller, in campaignInput) (json.RawMessage, error) {
				return s.rest(ctx, c, "POST", "/campaigns/"+in.CampaignID+"/duplicate", nil, nil)
			}),
		writeTool(s, "push_leads", "Push leads into a campaign",
			"Propose adding leads to a campaign; the proposal counts how many are new, already there, on the do-not-contact list or in another campaign. Changes nothing until confirm_proposal.",
			groupLeads, false, endpoint{"POST", "/campaigns/{id}/leads"}, func(sc *jsonschema.Schema) {
				lead := array(sc, "leads", 1, 100).Items
				data := prop(lead, "data")
				data.AdditionalProperties = &jsonschema.Schema{Types: []string{"string", "number", "boolean", "null"}} // scalars only
			},
			s.proposePush, func(ctx context.Context, c caller, in pushLeadsInput) (json.RawMessage, error) {
				return s.rest(ctx, c, "POST", "/campaigns/"+in.CampaignID+"/leads", nil, map[string]any{"leads": in.Leads})
			}),
		writeTool(s, "add_exclusions", "Add to the do-not-contact list",
			"Propose adding people or companies to the do-not-contact list; leads matching it are refused from then on. Changes nothing until confirm_proposal.",
			groupLeads, false, endpoint{"POST", "/blacklist"}, func(sc *jsonschema.Schema) {
				enum(array(sc, "entries", 1, 500).Items, "type", outreach.BlacklistAccount, outreach.BlacklistCompany)
			},
			s.proposeExclusions, func(ctx context.Context, c caller, in addExclusionsInput) (json.RawMessage, error) {
				return s.rest(ctx, c, "POST", "/blacklist", nil, in)
			}),
		writeTool(s, "mark_outcome", "Mark a prospect's outcome",
			"Propose recording a prospect's outcome: booked, converted, interested or lost. Changes nothing until confirm_proposal.",
			groupLeads, false, endpoint{"PATCH", "/prospects/{id}"}, func(sc *jsonschema.Schema) { enum(sc, "outcome", "booked", "converted", "interested", "lost") },
			s.proposeOutcome, func(ctx context.Context, c caller, in markOutcomeInput) (json.RawMessage, error) {
				return s.rest(ctx, c, "PATCH", "/prospects/"+in.ProspectID, nil, map[string]any{"outcome": in.Outcome})
			}),
	}
}

func (s *Server) proposeCreateCampaign(_ context.Context, _ caller, in createCampaignInput) (plan, error) {
	name, err := outreach.ValidateCampaignName(in.Name)
	if err != nil {
		return plan{}, err
	}
	ot, err := outreach.ParseOutreachType(in.OutreachType)
	if err != nil {
		return plan{}, err
	}
	how := "outbound: connection invites, then messages"
	if ot == outreach.OutreachInbound {
		how = "inbound: people who already reached out"
	}
	return plan{summary: fmt.Sprintf("create a draft campaign %q (%s) with no sequence steps yet; it sends nothing until a person writes its messages and launches it", name, how)}, nil
}

func (s *Server) proposeDuplicate(ctx context.Context, c caller, in campaignInput) (plan, error) {
	if !outreach.ValidID("cmp", in.CampaignID) {
		return plan{}, userErrorf("campaign %q was not found in this workspace", clip(in.CampaignID, 60))
	}
	camp, err := s.store.GetCampaign(ctx, c.principal.OrgID, in.CampaignID)
	if err != nil {
		return plan{}, err
	}
	n := 0
	for _, v := range camp.ProspectCounts {
		n += v
	}
	return plan{summary: fmt.Sprintf("duplicate campaign %q (%s, %s, %s) into a new draft campaign with the same sequence (%s), schedule, daily limit and filters; its leads are not copied and nothing is sent",
		camp.Name, camp.ID, camp.Status, plural(n, "prospect"), plural(len(camp.Sequence), "step"))}, nil
}

func (s *Server) proposePush(ctx context.Context, c caller, in pushLeadsInput) (plan, error) {
	if len(in.Leads) == 0 || len(in.Leads) > 100 {
		return plan{}, userErrorf("leads must hold 1 to 100 leads, got %d", len(in.Leads))
	}
	if !outreach.ValidID("cmp", in.CampaignID) {
		return plan{}, userErrorf("campaign %q was not found in this workspace", clip(in.CampaignID, 60))
	}
	req := storage.PushRequest{OrgID: c.principal.OrgID, CampaignID: in.CampaignID, DefaultSource: outreach.SourceAPI}
	for i, l := range in.Leads {
		li := outreach.LeadInput{LinkedInURL: l.LinkedInURL, FirstName: l.FirstName, LastName: l.LastName, Name: l.Name,
			Company: l.Company, Title: l.Title, Email: l.Email, Location: l.Location, Headline: l.Headline,
			Source: strings.TrimSpace(l.Source), Data: l.Data}
		if err := li.Check(); err != nil {
			return plan{}, fmt.Errorf("leads[%d].%w", i, err)
		}
		req.Leads = append(req.Leads, storage.PushLead{Index: i, Input: li})
	}
	pv, err := s.store.PreviewPush(ctx, req)
	if err != nil {
		return plan{}, err
	}
	var notes []string
	if pv.AlreadyThere > 0 {
		notes = append(notes, fmt.Sprintf("%d already there", pv.AlreadyThere))
	}
	if pv.Blacklisted > 0 {
		notes = append(notes, fmt.Sprintf("%d on your do-not-contact list", pv.Blacklisted))
	}
	if pv.InAnotherCampaign > 0 {
		notes = append(notes, fmt.Sprintf("%d already in another live campaign", pv.InAnotherCampaign))
	}
	if pv.Invalid > 0 {
		notes = append(notes, fmt.Sprintf("%d not a readable LinkedIn profile or listed twice", pv.Invalid))
	}
	if pv.FilteredOut > 0 {
		notes = append(notes, fmt.Sprintf("%d of the new ones fail the campaign's filters and are kept as rejected", pv.FilteredOut))
	}
	sum := fmt.Sprintf("push %s into %q", plural(len(in.Leads), "lead"), pv.CampaignName)
	if len(notes) > 0 {
		sum += " (" + strings.Join(notes, ", ") + ")"
	}
	sum += fmt.Sprintf(": %d would be added", pv.New-pv.FilteredOut)
	p := plan{summary: sum}
	if pv.CampaignStatus == string(outreach.CampaignActive) && pv.New > pv.FilteredOut {
		p.irreversible = true
		p.summary += "; the campaign is active, so LinkedIn invites and messages go out to them and cannot be taken back"
	} else {
		p.summary += fmt.Sprintf("; the campaign is %s, so nothing is sent until it is launched", pv.CampaignStatus)
	}
	return p, nil
}

func (s *Server) proposeExclusions(ctx context.Context, c caller, in addExclusionsInput) (plan, error) {
	if len(in.Entries) == 0 || len(in.Entries) > 500 {
		return plan{}, userErrorf("entries must hold 1 to 500 entries, got %d", len(in.Entries))
	}
	var fresh []storage.BlacklistEntry
	var bad []string
	seen := map[outreach.BlacklistKey]bool{}
	for _, e := range in.Entries {
		k, err := outreach.ParseBlacklistValue(e.Value, e.Type)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%q (%s)", clip(e.Value, 80), err.Error()))
			continue
		}
		if !seen[k] {
			seen[k] = true
			fresh = append(fresh, storage.BlacklistEntry{Type: k.Type, Key: k.Key, Value: e.Value})
		}
	}
	if len(fresh) == 0 {
		return plan{}, userErrorf("none of the entries can be read: %s", strings.Join(bad, "; "))
	}
	present, err := s.proposals.blacklistPresent(ctx, c.principal.OrgID, fresh)
	if err != nil {
		return plan{}, err
	}
	sum := fmt.Sprintf("add %s to your do-not-contact list", plural(len(fresh)-present, "new entry"))
	if present > 0 {
		sum += fmt.Sprintf(" (%d already there)", present)
	}
	if len(bad) > 0 {
		sum += fmt.Sprintf("; %d cannot be read and are skipped: %s", len(bad), strings.Join(bad, "; "))
	}
	return plan{summary: sum + "; leads matching the list are refused from then on"}, nil
}

func (s *Server) proposeOutcome(ctx context.Context, c caller, in markOutcomeInput) (plan, error) {
	outcome, err := outreach.ParseOutcome(in.Outcome)
	if err != nil {
		return plan{}, err
	}
	if !outreach.ValidID("prs", in.ProspectID) {
		return plan{}, userErrorf("prospect %q was not found in this workspace", clip(in.ProspectID, 60))
	}
	p, err := s.store.GetProspect(ctx, c.principal.OrgID, in.ProspectID)
	if err != nil {
		return plan{}, err
	}
	return plan{summary: fmt.Sprintf("mark %s (%s, now %s) as %s", quoteName(p.Name), p.ID, p.Status, outcome)}, nil
}

// plural writes "1 lead", "3 leads" ("entry" becomes "entries").
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if noun == "person" {
		return fmt.Sprintf("%d people", n)
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// quoteName shows a name written by a lead as quoted data.
func quoteName(name string) string {
	if strings.TrimSpace(name) == "" {
		return "the person"
	}
	return fmt.Sprintf("%q", clip(name, 80))
}
