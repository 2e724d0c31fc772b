package main

import (
	"context"
	"time"

	"goodput/model"
	"goodput/packet"
	"goodput/scenario"
)

// runModel runs a scenario with the replay model.
func runModel(ctx context.Context, sc *scenario.Scenario, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error) {
	return model.Run(ctx, sc, model.Options{Seed: seed, Progress: progress})
}
