package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"outreachd/api"
)

// Tool groups. ?toolsets= names any of the optional ones; the reading tools are always on.
const (
	groupReading   = "reading"
	groupCampaigns = "campaigns"
	groupLeads     = "leads"
	groupMessaging = "messaging"
	groupSDR       = "sdr"
	groupInbox     = "inbox"
	groupWorkspace = "workspace"
)

// Groups lists the optional tool groups in the order they are documented.
var Groups = []string{groupCampaigns, groupLeads, groupMessaging, groupSDR, groupInbox, groupWorkspace}

// parseToolsets reads ?toolsets=g1,g2: no parameter loads every group; an empty value only the
// reading tools; an unknown name is an error that lists the valid ones.
func parseToolsets(r *http.Request) (map[string]bool, error) {
	out := map[string]bool{}
	vals, present := r.URL.Query()["toolsets"]
	if !present {
		for _, g := range Groups {
			out[g] = true
		}
		return out, nil
	}
	for _, v := range vals {
		for _, name := range strings.Split(v, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			if !validGroup(name) {
				if len(name) > 40 {
					name = name[:40] + "..."
				}
				return nil, fmt.Errorf("unknown toolset %q in query parameter toolsets; valid groups: %s (the reading tools are always loaded)",
					name, strings.Join(Groups, ", "))
			}
			out[name] = true
		}
	}
	return out, nil
}

func validGroup(name string) bool {
	for _, g := range Groups {
		if g == name {
			return true
		}
	}
	return false
}

// Invoker runs a REST endpoint in process (api.Server.Invoke).
type Invoker interface {
	Invoke(ctx context.Context, p api.Principal, method, path string, query url.Values, body []byte) (int, []byte)
}

// toolDef is one tool of the catalog: its description for clients, its group, whether it
// writes (then a read-scope caller never sees it), and how to register it on a server.
type toolDef struct {
	tool   *sdk.Tool
	group  string
	writes bool
	add    func(srv *sdk.Server, t *sdk.Tool)
	// execute carries out a confirmed proposal of this tool (writing tools only), and answers
	// is the schema of what it answers then (the REST endpoint's, in the portable profile).
	execute func(ctx context.Context, c caller, args json.RawMessage) (json.RawMessage, error)
	answers map[string]any
}

// newTool describes a tool with the input schema inferred from In (descriptions from its
// `jsonschema` tags), refined by shape (enums, bounds), the output schema out, and the
// annotations and _meta every tool carries. Both schemas keep to the portable profile
// (schemas.go).
func newTool[In any](name, title, description, group string, writes, destructive bool, shape func(*jsonschema.Schema),
	out map[string]any) *sdk.Tool {
	return &sdk.Tool{
		Name: name, Title: title, Description: description,
		InputSchema: inputSchema[In](name, shape), OutputSchema: toolSchema(name, "output", out),
		Annotations: &sdk.ToolAnnotations{Title: title, ReadOnlyHint: !writes, DestructiveHint: &destructive,
			IdempotentHint: !writes},
		Meta: sdk.Meta{"toolset": group},
	}
}

// prop returns a property of schema, for shape functions.
func prop(schema *jsonschema.Schema, name string) *jsonschema.Schema {
	p, ok := schema.Properties[name]
	if !ok {
		panic("mcp: no property " + name)
	}
	return p
}

func enum(schema *jsonschema.Schema, name string, values ...string) {
	p := prop(schema, name)
	for _, v := range values {
		p.Enum = append(p.Enum, v)
	}
}

// array makes a list property a plain array of min to max items (not "array or null").
func array(schema *jsonschema.Schema, name string, lo, hi int) *jsonschema.Schema {
	p := prop(schema, name)
	p.Type, p.Types = "array", nil
	p.MinItems, p.MaxItems = &lo, &hi
	return p
}

func bounds(schema *jsonschema.Schema, name string, lo, hi float64) {
	p := prop(schema, name)
	p.Minimum, p.Maximum = &lo, &hi
}

// errorText is the message of an error body in either of the REST API's shapes.
func errorText(status int, body []byte) string {
	var coded struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &coded) == nil && coded.Error.Message != "" {
		return coded.Error.Message
	}
	var plain struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &plain) == nil && plain.Error != "" {
		return plain.Error
	}
	return fmt.Sprintf("the request failed (HTTP %d)", status)
}

// rest runs one REST endpoint for c and returns its JSON body, or the endpoint's error message.
func (s *Server) rest(ctx context.Context, c caller, method, path string, q url.Values, body any) (json.RawMessage, error) {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
	}
	status, out := s.deps.REST.Invoke(ctx, c.principal, method, path, q, raw)
	if status < 200 || status > 299 {
		return nil, &restError{status: status, msg: errorText(status, out)}
	}
	return json.RawMessage(out), nil
}

// restError is a REST endpoint's refusal, shown to the model as the tool's error.
type restError struct {
	status int
	msg    string
}

func (e *restError) Error() string { return e.msg }

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,100}$`)

// pathID checks an id that goes into a REST path: only id characters, so that no input can
// reach another endpoint than the one the tool means.
func pathID(field, id string) (string, error) {
	if !idPattern.MatchString(id) {
		return "", userErrorf("%s %q is not an id of this workspace (ids look like cmp_…, prs_…)", field, clip(id, 60))
	}
	return id, nil
}

// clip shortens s to n runes for messages.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// catalog is every tool the server knows, in the order clients list them.
func (s *Server) catalog() []*toolDef {
	var writers []*toolDef
	writers = append(writers, s.campaignTools()...)
	writers = append(writers, s.messagingTools()...)
	writers = append(writers, s.sdrTools()...)
	out := append(s.readingTools(), s.confirmTool(writers))
	out = append(out, s.groupReadTools()...)
	return append(out, writers...)
}
