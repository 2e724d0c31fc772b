package trials_test

import (
	"context"
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/model"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
	"github.com/goodput-lab/goodput/trials"
)

// A sweep of three seeds of the single-server example: goodput in each arm across the
// seeds, and the protected arm's gain trial by trial.
func ExampleRun() {
	sc, err := scenario.Load("../examples/single-server/single-server.scenario.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	digest, err := trials.Digest(sc)
	if err != nil {
		fmt.Println(err)
		return
	}
	replay := func(ctx context.Context, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error) {
		return model.Run(ctx, sc, model.Options{Seed: seed, Progress: progress})
	}
	cfg := trials.Config{Scenario: sc.Name, Digest: digest, FirstSeed: 1, Trials: 3}
	s, err := trials.Run(context.Background(), cfg, replay, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Seeds())
	for _, a := range s.Spread {
		st, _ := a.Figure("goodput")
		fmt.Printf("%s: goodput median %.0f, from %.0f to %.0f\n", a.Arm, st.Median, st.Min, st.Max)
	}
	d, _ := s.Deltas[0].Figure("goodput")
	fmt.Printf("%s − %s: %+.0f to %+.0f, better in %d of %d trials\n", s.Deltas[0].Arm, s.Deltas[0].Versus, d.Min, d.Max, d.Better, d.N)
	// Output:
	// seeds 1–3
	// fifo: goodput median 138608, from 132218 to 139228
	// deadline-queue: goodput median 237339, from 236726 to 237546
	// deadline-queue − fifo: +98111 to +105328, better in 3 of 3 trials
}
