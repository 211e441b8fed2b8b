package delivery

import "testing"

// A first-attempt claim reads about its limit's worth of chunks, not its limit in rows: every row
// read is locked before the claim is cut to its limit.
func TestClaimRows(t *testing.T) {
	for _, c := range []struct {
		p     ClaimDueParams
		chunk int
		want  int
	}{
		{ClaimDueParams{Limit: 200}, 32, 7 + claimRowsSpare},
		{ClaimDueParams{Limit: 32}, 32, 1 + claimRowsSpare},
		{ClaimDueParams{Limit: 3}, 32, 3},                    // never more rows than deliveries
		{ClaimDueParams{Limit: 200, Retries: true}, 32, 200}, // a retry's row is one delivery
		{ClaimDueParams{Limit: 200}, 1, 200},
	} {
		if got := claimRows(c.p, c.chunk); got != c.want {
			t.Errorf("claimRows(%+v, chunk %d) = %d, want %d", c.p, c.chunk, got, c.want)
		}
	}
}
