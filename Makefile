# make run   — start PostgreSQL if needed, serve on a demo organization, print its API key
# make run-fresh — the same, after emptying the demo database: the demo starts over
# make test  — go vet, then the whole suite against real PostgreSQL (what .ci/run calls)
# make vet   — go vet ./...
SHELL := /bin/bash
GO ?= go
DB = $$(scripts/db.sh)

.PHONY: build run run-fresh test vet fuzz bench bench-delivery soak clean

build:
	$(GO) build -o bin/outreachd ./cmd/outreachd

# The demo runs the LinkedIn simulator 3600x faster than real time (an hour a second) so a campaign moves while you
# watch (SIMULATOR_SPEED=1 make run for real time).
SIMULATOR_SPEED ?= 3600
# make run is a local development run: event destinations on 127.0.0.1 and private addresses are
# accepted, so a receiver on this machine works (never in production).
ALLOW_PRIVATE_DESTINATIONS ?= true

run: build
	DATABASE_URL="$(DB)" SIMULATOR_SPEED=$(SIMULATOR_SPEED) ALLOW_PRIVATE_DESTINATIONS=$(ALLOW_PRIVATE_DESTINATIONS) \
	  bin/outreachd serve --demo

# Starts the demo over: serve --demo --fresh empties the database first (it refuses one that holds
# any organization but the demo one, or that another serve is running on).
run-fresh: build
	DATABASE_URL="$(DB)" SIMULATOR_SPEED=$(SIMULATOR_SPEED) ALLOW_PRIVATE_DESTINATIONS=$(ALLOW_PRIVATE_DESTINATIONS) \
	  bin/outreachd serve --demo --fresh

vet:
	$(GO) vet ./...
	@unformatted="$$(gofmt -l .)"; if [ -n "$$unformatted" ]; then echo "not gofmt-formatted (run gofmt -w):" $$unformatted; exit 1; fi

# The browser tests' Chromium is found (or installed) once here, before packages test in parallel.
test: build vet
	DATABASE_URL="$(DB)" CHROMIUM="$$(scripts/chromium.sh)" $(GO) test -count=1 -timeout 12m ./...

# A short run of every fuzz target (the seeds also run in make test).
fuzz:
	@grep -rl --include='*_test.go' '^func Fuzz' . | while read -r f; do \
	  pkg=./$$(dirname $$f); \
	  for t in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$f | sed 's/^func //'); do \
	    echo "== $$pkg $$t"; $(GO) test -run='^$$' -fuzz="^$$t$$" -fuzztime=15s $$pkg || exit 1; \
	  done; \
	done

# Go benchmarks against real PostgreSQL; figures go to docs/performance.md.
bench: build
	DATABASE_URL="$(DB)" $(GO) test -run='^$$' -bench=. -benchtime=1x -timeout 30m ./bench/... ./webapp/

bench-delivery: build
	DATABASE_URL="$(DB)" $(GO) run ./bench/cmd/loaddriver -mode delivery -doc docs/performance.md

# A long steady run of the delivery hub on a private PostgreSQL cluster with default settings
# (not part of make test): 500 events/s to 3 destinations (one fails half its requests), short
# retention, a report line every minute, the curves in docs/soak.svg and the table in
# docs/performance.md. SOAK_FLAGS=-duration=8m for a shorter run.
SOAK_FLAGS ?=
soak: build
	$(GO) run ./bench/cmd/loaddriver -mode soak -svg docs/soak.svg -doc docs/performance.md $(SOAK_FLAGS)

clean:
	rm -rf bin
