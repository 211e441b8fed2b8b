package storage_test

import (
	"context"
	"errors"
	"testing"

	"outreachd/internal/testenv"
	"outreachd/outreach"
)

// Revoking a key the organization does not have is not found, not a silent success.
func TestRevokeUnknownKey(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org, err := st.CreateOrg(ctx, "o", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.RevokeOrgAPIKey(ctx, org.ID, "key_none"); !errors.Is(err, outreach.ErrNotFound) {
		t.Fatalf("revoke unknown key: %v", err)
	}
}
