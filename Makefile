# handwave: the README's two commands are `make serve` and `make test`.
SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(CURDIR)/node_modules/.bin:$(PATH)

.PHONY: setup serve test check dist bench baselines fonts native-test component-test e2e hardening fmt

setup:
	@scripts/setup.sh

## Install what is missing, build (release) and serve with live reload at a printed address.
serve: setup
	@echo "handwave: building, then serving at http://127.0.0.1:8080/ (Ctrl-C stops)"
	trunk serve --release

## Install what is missing and run every test: native, component (wasm in Chromium), end to end.
test: setup
	@scripts/test.sh

## The inner loop: formatting, native tests, a release build, a smoke test of the page.
check: setup
	@scripts/check.sh

## Release build of the static site into dist/.
dist: setup
	@scripts/dist.sh

## First-load bytes and control -> redraw timings in headless Chromium (a benchmark, not a test).
bench: dist
	cargo run --quiet --release --example train_speed
	node scripts/bench.mjs

## Rewrite the visual-regression baselines in tests/visual/ on purpose (then commit them).
baselines: dist
	UPDATE_BASELINES=1 node --test tests/e2e/visual.test.mjs

## Cut KaTeX's fonts down to the characters the formulas show, into assets/fonts/ (then commit them).
fonts:
	@scripts/subset-fonts.sh

## The hardening suites at their long counts: 20,000 hostile URLs, 50,000 soak changes.
hardening: dist
	FUZZ_QUERIES=20000 node --test tests/e2e/hostile.test.mjs
	SOAK_CHANGES=50000 node --test tests/e2e/soak.test.mjs

native-test:
	@scripts/native-test.sh

component-test: setup
	@scripts/test.sh components

e2e: dist
	node --test tests/e2e/

fmt:
	cargo fmt
