package storage_test

import (
	"context"
	"testing"

	"outreachd/storage"
)

// newOrg creates an organization named after the test and returns its id.
func newOrg(t *testing.T, st *storage.Store) string {
	t.Helper()
	o, err := st.CreateOrg(context.Background(), "Org "+t.Name(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return o.ID
}
