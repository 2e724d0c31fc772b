package lab

import (
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// Objectives maps sc's objectives to the specs a packet evaluates, as the replay maps
// them: bounds in the metric's unit (milliseconds for latency and queue age, seconds for
// time to normal, per second for rates, plain ratios for the rest). The model keeps the
// same mapping unexported (model/plan.go's objectiveSpec); a test holds the two equal.
func Objectives(sc *scenario.Scenario) []packet.ObjectiveSpec {
	var out []packet.ObjectiveSpec
	for _, o := range sc.Objectives {
		conv := func(b *scenario.Bound) *float64 {
			if b == nil {
				return nil
			}
			v := b.Value
			if b.Unit == scenario.UnitDuration {
				if o.Metric == scenario.MetricTimeToNormal {
					v = b.Duration().Seconds()
				} else {
					v = float64(b.Duration()) / float64(time.Millisecond)
				}
			}
			return &v
		}
		s := packet.ObjectiveSpec{Name: o.Name, Metric: o.Metric, Class: o.Class, State: o.State,
			Min: conv(o.Min), Max: conv(o.Max), After: o.After.Std(), Stat: o.Stat}
		if o.Window != nil {
			s.From, s.To = o.Window.From.Std(), o.Window.To.Std()
		}
		out = append(out, s)
	}
	return out
}
