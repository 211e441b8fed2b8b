package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"outreachd/outreach"
)

// plan is what a writing tool would do, in words a person checks before confirming.
type plan struct {
	summary      string
	irreversible bool
}

// proposalJSON is the structuredContent of every writing tool: {"proposal": {…}}.
type proposalJSON struct {
	Proposal proposalView `json:"proposal"`
}

type proposalView struct {
	ID           string `json:"id"`
	Tool         string `json:"tool"`
	Summary      string `json:"summary"`
	Irreversible bool   `json:"irreversible"`
	ExpiresAt    string `json:"expires_at"`
}

// writeTool is a tool that changes nothing when called: propose checks the input against the
// data as it stands and says what would happen; the proposal keeps the input, and
// confirm_proposal later runs execute with it, once, which answers as the REST endpoint
// answering does (its documented answer is what confirm_proposal may answer).
func writeTool[In any](s *Server, name, title, desc, group string, destructive bool, answering endpoint,
	shape func(*jsonschema.Schema),
	propose func(ctx context.Context, c caller, in In) (plan, error),
	execute func(ctx context.Context, c caller, in In) (json.RawMessage, error)) *toolDef {
	def := &toolDef{tool: newTool[In](name, title, desc, group, true, destructive, shape, proposalOutput(name)),
		group: group, writes: true, answers: restOutput(name, answering)}
	def.add = func(srv *sdk.Server, t *sdk.Tool) {
		sdk.AddTool(srv, t, func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
			c, err := s.begin(ctx, req, bucketDefault, true)
			if err != nil {
				return nil, nil, err
			}
			p, err := propose(ctx, c, in)
			if err != nil {
				return nil, nil, s.toolErr(err)
			}
			args, err := json.Marshal(in)
			if err != nil {
				return nil, nil, s.toolErr(err)
			}
			stored, err := s.proposals.create(ctx, proposal{OrgID: c.principal.OrgID, ProposedBy: c.actor, Tool: name,
				Arguments: args, Summary: p.summary, Irreversible: p.irreversible, ExpiresAt: s.now().Add(s.cfg.ProposalTTL)})
			if err != nil {
				return nil, nil, s.toolErr(err)
			}
			return nil, proposalJSON{Proposal: proposalView{ID: stored.ID, Tool: name, Summary: stored.Summary,
				Irreversible: stored.Irreversible, ExpiresAt: outreach.FormatTime(stored.ExpiresAt)}}, nil
		})
	}
	def.execute = func(ctx context.Context, c caller, raw json.RawMessage) (json.RawMessage, error) {
		var in In
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, fmt.Errorf("stored arguments of %s: %w", name, err)
		}
		return execute(ctx, c, in)
	}
	return def
}

type confirmInput struct {
	ProposalID string `json:"proposal_id" jsonschema:"the id of the proposal to carry out (prp_…), as a writing tool answered it; confirm only after the person agreed to its summary"`
}

// proposalOutput is the schema of every writing tool's answer, {"proposal": {…}}.
func proposalOutput(tool string) map[string]any {
	return goOutput[proposalJSON](tool)
}

// confirmTool carries out a proposal of the caller's organization, once. It answers what the
// REST endpoint of the proposal's tool answers, so its output schema is one object that each of
// the writers' answers validates against.
func (s *Server) confirmTool(writers []*toolDef) *toolDef {
	const name = "confirm_proposal"
	var answers []map[string]any
	for _, w := range writers {
		answers = append(answers, w.answers)
	}
	out := unionOfObjects("the result of the confirmed proposal: what the REST endpoint of its tool answers", answers)
	def := &toolDef{group: groupReading, writes: true,
		tool: newTool[confirmInput](name, "Confirm a proposal",
			"Carry out a proposal the person agreed to, exactly once, and answer its result. Irreversible proposals (sending on LinkedIn, blocking) cannot be undone.",
			groupReading, true, true, nil, out)}
	def.add = func(srv *sdk.Server, t *sdk.Tool) {
		sdk.AddTool(srv, t, func(ctx context.Context, req *sdk.CallToolRequest, in confirmInput) (*sdk.CallToolResult, any, error) {
			c, err := s.begin(ctx, req, bucketDefault, true)
			if err != nil {
				return nil, nil, err
			}
			out, err := s.confirm(ctx, c, in.ProposalID)
			if err != nil {
				return nil, nil, s.toolErr(err)
			}
			return nil, out, nil
		})
	}
	return def
}

func (s *Server) confirm(ctx context.Context, c caller, id string) (json.RawMessage, error) {
	if !outreach.ValidID("prp", id) {
		return nil, userErrorf("proposal %q was not found in this workspace; proposal ids look like prp_…", clip(id, 60))
	}
	p, err := s.proposals.claim(ctx, c.principal.OrgID, id, c.actor, s.now())
	switch {
	case errors.Is(err, outreach.ErrNotFound):
		return nil, userErrorf("proposal %s was not found in this workspace", id)
	case errors.Is(err, errConfirmed):
		return nil, userErrorf("proposal %s was already confirmed at %s; a proposal is carried out only once", id, outreach.FormatTime(*p.ConfirmedAt))
	case errors.Is(err, errExpired):
		return nil, userErrorf("proposal %s expired at %s (proposals last %s); ask for a new proposal", id, outreach.FormatTime(p.ExpiresAt), friendly(s.cfg.ProposalTTL))
	case err != nil:
		return nil, err
	}
	def := s.byName[p.Tool]
	if def == nil || def.execute == nil {
		return nil, fmt.Errorf("proposal %s names tool %q, which cannot be carried out", id, p.Tool)
	}
	// Claimed means decided: carry it out even if the client hangs up now.
	execCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	out, execErr := def.execute(execCtx, c, p.Arguments)
	errText := ""
	if execErr != nil {
		errText = s.toolErr(execErr).Error()
	}
	if err := s.proposals.finish(execCtx, id, out, errText); err != nil {
		s.log.Error("mcp: record proposal outcome", "proposal", id, "err", err)
	}
	if execErr != nil {
		return nil, fmt.Errorf("proposal %s was confirmed but could not be carried out: %w", id, execErr)
	}
	return out, nil
}

// userError is a message written for the person; toolErr shows it as it is.
type userError struct{ msg string }

func (e *userError) Error() string { return e.msg }

func userErrorf(format string, args ...any) error {
	return &userError{msg: fmt.Sprintf(format, args...)}
}

// toolErr turns err into the error a tool answers (isError: true): the REST API's own message,
// a message written for the person, or a client error of the domain as the API words it. Any
// other error is a server fault: logged, and answered without its details.
func (s *Server) toolErr(err error) error {
	var ue *userError
	var re *restError
	switch {
	case errors.As(err, &ue), errors.As(err, &re): // the REST API's messages never leak internals, 5xx included
		return err
	case errors.Is(err, outreach.ErrInvalid), errors.Is(err, outreach.ErrNotFound),
		errors.Is(err, outreach.ErrCampaignClosed), errors.Is(err, outreach.ErrConflict):
		return errors.New(err.Error())
	}
	s.log.Error("mcp: tool failed", "err", err)
	return errors.New("internal error; it has been logged")
}
