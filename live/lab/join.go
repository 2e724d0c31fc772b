package lab

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/goodput-lab/goodput/packet"
)

// Join returns one packet with the arms of live, a lab's packet, and of replay, the
// replay of the same scenario and seed, on one clock: each live arm keeps its name and is
// followed by its replay, renamed [packet.ReplayName] (baseline_replay) with Source
// "replay", and the replay's fault annotations are copied to the live arm they apply to,
// since the proxies apply the scenario's faults on the same timeline. A replay arm with no
// live arm of its name is kept, after the pairs. The packet's seed and scenario are
// theirs, its model version the replay's. The inputs are not changed.
func Join(live, replay *packet.Packet) (*packet.Packet, error) {
	switch {
	case live == nil || replay == nil || len(live.Arms) == 0 || len(replay.Arms) == 0:
		return nil, fmt.Errorf("%w: Join needs a live packet and a replay packet, each with arms", ErrMismatch)
	case live.Scenario != replay.Scenario:
		return nil, fmt.Errorf("%w: the live packet is of scenario %q, the replay of %q", ErrMismatch, live.Scenario, replay.Scenario)
	case live.Seed != replay.Seed:
		return nil, fmt.Errorf("%w: the live packet has seed %d, the replay %d", ErrMismatch, live.Seed, replay.Seed)
	}
	clock := live.Arms[0]
	for _, a := range slices.Concat(live.Arms, replay.Arms) {
		if a.Start != clock.Start || a.Tick != clock.Tick || a.Duration != clock.Duration {
			return nil, fmt.Errorf("%w: arm %s runs from %v for %v by %v, arm %s from %v for %v by %v; expected one clock, the scenario's",
				ErrMismatch, a.Name, a.Start, a.Duration, a.Tick, clock.Name, clock.Start, clock.Duration, clock.Tick)
		}
	}
	for _, a := range live.Arms {
		if !a.IsLive() {
			return nil, fmt.Errorf("%w: arm %s of the live packet has source %q, expected %q", ErrMismatch, a.Name, a.Source, packet.SourceLive)
		}
	}
	for _, r := range replay.Arms {
		if r.Source != "" {
			return nil, fmt.Errorf("%w: arm %s of the replay packet has source %q; expected a replay's own packet, whose arms have none", ErrMismatch, r.Name, r.Source)
		}
	}
	out := &packet.Packet{Scenario: live.Scenario, Seed: live.Seed, ModelVersion: replay.ModelVersion, Set: replay.Set}
	used := make([]bool, len(replay.Arms))
	replayArm := func(r packet.Arm) packet.Arm {
		r.Name, r.Source = packet.ReplayName(r.Name), packet.SourceReplay
		r.Events = slices.Clone(r.Events)
		for i := range r.Events {
			r.Events[i].Arm = r.Name
		}
		return r
	}
	for _, a := range live.Arms {
		a.Events = slices.Clone(a.Events)
		out.Arms = append(out.Arms, a)
		i := slices.IndexFunc(replay.Arms, func(r packet.Arm) bool { return r.Name == a.Name })
		if i < 0 {
			continue
		}
		used[i] = true
		l := &out.Arms[len(out.Arms)-1]
		for _, e := range replay.Arms[i].Events {
			if e.Kind == "fault" {
				e.Arm = a.Name
				l.Events = append(l.Events, e)
			}
		}
		slices.SortStableFunc(l.Events, func(x, y packet.Event) int { return cmp.Compare(x.T, y.T) })
		out.Arms = append(out.Arms, replayArm(replay.Arms[i]))
	}
	for i, r := range replay.Arms {
		if !used[i] {
			out.Arms = append(out.Arms, replayArm(r))
		}
	}
	seen := map[string]bool{}
	for _, a := range out.Arms {
		if seen[a.Name] {
			return nil, fmt.Errorf("%w: two arms named %s in the joined packet; rename the scenario's arm %s", ErrMismatch, a.Name, a.Name)
		}
		seen[a.Name] = true
	}
	return out, nil
}
