package deadline_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/goodput-lab/goodput/control/deadline"
)

// The seed's baseline called the payment-risk dependency with a fixed 350 ms
// timeout, whatever was left of the 1,800 ms checkout deadline. Late in the
// deadline that timeout outlives the caller: the dependency keeps working on a
// request nobody is waiting for. CallTimeout derives the timeout from the
// deadline instead, and refuses the call when it cannot finish in time.
func ExampleCallTimeout() {
	arrival := time.Date(2026, 3, 14, 14, 12, 0, 0, time.UTC)
	d := arrival.Add(1800 * time.Millisecond) // absolute deadline of the checkout
	const fixed = 350 * time.Millisecond      // the baseline's per-call timeout
	const reserve = 50 * time.Millisecond     // for the rest of the path after the call

	for _, spent := range []time.Duration{0, 1600 * time.Millisecond, 1780 * time.Millisecond} {
		now := arrival.Add(spent)
		fmt.Printf("at +%v: fixed %v ends at +%v", spent, fixed, spent+fixed)
		if over := now.Add(fixed).Sub(d); over > 0 {
			fmt.Printf(" (%v after the deadline)", over)
		}
		timeout, err := deadline.CallTimeout(d, now, reserve, fixed)
		if err != nil {
			fmt.Printf("; derived: %v, no call\n", err)
			continue
		}
		fmt.Printf("; derived %v ends at +%v\n", timeout, spent+timeout)
	}
	// Output:
	// at +0s: fixed 350ms ends at +350ms; derived 350ms ends at +350ms
	// at +1.6s: fixed 350ms ends at +1.95s (150ms after the deadline); derived 150ms ends at +1.75s
	// at +1.78s: fixed 350ms ends at +2.13s (330ms after the deadline); derived: deadline: insufficient time after reserve, no call
}

// The edge stamps the deadline; the service, 40 ms later and on a host whose
// clock may differ by up to 20 ms, reads it back.
func ExampleExtract() {
	edgeNow := time.Date(2026, 3, 14, 14, 12, 0, 0, time.UTC)
	h := http.Header{}
	deadline.Inject(h, edgeNow.Add(1800*time.Millisecond), edgeNow)
	fmt.Println(deadline.Header+":", h.Get(deadline.Header))
	fmt.Println(deadline.TimeoutHeader+":", h.Get(deadline.TimeoutHeader))

	serviceNow := edgeNow.Add(40 * time.Millisecond)
	cfg := deadline.Config{SkewMargin: 20 * time.Millisecond, Default: 2 * time.Second, Max: 30 * time.Second}
	d, ok, err := deadline.Extract(h, serviceNow, cfg)
	fmt.Println(ok, err, deadline.Remaining(d, serviceNow))

	// Without the absolute header the relative one is counted from arrival:
	// skew does not matter, but the 40 ms in transit are lost.
	h.Del(deadline.Header)
	d, _, _ = deadline.Extract(h, serviceNow, cfg)
	fmt.Println(deadline.Remaining(d, serviceNow))

	// Malformed input is an error that says what was expected.
	h.Set(deadline.TimeoutHeader, "12x")
	_, _, err = deadline.Extract(h, serviceNow, cfg)
	fmt.Println(err)
	// Output:
	// Goodput-Deadline: 2026-03-14T14:12:01.8Z
	// Goodput-Timeout: 1800m
	// true <nil> 1.74s
	// 1.8s
	// deadline: Goodput-Timeout "12x": unit must be one of H M S m u n
}

func ExampleFormatTimeout() {
	for _, d := range []time.Duration{350 * time.Millisecond, 2 * time.Second, 90 * time.Minute, 1500 * time.Microsecond, 0} {
		fmt.Println(deadline.FormatTimeout(d))
	}
	// Output:
	// 350m
	// 2S
	// 90M
	// 1500u
	// 0n
}

// The zero Config bounds every request: one without a deadline header gets
// DefaultTimeout, and one carrying the largest timeout the header can write
// is cut to DefaultMax. AsSent reads the headers without either bound.
func ExampleConfig() {
	now := time.Date(2026, 3, 14, 14, 12, 0, 0, time.UTC)
	none := http.Header{}
	huge := http.Header{deadline.TimeoutHeader: {"99999999H"}}
	for _, c := range []struct {
		name string
		cfg  deadline.Config
	}{
		{"zero Config", deadline.Config{}},
		{"Default 2s", deadline.Config{Default: 2 * time.Second}},
		{"AsSent", deadline.AsSent},
	} {
		left := "no deadline"
		if d, ok, _ := deadline.Extract(none, now, c.cfg); ok {
			left = deadline.Remaining(d, now).String()
		}
		d, _, _ := deadline.Extract(huge, now, c.cfg)
		fmt.Printf("%-11s  no header: %-11s  99999999H: %v\n", c.name, left, deadline.Remaining(d, now).Truncate(time.Second))
	}
	fmt.Println(deadline.Config{Default: 2 * time.Minute}.Validate())
	// Output:
	// zero Config  no header: 30s          99999999H: 1m0s
	// Default 2s   no header: 2s           99999999H: 1m0s
	// AsSent       no header: no deadline  99999999H: 2562047h47m16s
	// deadline: Default 2m0s exceeds Max 1m0s (DefaultMax, as Max is zero); set Max too
}
