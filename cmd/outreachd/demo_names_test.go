package main

import "testing"

// TestDemoNamesAreDistinct: the demo's people never share a name (the needs-human queue showed
// "Ben Okafor" once per start), and the first wave keeps the names the guides show.
func TestDemoNamesAreDistinct(t *testing.T) {
	t.Parallel()
	seen := map[string]int{}
	for n := range len(demoFirst) * len(demoLast) {
		first, last, _ := demoName(n)
		if m, dup := seen[first+" "+last]; dup {
			t.Fatalf("leads %d and %d are both %s %s", m, n, first, last)
		}
		seen[first+" "+last] = n
	}
	for n, want := range []string{"Ada Quinn Northwind", "Ben Okafor Contoso", "Chloe Martin Fabrikam", "Dev Patel Tailspin"} {
		if f, l, c := demoName(n); f+" "+l+" "+c != want {
			t.Errorf("lead %d is %s %s %s, want %s", n, f, l, c, want)
		}
	}
}
