package webapp

import (
	"context"
	"time"
)

// RunImports pushes the rows of imported files until ctx ends: a chunk at a time
// (Imports.PushNextImportChunk, one transaction each), the oldest waiting import first. A file
// taken in by this process wakes it at once; files taken in by another process (or left half
// pushed by one that stopped) are found within ImportPoll. Several processes share the work.
func (a *App) RunImports(ctx context.Context) error {
	for {
		did, err := a.imports.PushNextImportChunk(ctx)
		if ctx.Err() != nil {
			return nil
		}
		wait := a.cfg.ImportPoll
		switch {
		case err != nil:
			a.log.Error("webapp: lead import", "err", err)
			wait = 5 * time.Second
		case did:
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-a.importWake:
		case <-time.After(wait):
		}
	}
}

// wakeImports tells the import worker a file is waiting.
func (a *App) wakeImports() {
	select {
	case a.importWake <- struct{}{}:
	default:
	}
}
