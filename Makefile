# Sweatpants for Go. `make run` serves the app; `make test` runs every test.
SHELL := /bin/bash
GO    ?= go
BIN   := bin/sweatpants
PLAYWRIGHT_DRIVER_VERSION := 1.52.0

export PLAYWRIGHT_DRIVER_PATH := $(CURDIR)/.cache/playwright-driver-$(PLAYWRIGHT_DRIVER_VERSION)
export PLAYWRIGHT_NODEJS_PATH := $(shell command -v node)
export CHROMIUM_PATH ?= /usr/bin/chromium

.PHONY: run build test unit e2e bench generate check deps e2e-deps clean

## run: build and serve on 127.0.0.1:8080 with the database under ./data/
run: build
	./$(BIN) serve --addr 127.0.0.1:8080 --db data/sweatpants.db

## build: the single binary at bin/sweatpants
build: deps
	$(GO) build -o $(BIN) ./cmd/web

## test: vet, unit tests with the race detector, then the browser tests
test: check unit e2e

unit: deps
	$(GO) vet ./...
	$(GO) test -race -count=1 $(shell $(GO) list ./... | grep -v /e2e)

## e2e: playwright-go in real headless Chromium against the built binary
e2e: build e2e-deps
	SWEATPANTS_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 15m ./e2e/

## bench: the real server on loopback under many simulated browsers, then
## the runtime and store benchmarks (resume, history growth, cold start,
## idle conversations, tree operations at 1k and 1M nodes)
bench: build
	$(GO) run ./bench -bin $(CURDIR)/$(BIN)
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 60m ./backend/chat/ ./store/

## generate: templ components to Go
generate:
	$(GO) tool templ generate -path web/templates

## check: formatting, vet, and generated code up to date
check: deps
	test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) tool templ generate -path web/templates
	git diff --exit-code -- web/templates

deps:
	$(GO) mod download
	./scripts/datastar.sh

e2e-deps:
	./scripts/e2e-deps.sh

clean:
	rm -rf bin .cache web/static/datastar.js
