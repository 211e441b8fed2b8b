package storage_test

import (
	"context"
	"strings"
	"testing"

	"outreachd/internal/testenv"
)

// TestEmptyForFreshDemo: a fresh demo empties only a demo database with no engine running on it.
func TestEmptyForFreshDemo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testenv.Store(t)
	for _, name := range []string{"Demo organization", "Acme"} {
		if _, err := st.CreateOrg(ctx, name, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.EmptyForFreshDemo(ctx, "Demo organization"); err == nil || !strings.Contains(err.Error(), "1 organization(s) besides the demo one") {
		t.Fatalf("a database with another organization: %v", err)
	}
	pcExec(t, st, `DELETE FROM orgs WHERE name = 'Acme'`)
	pcExec(t, st, `INSERT INTO engine_instances (id, seen_at, clock_at) VALUES ('eng_other', now(), now())`)
	if err := st.EmptyForFreshDemo(ctx, "Demo organization"); err == nil || !strings.Contains(err.Error(), "another outreachd serve is running") {
		t.Fatalf("a database an engine runs on: %v", err)
	}
	pcExec(t, st, `UPDATE engine_instances SET seen_at = now() - interval '5 minutes'`)
	if err := st.EmptyForFreshDemo(ctx, "Demo organization"); err != nil {
		t.Fatal(err)
	}
	var tables int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("%d tables left (%v)", tables, err)
	}
	if err := st.Migrate(ctx); err != nil {
		t.Fatalf("migrating the emptied database: %v", err)
	}
}
