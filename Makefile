# The two commands the README promises on a fresh clone:
#   make demo   run the demo (no collector needed: traces are drawn in the terminal)
#   make test   run the test suite
# Both provision Node.js >= 22 into .toolchain/ when the machine's is older.
SHELL := /bin/bash
NODE_ENV_SH := source scripts/node-env.sh

.PHONY: demo test install build check bench

node_modules/.package-lock.json: package-lock.json
	@$(NODE_ENV_SH) && npm ci --no-audit --no-fund

install: node_modules/.package-lock.json

build: install
	@$(NODE_ENV_SH) && npm run --silent build

demo: build
	@$(NODE_ENV_SH) && node dist/cli/main.js demo

test: install
	@bash scripts/ensure-prometheus.sh
	@$(NODE_ENV_SH) && npm test

check: install
	@$(NODE_ENV_SH) && npm run --silent typecheck && npm run --silent lint && npm run --silent format:check
