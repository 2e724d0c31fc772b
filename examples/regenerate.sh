#!/bin/sh
# Regenerates every committed replay output under examples/ with the model of this
# checkout: the Northstar packet, its cache and health variants, the ten-seed trials and
# the three grids, the failover example and the seed replays. Run from the repository root after a change that moves replay figures
# (and raises model.Version); then update the figures README.md and docs/northstar.md
# quote, and check the incident claims with `goodput incident check examples/incidents`.
# Each line is the command docs/northstar.md quotes for that output; on two idle cores
# the whole run takes about half an hour.
set -eu
bin=$(mktemp -d)/goodput
trap 'rm -f "$bin"' EXIT
go build -o "$bin" ./cmd/goodput
ns=examples/northstar
run() { echo "+ goodput $*" >&2; "$bin" "$@" --quiet >/dev/null; }

run replay $ns/northstar.scenario.yaml --out $ns/packet
run replay $ns/cache/northstar-cache.scenario.yaml --out $ns/cache/packet
run replay $ns/health/northstar-health.scenario.yaml --out $ns/health/packet
run replay $ns/northstar.scenario.yaml --trials 10 --out $ns/trials
run replay $ns/northstar.scenario.yaml --trials 1 \
	--vary 'faults.2.service_time={p50: 40ms, p99: 300ms},{p50: 40ms, p99: 410ms}' \
	--vary 'faults.2.for=1m,3m,7m' --out $ns/metastable
run replay $ns/cache/northstar-cache.scenario.yaml --trials 1 \
	--vary 'topology.dependencies.catalog.timeout=0s,200ms,500ms,1s' \
	--vary 'topology.dependencies.catalog.concurrency=40,24' --out $ns/cache/catalog
run replay $ns/health/northstar-health.scenario.yaml --trials 1 \
	--vary 'topology.services.checkout.health.timeout=1s,2s,5s' \
	--vary 'topology.services.checkout.health.failures=3,10' --out $ns/health/probes
run replay examples/failover/failover.scenario.yaml --out examples/failover/packet
run replay examples/router-limit/router-limit.scenario.yaml --out examples/router-limit/packet
run replay examples/payment-timeout/payment-timeout.scenario.yaml --out examples/payment-timeout/packet
"$bin" incident check examples/incidents
