package unipile_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"outreachd/adapters/unipile"
)

// pages serves n items in pages of size, numbering cursors; loop makes the last page point
// back to the first cursor.
func pages(n, size int, loop bool, calls *int) func(context.Context, string) (unipile.Page[int], error) {
	return func(_ context.Context, cursor string) (unipile.Page[int], error) {
		*calls++
		from := 0
		if cursor != "" {
			from, _ = strconv.Atoi(cursor)
		}
		p := unipile.Page[int]{}
		for i := from; i < min(from+size, n); i++ {
			p.Items = append(p.Items, i)
		}
		switch {
		case from+size < n:
			p.Cursor = strconv.Itoa(from + size)
		case loop:
			p.Cursor = strconv.Itoa(size)
		}
		return p, nil
	}
}

func TestPaging(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		n, size   int
		loop      bool
		maxPages  int
		wantItems int
		wantCalls int
		err       error
	}{
		{"one page", 3, 5, false, 10, 3, 1, nil},
		{"empty", 0, 5, false, 10, 0, 1, nil},
		{"three pages", 5, 2, false, 3, 5, 3, nil},
		{"more pages than allowed", 5, 2, false, 2, 4, 2, unipile.ErrTooManyPages},
		{"a cursor that comes back", 4, 2, true, 10, 4, 2, unipile.ErrTooManyPages},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			items, err := unipile.Collect(ctx, tc.maxPages, pages(tc.n, tc.size, tc.loop, &calls))
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if len(items) != tc.wantItems || calls != tc.wantCalls {
				t.Fatalf("%d items in %d calls, want %d in %d", len(items), calls, tc.wantItems, tc.wantCalls)
			}
		})
	}
	// Stopping early fetches no further page; a fetch error ends the sequence with it.
	calls := 0
	for it, err := range unipile.All(ctx, 10, pages(10, 2, false, &calls)) {
		if err != nil || it == 2 {
			break
		}
	}
	if calls != 2 {
		t.Fatalf("stopping at the third item fetched %d pages", calls)
	}
	boom := errors.New("boom")
	_, err := unipile.Collect(ctx, 10, func(context.Context, string) (unipile.Page[int], error) { return unipile.Page[int]{}, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}

func TestTimestampAndFlag(t *testing.T) {
	var v struct {
		A, B, C unipile.Timestamp
		F, G, H unipile.Flag
	}
	if err := json.Unmarshal([]byte(`{"A":"2025-12-31T23:59:59.999Z","B":null,"C":"yesterday","F":1,"G":true,"H":0}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.A.UnixMilli() != time.Date(2025, 12, 31, 23, 59, 59, 999e6, time.UTC).UnixMilli() || !v.B.IsZero() || !v.C.IsZero() || !bool(v.F) || !bool(v.G) || bool(v.H) {
		t.Fatalf("decoded %+v", v)
	}
	for _, bad := range []string{`{"A":5}`, `{"A":{}}`, `{"F":2}`, `{"F":"1"}`} {
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
	b, err := json.Marshal(struct{ A, B unipile.Timestamp }{A: v.A})
	if err != nil || string(b) != `{"A":"2025-12-31T23:59:59.999Z","B":null}` {
		t.Fatalf("encoded %s, %v", b, err)
	}
}
