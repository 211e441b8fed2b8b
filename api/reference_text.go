package api

import (
	"encoding/json"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Small readers of yaml.Nodes and a little Markdown (paragraphs, bullet lists, code spans,
// bold, fenced blocks): enough for the descriptions of docs/openapi.yaml.

type refPair struct {
	key string
	val *yaml.Node
}

// get is the value of key in a mapping node, nil when absent or n is not a mapping.
func get(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// pairs lists a mapping's entries in file order.
func pairs(n *yaml.Node) []refPair {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([]refPair, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, refPair{key: n.Content[i].Value, val: n.Content[i+1]})
	}
	return out
}

func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// toJSON shows an example value as indented JSON, keys in the document's order.
func toJSON(n *yaml.Node) string {
	var b strings.Builder
	writeJSONNode(&b, n, "")
	return b.String()
}

func writeJSONNode(b *strings.Builder, n *yaml.Node, indent string) {
	inner := indent + "  "
	switch n.Kind {
	case yaml.DocumentNode, yaml.AliasNode:
		if len(n.Content) > 0 {
			writeJSONNode(b, n.Content[0], indent)
		} else if n.Alias != nil {
			writeJSONNode(b, n.Alias, indent)
		}
	case yaml.MappingNode:
		if len(n.Content) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{")
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteString(",")
			}
			key, _ := json.Marshal(n.Content[i].Value)
			b.WriteString("\n" + inner + string(key) + ": ")
			writeJSONNode(b, n.Content[i+1], inner)
		}
		b.WriteString("\n" + indent + "}")
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[")
		for i, c := range n.Content {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + inner)
			writeJSONNode(b, c, inner)
		}
		b.WriteString("\n" + indent + "]")
	default:
		switch n.ShortTag() {
		case "!!int", "!!float", "!!bool":
			b.WriteString(n.Value)
		case "!!null":
			b.WriteString("null")
		default:
			s, _ := json.Marshal(n.Value)
			b.Write(s)
		}
	}
}

var (
	codeSpan = regexp.MustCompile("`([^`]+)`")
	boldSpan = regexp.MustCompile(`\*\*([^*]+)\*\*`)
)

// inline escapes s and renders `code` and **bold**.
func inline(s string) string {
	s = esc(s)
	s = codeSpan.ReplaceAllString(s, "<code>$1</code>")
	return boldSpan.ReplaceAllString(s, "<strong>$1</strong>")
}

// markdown renders blocks separated by blank lines: fenced code, bullet lists ("* " or "- "),
// tables and anything else as paragraphs.
func markdown(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	var b strings.Builder
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); {
		line := strings.TrimSpace(lines[i])
		switch {
		case line == "":
			i++
		case strings.HasPrefix(line, "```"):
			j := i + 1
			for j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), "```") {
				j++
			}
			b.WriteString("<pre>" + esc(strings.Join(lines[i+1:min(j, len(lines))], "\n")) + "</pre>")
			i = j + 1
		case strings.HasPrefix(line, "|"):
			j := i
			for j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "|") {
				j++
			}
			b.WriteString("<pre>" + esc(strings.Join(lines[i:j], "\n")) + "</pre>")
			i = j
		case isBullet(line):
			b.WriteString("<ul>")
			var item []string
			flush := func() {
				if len(item) > 0 {
					b.WriteString("<li>" + inline(strings.Join(item, " ")) + "</li>")
				}
				item = nil
			}
			for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
				l := strings.TrimSpace(lines[i])
				if isBullet(l) {
					flush()
					l = l[2:]
				}
				item = append(item, l)
			}
			flush()
			b.WriteString("</ul>")
		default:
			var para []string
			for ; i < len(lines) && strings.TrimSpace(lines[i]) != "" && !isBullet(strings.TrimSpace(lines[i])); i++ {
				para = append(para, strings.TrimSpace(lines[i]))
			}
			b.WriteString("<p>" + inline(strings.Join(para, " ")) + "</p>")
		}
	}
	return b.String()
}

func isBullet(l string) bool { return strings.HasPrefix(l, "* ") || strings.HasPrefix(l, "- ") }

// referenceStyle is the page's whole style sheet.
const referenceStyle = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;background:#fff;display:flex}
nav{position:sticky;top:0;height:100vh;overflow-y:auto;width:300px;flex:none;padding:16px;background:#f5f6f8;border-right:1px solid #dde1e6;font-size:13px}
nav .brand{font-weight:700;font-size:16px;margin:0 0 4px}
nav h4{margin:14px 0 4px;text-transform:uppercase;font-size:11px;color:#5b6475;letter-spacing:.05em}
nav ul{list-style:none;margin:0;padding:0}
nav li a{display:block;padding:2px 0;color:#1d2330;text-decoration:none;word-break:break-all}
nav li a:hover{color:#0b5cad}
main{flex:1;min-width:0;max-width:1000px;padding:24px 40px 80px}
h1{margin-top:0}
h2{border-bottom:2px solid #dde1e6;padding-bottom:4px;margin-top:48px;text-transform:capitalize}
h3{margin:0 0 4px;font-size:17px}
h4{margin:16px 0 6px;font-size:14px}
a{color:#0b5cad}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
code{background:#f0f2f5;padding:1px 4px;border-radius:3px}
pre{background:#f5f6f8;border:1px solid #e3e6ea;padding:10px;overflow-x:auto;border-radius:4px}
pre code{background:none;padding:0}
.lead{font-size:17px;color:#3b4456}
.op,.schema{border:1px solid #dde1e6;border-radius:6px;padding:14px 18px;margin:18px 0}
.summary{margin:0 0 6px;font-weight:600}
.url{color:#5b6475;margin:0 0 8px}
.m{display:inline-block;min-width:54px;text-align:center;font:700 11px/18px ui-monospace,monospace;border-radius:3px;color:#fff;background:#5b6475}
.m-get{background:#1f7a4d}.m-post{background:#0b5cad}.m-patch{background:#a3620a}.m-delete{background:#b3261e}.m-put{background:#6b3fa0}
.badge{font-size:11px;border:1px solid #c5cbd3;border-radius:10px;padding:0 6px;margin-left:6px;color:#3b4456}
.req{font-size:11px;color:#b3261e}
table{border-collapse:collapse;width:100%;margin:6px 0;font-size:13px}
th,td{border:1px solid #e3e6ea;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f5f6f8;font-weight:600}
td p{margin:0 0 4px}
.responses dt{margin-top:8px;font-weight:600}
.responses dd{margin:2px 0 8px 18px}
.code{font-family:ui-monospace,monospace;padding:0 5px;border-radius:3px;background:#e9ecef}
.c2{background:#d8f0e3}.c4{background:#fbe3d6}.c5{background:#f8d7da}
.mt{font-family:ui-monospace,monospace;font-size:12px;color:#5b6475}
.media{margin:4px 0}
.type{margin:2px 0}
.lim{color:#5b6475;font-size:12px}
.kw{font-weight:600;font-size:13px}
.extitle{margin:8px 0 2px;font-size:12px;font-weight:600;color:#5b6475}
.headers{margin:2px 0;font-size:13px}
@media (max-width:800px){body{display:block}nav{position:static;width:auto;height:auto}main{padding:16px}}
`
