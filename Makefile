# orrery — two entry points: `make run` (the main job) and `make test` (the whole suite).
SHELL := /bin/bash
NODE_MODULES := node_modules/.package-lock.json
TESTS = $(shell find core sim bench e2e scenarios notebooks bin -name '*.test.ts' 2>/dev/null | sort)
DATA_DIR ?= results/serve
PORT ?= 6443

.PHONY: run serve test typecheck lint unit e2e bench clean

$(NODE_MODULES): package.json
	npm install --no-audit --no-fund
	@touch $(NODE_MODULES)

## The main job: serve the API server over HTTPS (kubeconfig in $(DATA_DIR)/kubeconfig).
run: serve

serve: $(NODE_MODULES)
	node --import tsx bin/orrery.ts serve --data-dir $(DATA_DIR) --secure-port $(PORT)

## Type check, lint, then every *.test.ts (unit tests beside the code, end-to-end suites in e2e/).
test: $(NODE_MODULES)
	npx tsc --noEmit -p .
	npx eslint --no-error-on-unmatched-pattern core sim bench bin e2e
	node --import tsx --test --test-concurrency=2 $(TESTS)

unit: $(NODE_MODULES)
	node --import tsx --test $(filter-out e2e/%,$(TESTS))

e2e: $(NODE_MODULES)
	node --import tsx --test $(filter e2e/%,$(TESTS))

bench: $(NODE_MODULES)
	node --import tsx bench/apiserver.ts

clean:
	rm -rf results/serve results/bench

lint: $(NODE_MODULES)
	npx eslint --no-error-on-unmatched-pattern core sim bench bin e2e
