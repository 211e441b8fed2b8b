package storage_test

import (
	"bytes"
	"context"
	"testing"

	"outreachd/internal/testenv"
)

func TestServiceKeyIsGeneratedOnce(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	k1, created, err := st.ServiceKey(ctx, "secrets_key", 32)
	if err != nil || !created || len(k1) != 32 {
		t.Fatalf("first: %x %v %v", k1, created, err)
	}
	k2, created, err := st.ServiceKey(ctx, "secrets_key", 32)
	if err != nil || created || !bytes.Equal(k1, k2) {
		t.Fatalf("second: %x %v %v", k2, created, err)
	}
}
