package outreach

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// CampaignSettings are what a campaign is made of before it runs: what POST /campaigns creates
// and what an edit of a draft (PATCH /campaigns/{id}, the application's campaign builder)
// changes, every part checked by its parser.
type CampaignSettings struct {
	Name         string
	OutreachType string // stored form: outbound or inbound
	SourceType   *string
	SourceConfig json.RawMessage // nil when none
	DailyLimit   int
	Schedule     Schedule
	Sequence     []SequenceStep
	// HardFilters are the campaign's own; the organization's default filters are merged in when
	// it is stored (HardFilters.Merge).
	HardFilters HardFilters
	// AccountIDs are the LinkedIn seats listed for it: an outbound campaign's people are shared
	// among them (each new person goes to the listed seat with the fewest of them, and stays with
	// the seat that first reached them), an inbound campaign writes from the first; none means
	// the organization's oldest seat.
	AccountIDs []string
}

// Limits of a campaign's settings besides those of its parts.
const (
	MaxSourceConfigBytes = 16 << 10
	MaxCampaignSeats     = 20
)

// CampaignRequest is the body of POST /campaigns and of PATCH /campaigns/{id}: pointers and raw
// parts tell a field left out from one sent, and each part is read by its own parser, which
// names what is wrong in it.
type CampaignRequest struct {
	Name         *string         `json:"name"`
	OutreachType *string         `json:"outreach_type"`
	SourceType   *string         `json:"source_type"`
	DailyLimit   *int            `json:"daily_limit"`
	Schedule     json.RawMessage `json:"schedule"`
	Sequence     json.RawMessage `json:"sequence"`
	Meta         *CampaignMeta   `json:"meta"`
	SourceConfig json.RawMessage `json:"source_config"`
	AccountIDs   *[]string       `json:"account_ids"`
}

// CampaignMeta is a campaign request's meta: the hard filters and nothing else.
type CampaignMeta struct {
	HardFilters json.RawMessage `json:"hard_filters"`
}

// Create reads a request that makes a new draft: name is required, everything else left out
// takes its default (outbound, daily limit 20, every day 06:00-23:00 UTC, no steps, no filters
// of its own, the organization's oldest seat). Attachments ParseSequence removed are returned.
func (r CampaignRequest) Create() (CampaignSettings, []StrippedAttachment, error) {
	if r.Name == nil {
		return CampaignSettings{}, nil, invalidf("name is required")
	}
	return r.apply(NewCampaignSettings())
}

// NewCampaignSettings are what a new draft starts from before its request is read: outbound,
// daily limit 20, every day 06:00-23:00 UTC, no steps, no filters or seats of its own.
func NewCampaignSettings() CampaignSettings {
	return CampaignSettings{OutreachType: OutreachOutbound, DailyLimit: DefaultDailyLimit, Schedule: DefaultSchedule(),
		Sequence: []SequenceStep{}}
}

// Edit reads a request that changes the draft whose settings are cur: what it leaves out stays
// as it is; what it sends replaces the part whole (a schedule sent is read as on create, its
// left-out keys at their defaults). The sequence is checked again even when left out, since a
// change of outreach_type may make it wrong.
func (r CampaignRequest) Edit(cur CampaignSettings) (CampaignSettings, []StrippedAttachment, error) {
	if r.Sequence == nil {
		seq, err := json.Marshal(cur.Sequence)
		if err != nil {
			return CampaignSettings{}, nil, err
		}
		r.Sequence = seq
	}
	if r.Schedule == nil {
		r.Schedule = mustJSON(cur.Schedule)
	}
	return r.apply(cur)
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v) // a Schedule always encodes
	return b
}

// apply reads the request's parts over base, in a fixed order, so that a request with several
// problems is always refused naming the same one.
func (r CampaignRequest) apply(base CampaignSettings) (CampaignSettings, []StrippedAttachment, error) {
	out := base
	var err error
	if r.Name != nil {
		if out.Name, err = ValidateCampaignName(*r.Name); err != nil {
			return out, nil, err
		}
	}
	if r.OutreachType != nil {
		if *r.OutreachType == "" {
			return out, nil, invalidf("outreach_type must be outbound or inbound, not empty")
		}
		if out.OutreachType, err = ParseOutreachType(*r.OutreachType); err != nil {
			return out, nil, err
		}
	}
	if r.SourceType != nil {
		if !ValidSourceType(*r.SourceType) {
			return out, nil, invalidf("source_type %q must be one of %s", *r.SourceType, strings.Join(SourceTypes, ", "))
		}
		out.SourceType = r.SourceType
	}
	if r.DailyLimit != nil {
		if out.DailyLimit, err = ValidateDailyLimit(r.DailyLimit); err != nil {
			return out, nil, err
		}
	}
	if out.Schedule, err = ParseSchedule(r.Schedule); err != nil {
		return out, nil, err
	}
	var stripped []StrippedAttachment
	if out.Sequence, stripped, err = ParseSequence(r.Sequence, out.OutreachType); err != nil {
		return out, nil, err
	}
	if r.SourceConfig != nil {
		if out.SourceConfig, err = parseSourceConfig(r.SourceConfig); err != nil {
			return out, nil, err
		}
	}
	if r.Meta != nil {
		if out.HardFilters, err = ParseHardFilters(r.Meta.HardFilters); err != nil {
			return out, nil, fmt.Errorf("meta.hard_filters: %w", err)
		}
	}
	if r.AccountIDs != nil {
		if out.AccountIDs, err = checkCampaignSeats(*r.AccountIDs); err != nil {
			return out, nil, err
		}
	}
	return out, stripped, nil
}

// parseSourceConfig keeps a JSON object as sent; null or blank is none.
func parseSourceConfig(raw json.RawMessage) (json.RawMessage, error) {
	cfg := bytes.TrimSpace(raw)
	if len(cfg) == 0 || bytes.Equal(cfg, []byte("null")) {
		return nil, nil
	}
	if cfg[0] != '{' {
		return nil, invalidf("source_config must be a JSON object")
	}
	if len(cfg) > MaxSourceConfigBytes {
		return nil, invalidf("source_config is larger than %d bytes", MaxSourceConfigBytes)
	}
	return json.RawMessage(cfg), nil
}

// checkCampaignSeats checks the form of account_ids; whether each seat is the organization's is
// the database's to answer.
func checkCampaignSeats(ids []string) ([]string, error) {
	if len(ids) > MaxCampaignSeats {
		return nil, invalidf("account_ids has %d seats, at most %d are allowed", len(ids), MaxCampaignSeats)
	}
	out := make([]string, 0, len(ids))
	for i, id := range ids {
		if !ValidID("acc", id) {
			return nil, invalidf("account_ids[%d] %q is not a LinkedIn account id (acc_…)", i, clip(id, 60))
		}
		if slices.Contains(out, id) {
			return nil, invalidf("account_ids[%d] %s is listed twice", i, id)
		}
		out = append(out, id)
	}
	return out, nil
}
