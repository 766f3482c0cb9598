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

export PLAYWRIGHT_DRIVER_PATH := $(CURDIR)/.cache/playwright-driver-$(PLAYWRIGHT_DRIVER_VERSION)
export PLAYWRIGHT_NODEJS_PATH := $(shell command -v node)
export CHROMIUM_PATH ?= /usr/bin/chromium
export MCP_NODE_VERSION MCP_CONFORMANCE_VERSION
export MCP_NODE        := $(CURDIR)/.cache/node-$(MCP_NODE_VERSION)/package/bin/node
export MCP_CONFORMANCE := $(CURDIR)/.cache/mcp-conformance-$(MCP_CONFORMANCE_VERSION)/node_modules/.bin/conformance

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
## e2e/mcpfixture), then the browser tests
test: check unit fuzz-short e2e

# unit requires PostgreSQL (SWEATPANTS_PG_REQUIRED): the tests that need it
# fail rather than skip when it is missing, so a run cannot pass without
# them. Each test binary that needs it starts its own throwaway server
# (store/pgtest).
unit: deps mcp-deps pg-deps
	$(GO) vet ./...
	SWEATPANTS_PG_REQUIRED=1 $(GO) test -race -count=1 $(shell $(GO) list ./... | grep -v '/e2e$$')

## fuzz: every fuzz target (func Fuzz… in a _test.go file) for FUZZTIME
## each; fuzz-short, part of test, gives each FUZZTIME_SHORT. Go fuzzes one
## target per run. A failing input is written to the package's
## testdata/fuzz/, where it stays as a regression test once fixed.
FUZZTIME       ?= 30s
FUZZTIME_SHORT ?= 2s
FUZZ_TARGETS = $(shell git ls-files -co --exclude-standard '*_test.go' | xargs grep -Ho '^func Fuzz[A-Za-z0-9_]*' | sed -E 's|^(.*)/[^/]*:func |./\1/:|')

.PHONY: fuzz fuzz-short
fuzz: deps
	@$(call fuzz-each,$(FUZZTIME))
fuzz-short: deps
	@$(call fuzz-each,$(FUZZTIME_SHORT))

# fuzz-each fuzzes every target for $(1). Minimizing a new input is capped
# at 5s, or one worker can spend most of a run on it. Go 1.26 may fail a
# run that reaches -fuzztime with a bare "context deadline exceeded"
# (go.dev/issue/75804, fixed in Go 1.27): that, with no failing input
# written, is not a finding.
define fuzz-each
	log=$$(mktemp); trap 'rm -f $$log' EXIT; \
	for t in $(FUZZ_TARGETS); do \
		echo "fuzz $${t#*:} in $${t%:*} for $(1)"; \
		$(GO) test -run '^$$' -fuzz "^$${t#*:}\$$" -fuzztime $(1) -fuzzminimizetime 5s $${t%:*} 2>&1 | tee $$log; \
		if [ $${PIPESTATUS[0]} -ne 0 ]; then \
			grep -q 'Failing input written' $$log || ! grep -qx '    context deadline exceeded' $$log && exit 1; \
			echo "(go.dev/issue/75804: the end of -fuzztime reported as a failure; ignored)"; \
		fi; \
	done
endef

## e2e: playwright-go in real headless Chromium against the built binary
e2e: build e2e-deps pg-deps
	SWEATPANTS_PG_REQUIRED=1 SWEATPANTS_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 15m ./e2e/

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
## tool that asks once, beside a plain go-sdk server, then a 10 MB file
## uploaded (throughput, and the heap above idle), then two 15 MB pictures
## a turn over three turns (what each model call is given and costs); then the same load on
## a durable throwaway PostgreSQL: one node, three nodes, three nodes with
## every answer landing on another node than its stream's (docs/performance.md)
bench: build pg-deps
	$(GO) run ./bench -bin $(CURDIR)/$(BIN)
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 60m ./backend/chat/ ./store/
	$(GO) test -run '^$$' -bench Inspector -benchtime 200x ./backend/transport/
	$(GO) test -run '^$$' -bench SamplePipeline -benchmem ./backend/primitive/
	$(GO) test -run '^$$' -bench Truncate -benchmem ./backend/sampling/
	$(GO) test -run '^$$' -bench 'Guard|ToolPolicy' -benchmem ./backend/chat/
	$(GO) test -run '^$$' -bench TokenStream -benchtime 1x ./backend/transport/
	$(GO) test -run '^$$' -bench ModelCall -benchmem ./backend/telemetry/
	$(GO) test -run '^$$' -bench Decide -benchmem ./backend/policy/
	$(GO) test -run '^$$' -bench MCPSessions -benchtime 1x ./backend/mcp/
	$(GO) test -run '^$$' -bench . -benchmem ./backend/state/
	$(GO) test -run '^$$' -bench Upload10MB -benchtime 5x ./backend/transport/
	$(GO) test -run '^$$' -bench PicturesOverThreeTurns -benchtime 1x ./backend/attach/
	$(GO) run ./bench -bin $(CURDIR)/$(BIN) -db postgres
	$(GO) run ./bench -bin $(CURDIR)/$(BIN) -db postgres -nodes 3
	$(GO) run ./bench -bin $(CURDIR)/$(BIN) -db postgres -nodes 3 -cross -mode paced

## generate: templ components to Go
generate:
	$(GO) tool templ generate -path web/templates
	$(GO) tool templ generate -path backend/agents/demo/demoweb

## check: formatting, vet, and generated code up to date
check: deps
	test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(MAKE) --no-print-directory generate
	git diff --exit-code -- web/templates backend/agents/demo/demoweb

deps:
	$(GO) mod download
	./scripts/datastar.sh

e2e-deps:
	./scripts/e2e-deps.sh

## pg-deps: PostgreSQL from Debian's packages, for the tests' throwaway
## servers
pg-deps:
	./scripts/pg-deps.sh

## mcp-deps: Node 22 and the MCP conformance suite, under .cache/
mcp-deps:
	./scripts/mcp-deps.sh

clean:
	rm -rf bin .cache web/static/datastar.js
