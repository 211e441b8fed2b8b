package outreach

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// DescribeJSONError words a decoding error of the JSON value named what ("request body",
// "sequence", ...) for a client: where the syntax broke, or which field holds the wrong JSON
// type, never Go's type names.
func DescribeJSONError(err error, what string) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return "malformed JSON at byte " + strconv.FormatInt(syn.Offset, 10) + ": " + syn.Error()
	case errors.As(err, &typ):
		if typ.Field == "" {
			return what + " must be " + jsonKind(typ.Type.Kind().String()) + " (JSON), got " + typ.Value
		}
		return "field " + strconv.Quote(typ.Field) + " must be " + jsonKind(typ.Type.Kind().String()) + ", got " + typ.Value
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "malformed JSON: unexpected end of " + what
	default:
		// json's unknown-field error reads `json: unknown field "x"`.
		return strings.TrimPrefix(err.Error(), "json: ")
	}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	default:
		return "a " + goKind
	}
}
