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
	return JSONInputError(err, what).Message
}

// JSONInputError is a decoding error of the JSON value named what as an InvalidInputError
// (DescribeJSONError's words); a field of the wrong JSON type is its Field, what is wrong with
// it its Problem.
func JSONInputError(err error, what string) *InvalidInputError {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	e := &InvalidInputError{Err: err}
	switch {
	case errors.As(err, &syn):
		e.Message = "malformed JSON at byte " + strconv.FormatInt(syn.Offset, 10) + ": " + syn.Error()
	case errors.As(err, &typ):
		if typ.Field == "" {
			e.Message = what + " must be " + jsonKind(typ.Type.Kind().String()) + " (JSON), got " + typ.Value
			break
		}
		e.Field, e.Problem = typ.Field, "must be "+jsonKind(typ.Type.Kind().String())+", got "+typ.Value
		e.Message = "field " + strconv.Quote(e.Field) + " " + e.Problem
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		e.Message = "malformed JSON: unexpected end of " + what
	default:
		e.Message = jsonText(err)
	}
	return e
}

// jsonText is encoding/json's own words for err without the package's "json: " prefix. It is
// the one place that reads an error's text: encoding/json has no type for an unknown field (`json:
// unknown field "x"`), and the schedule and attachment messages quote its words as they are.
func jsonText(err error) string {
	return strings.TrimPrefix(err.Error(), "json: ")
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
