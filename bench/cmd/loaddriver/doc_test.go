package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteMarkedSection: a run replaces only the text between its markers, keeps the rest of
// the document, and appends a marked section to a document that has none.
func TestWriteMarkedSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "perf.md")
	doc := "# Title\n\nbefore\n\n" + sectionBegin + "\nold run\n" + sectionEnd + "\n\nafter\n" +
		soakBegin + "\nold soak\n" + soakEnd + "\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 { // a second run gives the same document
		if err := writeSection(path, "new run\n"); err != nil {
			t.Fatal(err)
		}
	}
	got := read(t, path)
	want := strings.Replace(doc, "old run", "new run", 1)
	if got != want {
		t.Fatalf("after two runs:\n%s\nwant:\n%s", got, want)
	}

	bare := filepath.Join(t.TempDir(), "bare.md")
	if err := os.WriteFile(bare, []byte("# Title\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeMarkedSection(bare, soakBegin, soakEnd, "soak\n"); err != nil {
		t.Fatal(err)
	}
	if got, want := read(t, bare), "# Title\n\n"+soakBegin+"\nsoak\n"+soakEnd+"\n"; got != want {
		t.Fatalf("appended section:\n%q\nwant:\n%q", got, want)
	}
}

// TestPerformanceDocHasItsSections: docs/performance.md holds each section the driver rewrites
// (make bench-delivery and its throttle phase, make soak) exactly once and in order, so a run updates it in place
// instead of appending a second copy at the end.
func TestPerformanceDocHasItsSections(t *testing.T) {
	doc := read(t, filepath.Join("..", "..", "..", "docs", "performance.md"))
	for _, m := range [][2]string{{sectionBegin, sectionEnd}, {throttleBegin, throttleEnd}, {soakBegin, soakEnd}} {
		for _, marker := range m {
			if n := strings.Count(doc, marker); n != 1 {
				t.Errorf("docs/performance.md has %q %d times, want once", marker, n)
			}
		}
		if b, e := strings.Index(doc, m[0]), strings.Index(doc, m[1]); b < 0 || e < b {
			t.Errorf("docs/performance.md: %q does not come before %q", m[0], m[1])
		}
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
