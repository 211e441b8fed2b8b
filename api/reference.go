package api

import (
	"bytes"
	"fmt"
	"html"
	"net/http"
	"strings"

	"go.yaml.in/yaml/v3"

	"outreachd/docs"
)

// The reference the binary serves about itself: GET /openapi.yaml is docs/openapi.yaml byte for
// byte (embedded at build time) and GET /docs is a page rendered from that same document once, at
// start, on the server: no JavaScript, no CDN, one embedded style sheet. Neither needs a key.

// referenceCSP lets the page use its own inline style sheet and nothing else.
const referenceCSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

// renderReference turns the OpenAPI document into the /docs page. publicURL replaces the
// {public_url} server variable so the addresses shown are the ones this process answers on.
func renderReference(doc []byte, publicURL string) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return nil, fmt.Errorf("parse docs/openapi.yaml: %w", err)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("docs/openapi.yaml: the document is not a mapping")
	}
	r := &refRenderer{doc: root.Content[0], publicURL: publicURL} // an origin: Config.Validate
	if err := r.page(); err != nil {
		return nil, err
	}
	return r.buf.Bytes(), nil
}

func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/yaml; charset=utf-8")
	w.Header().Set("Content-Length", fmt.Sprint(len(docs.OpenAPI)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(docs.OpenAPI)
}

func (s *Server) serveReference(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", referenceCSP)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Length", fmt.Sprint(len(s.reference)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(s.reference)
}

// refRenderer writes the page; its helpers read the document as yaml.Nodes so the order of
// paths, fields and tags is the order of the file.
type refRenderer struct {
	doc       *yaml.Node
	publicURL string
	buf       bytes.Buffer
}

func (r *refRenderer) w(format string, args ...any) { fmt.Fprintf(&r.buf, format, args...) }

// operation is one method of one path item, with what the page needs around it.
type refOperation struct {
	method, path, server string
	item, op             *yaml.Node
	webhook              bool // sent by outreachd, not called on it
}

func (o refOperation) anchor() string {
	if id := scalar(get(o.op, "operationId")); id != "" {
		return "op-" + id
	}
	return "op-" + strings.ToLower(o.method) + strings.NewReplacer("/", "-", "{", "", "}", "").Replace(o.path)
}

var refMethods = []string{"get", "post", "put", "patch", "delete"}

// operations lists the document's operations in file order, each with the server it is
// called on (the path item's own servers, else the document's).
func (r *refRenderer) operations() []refOperation {
	top := r.server(get(r.doc, "servers"))
	var out []refOperation
	for _, p := range pairs(get(r.doc, "paths")) {
		server := top
		if s := get(p.val, "servers"); s != nil {
			server = r.server(s)
		}
		for _, m := range refMethods {
			if op := get(p.val, m); op != nil {
				out = append(out, refOperation{method: strings.ToUpper(m), path: p.key, server: server, item: p.val, op: op})
			}
		}
	}
	return out
}

// server is the first server URL of a servers list with {public_url} filled in.
func (r *refRenderer) server(list *yaml.Node) string {
	if list == nil || len(list.Content) == 0 {
		return r.publicURL
	}
	return strings.ReplaceAll(scalar(get(list.Content[0], "url")), "{public_url}", r.publicURL)
}

func (r *refRenderer) page() error {
	info := get(r.doc, "info")
	title := scalar(get(info, "title")) + " " + scalar(get(info, "version"))
	r.w("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
	r.w("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	r.w("<title>%s reference</title>\n<style>%s</style></head><body>\n", esc(title), referenceStyle)
	ops := r.operations()
	groups, order := r.groupByTag(ops)
	r.w("<nav><p class=\"brand\">%s</p><p><a href=\"/openapi.yaml\">openapi.yaml</a></p>\n", esc(title))
	for _, tag := range order {
		r.w("<h4>%s</h4><ul>\n", esc(tag))
		for _, o := range groups[tag] {
			r.w("<li><a href=\"#%s\"><span class=\"m m-%s\">%s</span> %s</a></li>\n",
				o.anchor(), strings.ToLower(o.method), o.method, esc(o.path))
		}
		r.w("</ul>\n")
	}
	r.w("<h4><a href=\"#webhooks\">Outbound events</a></h4><h4><a href=\"#schemas\">Schemas</a></h4></nav>\n<main>\n")
	r.w("<h1>%s</h1>\n", esc(title))
	if s := scalar(get(info, "summary")); s != "" {
		r.w("<p class=\"lead\">%s</p>\n", inline(s))
	}
	r.w("<p>Base URL of the keyed API: <code>%s</code>. This page is rendered from "+
		"<a href=\"/openapi.yaml\">/openapi.yaml</a>, the OpenAPI 3.1 document this server answers by.</p>\n",
		esc(r.server(get(r.doc, "servers"))))
	r.w("%s", markdown(scalar(get(info, "description"))))
	for _, tag := range order {
		r.w("<section><h2 id=\"tag-%s\">%s</h2>\n", esc(tag), esc(tag))
		if d := r.tagDescription(tag); d != "" {
			r.w("%s", markdown(d))
		}
		for _, o := range groups[tag] {
			r.operation(o)
		}
		r.w("</section>\n")
	}
	r.webhooks()
	r.schemas()
	r.w("</main></body></html>\n")
	return nil
}

// groupByTag puts each operation under its first tag, tags in the order the document
// declares them; operations without a tag go under "other".
func (r *refRenderer) groupByTag(ops []refOperation) (map[string][]refOperation, []string) {
	groups := map[string][]refOperation{}
	var order []string
	seen := map[string]bool{}
	add := func(tag string) {
		if !seen[tag] {
			seen[tag] = true
			order = append(order, tag)
		}
	}
	if tags := get(r.doc, "tags"); tags != nil {
		for _, t := range tags.Content {
			add(scalar(get(t, "name")))
		}
	}
	for _, o := range ops {
		tag := "other"
		if t := get(o.op, "tags"); t != nil && len(t.Content) > 0 {
			tag = t.Content[0].Value
		}
		add(tag)
		groups[tag] = append(groups[tag], o)
	}
	kept := order[:0]
	for _, t := range order {
		if len(groups[t]) > 0 {
			kept = append(kept, t)
		}
	}
	return groups, kept
}

func (r *refRenderer) tagDescription(tag string) string {
	if tags := get(r.doc, "tags"); tags != nil {
		for _, t := range tags.Content {
			if scalar(get(t, "name")) == tag {
				return scalar(get(t, "description"))
			}
		}
	}
	return ""
}

func esc(s string) string { return html.EscapeString(s) }
