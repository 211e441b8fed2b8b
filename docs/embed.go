// Package docs carries the documents the binary serves itself. Only the OpenAPI file is
// embedded: GET /openapi.yaml answers it byte for byte and GET /docs renders it as a page
// (api/reference.go), so the reference a client reads is the file in this folder, never a copy.
// A go:embed directive cannot reach a parent folder, which is why this tiny package sits beside the file.
package docs

import _ "embed"

// OpenAPI is docs/openapi.yaml as it was when the binary was built.
//
//go:embed openapi.yaml
var OpenAPI []byte
