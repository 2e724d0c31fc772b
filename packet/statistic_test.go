package packet

import (
	"testing"
	"time"
)

// TestStatistic pins the words that say what an objective's value is.
func TestStatistic(t *testing.T) {
	const s = time.Second
	tests := []struct {
		spec ObjectiveSpec
		want string
	}{
		{ObjectiveSpec{Metric: "goodput_rate", From: 180 * s, To: 540 * s}, "goodput per second, mean over t=180–540 s"},
		{ObjectiveSpec{Metric: "goodput_rate", Stat: "mean"}, "goodput per second, mean over the run"},
		{ObjectiveSpec{Metric: "goodput_rate", Stat: "min", From: 90 * s}, "goodput per second, lowest tick from t=90 s on"},
		{ObjectiveSpec{Metric: "latency_p99", Class: "checkout"}, "p99 completion latency of admitted checkout requests"},
		{ObjectiveSpec{Metric: "latency_p999", From: 1500 * time.Millisecond, To: 3 * s}, "p99.9 completion latency of admitted requests ending in t=1.5–3 s"},
		{ObjectiveSpec{Metric: "latency_p50", State: "Normal"}, "p50 completion latency of admitted requests ending while in Normal"},
		{ObjectiveSpec{Metric: "amplification", State: "Normal"}, "attempts per offered request at the most amplified layer over the ticks in Normal"},
		{ObjectiveSpec{Metric: "goodput_fraction", State: "Protected", From: 60 * s, To: 120 * s}, "goodput / offered over the ticks in Protected, t=60–120 s"},
		{ObjectiveSpec{Metric: "duplicates"}, "duplicate mutations over the run"},
		{ObjectiveSpec{Metric: "queue_age_max"}, "oldest queue age, highest sample over the run"},
		{ObjectiveSpec{Metric: "retry_ratio"}, "retries per admitted request over the run"},
		{ObjectiveSpec{Metric: "time_to_normal", After: 540 * s}, "seconds from t=540 s until the load state is Normal for good"},
		{ObjectiveSpec{Metric: "nonsense"}, ""},
	}
	for _, tt := range tests {
		if got := statistic(tt.spec); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.spec, got, tt.want)
		}
	}
}
