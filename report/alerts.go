package report

import (
	"time"

	"github.com/goodput-lab/goodput/packet"
)

// sectionAlerts heads the rows of the scenario's alert rules.
const sectionAlerts = "Alerts, seconds from the start (the time to detect is when one first fired)"

// alerts adds a row group per alert rule, when the arms have any: when it first fired,
// its flaps (fires after a clear) and when it last cleared.
func (t *table) alerts(arms []packet.Arm) {
	names := union(arms, func(a packet.Arm) []string {
		var n []string
		for _, x := range a.Alerts {
			n = append(n, x.Name)
		}
		return n
	})
	if len(names) == 0 {
		return
	}
	t.section(sectionAlerts)
	for _, name := range names {
		rule := func(f func(x packet.Alert) string) func(a packet.Arm) string {
			return func(a packet.Arm) string {
				for _, x := range a.Alerts {
					if x.Name == name {
						return f(x)
					}
				}
				return "–"
			}
		}
		t.value(name+": first fired", rule(func(x packet.Alert) string { return alertSeconds(x.FirstFired) }))
		t.value(name+": flaps", rule(func(x packet.Alert) string {
			if x.FirstFired == nil {
				return "–"
			}
			return Int(int64(x.Flaps))
		}))
		t.value(name+": last cleared", rule(func(x packet.Alert) string {
			switch {
			case x.FirstFired == nil:
				return "–"
			case x.Cleared == nil:
				return "firing at the end"
			}
			return alertSeconds(x.Cleared)
		}))
	}
}

// alertSeconds writes an alert's instant in seconds, to the millisecond a sub-second tick
// can set (trailing zeros dropped), or "never".
func alertSeconds(v *time.Duration) string {
	if v == nil {
		return "never"
	}
	return trimZeros(Float(packet.Seconds(*v), 3))
}
