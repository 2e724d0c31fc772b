package main

import (
	"context"
	"errors"
	"time"

	"goodput/packet"
	"goodput/scenario"
)

// runModel runs a scenario with the replay model. (The model package is being built in
// parallel; this adapter becomes a call to model.Run when it lands.)
func runModel(ctx context.Context, sc *scenario.Scenario, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error) {
	return nil, errors.New("the replay model is not built yet")
}
