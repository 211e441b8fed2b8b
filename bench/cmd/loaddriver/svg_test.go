package main

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"
)

func TestSoakSVG(t *testing.T) {
	var ms []soakMinute
	for i := 1; i <= 3; i++ {
		m := soakMinute{minute: i, delivered: 300, p50: 40 * time.Millisecond, p99: time.Duration(i) * 100 * time.Millisecond,
			tableMB: map[string]float64{}, rssMB: 40 + float64(i)}
		for _, tb := range soakTables {
			m.tableMB[tb] = float64(10 * i)
		}
		ms = append(ms, m)
	}
	svg := soakSVG(ms)
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := dec.Token(); err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("not well-formed XML: %v", err)
			}
			break
		}
	}
	// delivered, p50 and p99, four tables, RSS
	if n := strings.Count(svg, "<polyline"); n != 8 {
		t.Errorf("%d lines drawn; want 8", n)
	}
	if strings.Contains(svg, "NaN") {
		t.Error("NaN in the SVG")
	}
}
