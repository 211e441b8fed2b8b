package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"outreachd/outreach"
)

// refuseNUL answers a tool call whose arguments hold a NUL character (\u0000) with a tool error
// naming the argument, before any tool sees them: a proposal stores its arguments in PostgreSQL,
// which cannot hold U+0000, and the REST API refuses such a body for the same reason.
func refuseNUL(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		call, isCall := req.(*sdk.CallToolRequest)
		if !isCall || call.Params == nil || !outreach.JSONEscapesNUL(call.Params.Arguments) {
			return next(ctx, method, req)
		}
		where := "the arguments"
		var args any
		if json.Unmarshal(call.Params.Arguments, &args) == nil {
			if w, found := nulAt(args, ""); found {
				where = w
			}
		}
		res := &sdk.CallToolResult{}
		res.SetError(fmt.Errorf("%s contains a NUL character (\\u0000), which is not allowed", where))
		return res, nil
	}
}

// nulAt finds the first string or key of a decoded JSON value under path that holds U+0000 and
// says where it is: "argument leads[0].linkedin_url", "a key of argument leads[0].data".
func nulAt(v any, path string) (string, bool) {
	switch x := v.(type) {
	case string:
		return "argument " + path, strings.IndexByte(x, 0) >= 0
	case []any:
		for i, e := range x {
			if w, ok := nulAt(e, fmt.Sprintf("%s[%d]", path, i)); ok {
				return w, true
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if strings.IndexByte(k, 0) >= 0 {
				if path == "" {
					return "an argument name", true
				}
				return "a key of argument " + path, true
			}
			sub := k
			if path != "" {
				sub = path + "." + k
			}
			if w, ok := nulAt(x[k], sub); ok {
				return w, true
			}
		}
	}
	return "", false
}

// nullsAsAbsent removes the members of the arguments' objects whose value is null before the
// arguments are checked against the tool's input schema: no input schema admits null (an
// optional input is one left out), and many clients send null for an optional argument they
// have no value for (some model providers require every argument to be present). So a null
// means "not given", wherever it stands in an object; a null array element stays and is refused.
func nullsAsAbsent(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		call, isCall := req.(*sdk.CallToolRequest)
		if !isCall || call.Params == nil || !bytes.Contains(call.Params.Arguments, []byte("null")) {
			return next(ctx, method, req)
		}
		var args any
		dec := json.NewDecoder(bytes.NewReader(call.Params.Arguments))
		dec.UseNumber() // numbers pass through as written
		if dec.Decode(&args) != nil {
			return next(ctx, method, req) // the SDK says what is wrong with them
		}
		if dropNulls(args) {
			if raw, err := json.Marshal(args); err == nil {
				call.Params.Arguments = raw
			}
		}
		return next(ctx, method, req)
	}
}

// dropNulls deletes null members from every object in v, and reports whether it deleted any.
func dropNulls(v any) bool {
	dropped := false
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				dropped = true
				continue
			}
			dropped = dropNulls(e) || dropped
		}
	case []any:
		for _, e := range x {
			dropped = dropNulls(e) || dropped
		}
	}
	return dropped
}
