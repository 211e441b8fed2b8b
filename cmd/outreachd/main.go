// Command outreachd is the whole service in one binary:
//
//	outreachd serve     the API and every background worker in one process
//	outreachd migrate   apply the schema and exit
//	outreachd admin ... the operator CLI (what the application's settings screens do)
//
// Configuration is read once, here, from the environment (flags may override); every part is
// built by its constructor and given what it needs.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// SIGINT/SIGTERM cancel ctx: a migration, an admin command or serve's start-up stops there.
	// Once serving, serve's run group has its own signal actor (lifecycle.go), which also ends
	// when ctx does, so a signal between the two is not lost.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = runServe(ctx, os.Args[2:])
	case "migrate":
		err = runMigrate(ctx, os.Args[2:])
	case "admin":
		os.Exit(runAdmin(ctx, os.Args[2:], os.Stdout, os.Stderr))
	case "help", "-h", "--help":
		usage()
		return
	default:
		usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "outreachd %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, `usage: outreachd serve [--demo] | migrate | admin <resource> <action> [flags]
Configuration comes from the environment; see README.md.`)
}

func runMigrate(ctx context.Context, args []string) error {
	cfg, err := loadConfig(args, nil)
	if err != nil {
		return err
	}
	st, _, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"ok": true})
}
