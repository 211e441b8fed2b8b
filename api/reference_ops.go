package api

import (
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// operation writes one operation: address, summary, key, parameters, body, responses.
func (r *refRenderer) operation(o refOperation) {
	r.w("<article class=\"op\" id=\"%s\">\n<h3><span class=\"m m-%s\">%s</span> <code>%s</code></h3>\n",
		o.anchor(), strings.ToLower(o.method), o.method, esc(o.path))
	if s := scalar(get(o.op, "summary")); s != "" {
		r.w("<p class=\"summary\">%s</p>\n", inline(s))
	}
	r.w("<p class=\"url\"><code>%s %s%s</code>", o.method, esc(o.server), esc(o.path))
	if st := scalar(get(o.op, "x-outreachd-status")); st != "" {
		r.w(" <span class=\"badge\">%s</span>", esc(st))
	}
	if o.webhook {
		r.w(" <span class=\"badge\">signed with the destination's secret</span>")
	} else if sec := get(o.op, "security"); sec != nil && len(sec.Content) == 0 {
		r.w(" <span class=\"badge\">no key</span>")
	} else if o.server != "" {
		r.w(" <span class=\"badge\">Bearer key</span>")
	}
	r.w("</p>\n%s", markdown(scalar(get(o.op, "description"))))
	var params []*yaml.Node
	if p := get(o.item, "parameters"); p != nil {
		params = append(params, p.Content...)
	}
	if p := get(o.op, "parameters"); p != nil {
		params = append(params, p.Content...)
	}
	r.parameters(params)
	if body := r.deref(get(o.op, "requestBody")); body != nil {
		req := ""
		if scalar(get(body, "required")) == "true" {
			req = " (required)"
		}
		r.w("<h4>Request body%s</h4>\n%s", req, markdown(scalar(get(body, "description"))))
		r.content(get(body, "content"))
	}
	if resps := get(o.op, "responses"); resps != nil {
		r.w("<h4>Responses</h4>\n<dl class=\"responses\">\n")
		for _, p := range pairs(resps) {
			resp := r.deref(p.val)
			r.w("<dt><span class=\"code c%c\">%s</span> %s</dt><dd>", p.key[0], esc(p.key), inline(firstLine(scalar(get(resp, "description")))))
			if hs := get(resp, "headers"); hs != nil {
				var names []string
				for _, h := range pairs(hs) {
					names = append(names, "<code>"+esc(h.key)+"</code>")
				}
				r.w("<p class=\"headers\">Headers: %s</p>", strings.Join(names, ", "))
			}
			r.content(get(resp, "content"))
			r.w("</dd>\n")
		}
		r.w("</dl>\n")
	}
	r.w("</article>\n")
}

func (r *refRenderer) parameters(params []*yaml.Node) {
	if len(params) == 0 {
		return
	}
	r.w("<h4>Parameters</h4>\n<table><tr><th>name</th><th>in</th><th>type</th><th>description</th></tr>\n")
	for _, p := range params {
		p = r.deref(p)
		name := "<code>" + esc(scalar(get(p, "name"))) + "</code>"
		if scalar(get(p, "required")) == "true" {
			name += " <span class=\"req\">required</span>"
		}
		r.w("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", name, esc(scalar(get(p, "in"))),
			r.typeOf(get(p, "schema")), markdown(scalar(get(p, "description"))))
	}
	r.w("</table>\n")
}

// content writes each media type's schema and examples.
func (r *refRenderer) content(c *yaml.Node) {
	for _, mt := range pairs(c) {
		r.w("<div class=\"media\"><span class=\"mt\">%s</span> %s", esc(mt.key), r.schemaBlock(get(mt.val, "schema"), 0))
		if ex := get(mt.val, "example"); ex != nil {
			r.example("Example", ex)
		}
		for _, ex := range pairs(get(mt.val, "examples")) {
			r.example("Example: "+ex.key, get(ex.val, "value"))
		}
		r.w("</div>\n")
	}
}

func (r *refRenderer) example(title string, v *yaml.Node) {
	if v == nil {
		return
	}
	r.w("<p class=\"extitle\">%s</p><pre>%s</pre>", esc(title), esc(toJSON(v)))
}

// webhooks writes the outbound events: what a destination receives.
func (r *refRenderer) webhooks() {
	hooks := get(r.doc, "webhooks")
	r.w("<section><h2 id=\"webhooks\">Outbound events</h2>\n<p>What outreachd POSTs to an event destination.</p>\n")
	for _, h := range pairs(hooks) {
		for _, m := range refMethods {
			if op := get(h.val, m); op != nil {
				r.operation(refOperation{method: strings.ToUpper(m), path: "(your destination URL) — " + h.key, item: h.val, op: op, webhook: true})
			}
		}
	}
	r.w("</section>\n")
}

// schemas writes every named schema; references elsewhere on the page link here.
func (r *refRenderer) schemas() {
	r.w("<section><h2 id=\"schemas\">Schemas</h2>\n")
	for _, s := range pairs(get(get(r.doc, "components"), "schemas")) {
		r.w("<article class=\"schema\" id=\"schema-%s\"><h3>%s</h3>\n%s</article>\n", esc(s.key), esc(s.key), r.schemaBlock(s.val, 0))
	}
	r.w("</section>\n")
}

// schemaBlock renders a schema: a table of fields for an object, else a one-line type, plus
// its description and constraints.
func (r *refRenderer) schemaBlock(s *yaml.Node, depth int) string {
	if s == nil {
		return ""
	}
	var b strings.Builder
	if ref := scalar(get(s, "$ref")); ref != "" {
		return r.typeOf(s)
	}
	if d := scalar(get(s, "description")); d != "" {
		b.WriteString(markdown(d))
	}
	for _, k := range []string{"allOf", "oneOf", "anyOf"} {
		list := get(s, k)
		if list == nil {
			continue
		}
		b.WriteString("<div class=\"comp\"><span class=\"kw\">" + map[string]string{"allOf": "all of", "oneOf": "one of", "anyOf": "any of"}[k] + ":</span><ul>")
		for _, m := range list.Content {
			b.WriteString("<li>" + r.schemaBlock(m, depth+1) + "</li>")
		}
		b.WriteString("</ul></div>")
	}
	props := get(s, "properties")
	if props == nil || depth > 4 {
		if get(s, "allOf") == nil && get(s, "oneOf") == nil && get(s, "anyOf") == nil {
			b.WriteString("<p class=\"type\">" + r.typeOf(s) + "</p>")
		}
		return b.String()
	}
	required := map[string]bool{}
	if req := get(s, "required"); req != nil {
		for _, n := range req.Content {
			required[n.Value] = true
		}
	}
	b.WriteString("<table class=\"fields\"><tr><th>field</th><th>type</th><th>description</th></tr>")
	for _, p := range pairs(props) {
		name := "<code>" + esc(p.key) + "</code>"
		if required[p.key] {
			name += " <span class=\"req\">required</span>"
		}
		desc := markdown(scalar(get(p.val, "description")))
		if nested := get(p.val, "properties"); nested != nil {
			desc += r.schemaBlock(withoutDescription(p.val), depth+1)
		} else if items := get(p.val, "items"); items != nil && get(items, "properties") != nil {
			desc += r.schemaBlock(items, depth+1)
		}
		b.WriteString("<tr><td>" + name + "</td><td>" + r.typeOf(p.val) + "</td><td>" + desc + "</td></tr>")
	}
	b.WriteString("</table>")
	return b.String()
}

// typeOf is a one-line description of a schema's type: a link for a named schema, "array of X",
// enums and constraints.
func (r *refRenderer) typeOf(s *yaml.Node) string {
	if s == nil {
		return "any"
	}
	if ref := scalar(get(s, "$ref")); ref != "" {
		name := ref[strings.LastIndex(ref, "/")+1:]
		return "<a href=\"#schema-" + esc(name) + "\">" + esc(name) + "</a>"
	}
	var parts []string
	t := get(s, "type")
	switch {
	case t != nil && t.Kind == yaml.SequenceNode:
		var names []string
		for _, n := range t.Content {
			names = append(names, n.Value)
		}
		parts = append(parts, esc(strings.Join(names, " or ")))
	case t != nil:
		parts = append(parts, esc(t.Value))
	case get(s, "properties") != nil:
		parts = append(parts, "object")
	case get(s, "allOf") != nil || get(s, "oneOf") != nil || get(s, "anyOf") != nil:
		var alts []string
		for _, k := range []string{"allOf", "oneOf", "anyOf"} {
			if l := get(s, k); l != nil {
				for _, m := range l.Content {
					alts = append(alts, r.typeOf(m))
				}
			}
		}
		parts = append(parts, strings.Join(alts, " | "))
	}
	if items := get(s, "items"); items != nil {
		parts = append(parts, "of "+r.typeOf(items))
	}
	if ap := get(s, "additionalProperties"); ap != nil && ap.Kind == yaml.MappingNode {
		parts = append(parts, "of "+r.typeOf(ap))
	}
	if f := scalar(get(s, "format")); f != "" {
		parts = append(parts, "("+esc(f)+")")
	}
	if e := get(s, "enum"); e != nil {
		var vals []string
		for _, n := range e.Content {
			vals = append(vals, "<code>"+esc(n.Value)+"</code>")
		}
		parts = append(parts, "one of "+strings.Join(vals, ", "))
	}
	if c := get(s, "const"); c != nil {
		parts = append(parts, "always <code>"+esc(c.Value)+"</code>")
	}
	var limits []string
	for _, k := range []string{"minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "default"} {
		if v := scalar(get(s, k)); v != "" {
			limits = append(limits, k+" "+esc(v))
		}
	}
	sort.Strings(limits)
	if len(limits) > 0 {
		parts = append(parts, "<span class=\"lim\">"+strings.Join(limits, ", ")+"</span>")
	}
	if len(parts) == 0 {
		return "any"
	}
	return strings.Join(parts, " ")
}

// deref follows a local $ref ("#/components/...") to the node it names.
func (r *refRenderer) deref(n *yaml.Node) *yaml.Node {
	for i := 0; i < 8 && n != nil; i++ {
		ref := scalar(get(n, "$ref"))
		if !strings.HasPrefix(ref, "#/") {
			return n
		}
		cur := r.doc
		for _, part := range strings.Split(ref[2:], "/") {
			cur = get(cur, strings.NewReplacer("~1", "/", "~0", "~").Replace(part))
		}
		n = cur
	}
	return n
}

func withoutDescription(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != "description" {
			c.Content = append(c.Content, n.Content[i], n.Content[i+1])
		}
	}
	return &c
}
