# Sweatpants for Go. `make run` serves the app; `make test` runs every test.
SHELL := /bin/bash
GO    ?= go
BIN   := bin/sweatpants
PLAYWRIGHT_DRIVER_VERSION := 1.52.0
# The MCP conformance suite and the Node it needs (>= 22), installed under
# .cache/ by mcp-deps; the suite's test (e2e/mcpfixture) finds them by
# MCP_NODE and MCP_CONFORMANCE, and skips without them.
MCP_NODE_VERSION        := 22.23.3
MCP_CONFORMANCE_VERSION := 0.2.0-alpha.12
# The AG-UI client library the AG-UI test drives the program with, on that
# Node, installed under .cache/ by e2e-deps (scripts/agui-deps.sh).
AGUI_CLIENT_VERSION     := 1.0.0

export PLAYWRIGHT_DRIVER_PATH := $(CURDIR)/.cache/playwright-driver-$(PLAYWRIGHT_DRIVER_VERSION)
export PLAYWRIGHT_NODEJS_PATH := $(shell command -v node)
export CHROMIUM_PATH ?= /usr/bin/chromium
export MCP_NODE_VERSION MCP_CONFORMANCE_VERSION AGUI_CLIENT_VERSION
export MCP_NODE        := $(CURDIR)/.cache/node-$(MCP_NODE_VERSION)/package/bin/node
export MCP_CONFORMANCE := $(CURDIR)/.cache/mcp-conformance-$(MCP_CONFORMANCE_VERSION)/node_modules/.bin/conformance
export AGUI_CLIENT     := $(CURDIR)/.cache/agui-client-$(AGUI_CLIENT_VERSION)/node_modules

.PHONY: run build test unit e2e bench generate check deps e2e-deps mcp-deps pg-deps clean screenshots

## run: build and serve on ADDR (default 127.0.0.1:8080; make run
## ADDR=127.0.0.1:9090) with the database under ./data/
ADDR ?= 127.0.0.1:8080
run: build
	./$(BIN) serve --addr $(ADDR) --db data/sweatpants.db

## build: the single binary at bin/sweatpants
build: deps
	$(GO) build -o $(BIN) ./cmd/web

## test: vet, unit tests with the race detector (the official MCP
## conformance suite against the real program among them, in
## e2e/mcpfixture), then the short fuzzing beside the browser tests (which
## mostly wait on the browser and the server; each target's output is
## printed whole when it ends)
test: check unit
	$(MAKE) --no-print-directory -j2 --output-sync=target fuzz-short e2e

# unit requires PostgreSQL (SWEATPANTS_PG_REQUIRED): the tests that need it
# fail rather than skip when it is missing, so a run cannot pass without
# them. Each test binary that needs it starts its own throwaway server
# (internal/store/pgtest). The bench program's tests drive the built binary
# (SWEATPANTS_BIN). Vetting is check's.
unit: build mcp-deps pg-deps
	SWEATPANTS_PG_REQUIRED=1 SWEATPANTS_BIN=$(CURDIR)/$(BIN) $(GO) test -race -count=1 $(shell $(GO) list ./... | grep -v '/e2e$$')

## fuzz: every fuzz target (func Fuzz… in a _test.go file) for FUZZTIME
## each; fuzz-short, part of test, gives each FUZZTIME_SHORT
## (scripts/fuzz.sh builds one fuzzing binary per package). A failing input
## is written to the package's testdata/fuzz/, where it stays as a
## regression test once fixed.
FUZZTIME       ?= 30s
FUZZTIME_SHORT ?= 2s

.PHONY: fuzz fuzz-short
fuzz: deps
	GO=$(GO) ./scripts/fuzz.sh $(FUZZTIME)
fuzz-short: deps
	GO=$(GO) ./scripts/fuzz.sh $(FUZZTIME_SHORT)

## e2e: playwright-go in real headless Chromium against the built binary
e2e: build e2e-deps pg-deps
	SWEATPANTS_PG_REQUIRED=1 SWEATPANTS_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 40m ./e2e/

## screenshots: the README tour's images (docs/tour/), taken in real
## Chromium by the e2e suite's tour test
screenshots: build e2e-deps
	mkdir -p docs/tour
	SWEATPANTS_BIN=$(CURDIR)/$(BIN) SWEATPANTS_SCREENSHOTS=$(CURDIR)/docs/tour $(GO) test -count=1 -run '^(TestTourScreenshots|TestDarkModeFollowsTheSystemAndTheToggle)$$' ./e2e/

## bench: the real server on loopback under many simulated browsers, then
## the runtime and store benchmarks (resume, history growth, cold start,
## idle conversations, tree operations at 1k and 1M nodes), then another
## user's page loads while 30 tree inspectors watch a busy conversation,
## then the sample pipeline's own cost, then what trimming the history to
## the context's budget costs a call that fits, then what the permission policy
## adds to a tool call, then a model streaming into 100 conversations'
## pages, then what telemetry adds to a model call, then the permission
## policy's decision under 100 rules, then 100 MCP sessions calling a
## tool that asks once, beside a plain go-sdk server, and one session's call after 3 and after 600 calls, then a 10 MB file
## uploaded (throughput, and the heap above idle), then two 15 MB pictures
## a turn over three turns (what each model call is given and costs); then the same load on
## a durable throwaway PostgreSQL: one node, three nodes, three nodes with
## every answer landing on another node than its stream's; and a program's
## answer round trip at 100 conversations over SSE + POST and over the
## WebSocket; and 10,000 conversations waiting on a timer: start-up over
## them and each firing's cost (docs/performance.md)
bench: build pg-deps
	$(GO) run ./bench -bin $(CURDIR)/$(BIN)
	$(GO) run ./bench -bin $(CURDIR)/$(BIN) -mode transports
	$(GO) run ./bench -mode timers
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 60m ./internal/chat/ ./internal/store/
	$(GO) test -run '^$$' -bench Inspector -benchtime 200x ./internal/transport/
	$(GO) test -run '^$$' -bench SamplePipeline -benchmem ./turn/
	$(GO) test -run '^$$' -bench Truncate -benchmem ./internal/sampling/
	$(GO) test -run '^$$' -bench 'Guard|ToolPolicy' -benchmem ./internal/chat/
	$(GO) test -run '^$$' -bench TokenStream -benchtime 1x ./internal/transport/
	$(GO) test -run '^$$' -bench ModelCall -benchmem ./internal/telemetry/
	$(GO) test -run '^$$' -bench Decide -benchmem ./policy/
	$(GO) test -run '^$$' -bench Validate -benchmem ./elicit/
	$(GO) test -run '^$$' -bench 'MCPSessions|MCPHistory' -benchtime 1x ./internal/mcp/
	$(GO) test -run '^$$' -bench . -benchmem ./internal/state/
	$(GO) test -run '^$$' -bench Upload10MB -benchtime 5x ./internal/transport/
	$(GO) test -run '^$$' -bench PicturesOverThreeTurns -benchtime 1x ./internal/attach/
	$(GO) test -run '^$$' -bench NewDatabase -benchtime 1x ./examples/demo/demoapp/
	$(GO) run ./bench -bin $(CURDIR)/$(BIN) -db postgres
	$(GO) run ./bench -bin $(CURDIR)/$(BIN) -db postgres -nodes 3
	$(GO) run ./bench -bin $(CURDIR)/$(BIN) -db postgres -nodes 3 -cross -mode paced

## generate: templ components to Go
generate:
	$(GO) tool templ generate -path internal/web/templates
	$(GO) tool templ generate -path examples/demo/demoweb
	$(GO) tool templ generate -path component

## check: formatting, vet, and generated code up to date
check: deps
	test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(MAKE) --no-print-directory generate
	git diff --exit-code -- internal/web/templates examples/demo/demoweb component

deps:
	$(GO) mod download
	./scripts/datastar.sh

e2e-deps: mcp-deps
	./scripts/e2e-deps.sh
	./scripts/agui-deps.sh

## pg-deps: PostgreSQL from Debian's packages, for the tests' throwaway
## servers
pg-deps:
	./scripts/pg-deps.sh

## mcp-deps: Node 22 and the MCP conformance suite, under .cache/
mcp-deps:
	./scripts/mcp-deps.sh

clean:
	rm -rf bin .cache internal/web/static/datastar.js
