package overload_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/live/overload"
	"github.com/goodput-lab/goodput/scenario"
)

// short is a small case: 50/s, 1.5 s healthy, then 2 s during which every call takes 1 s,
// past naive's 350 ms timeout, then 1.5 s healthy again. The fault is that blunt so that the
// checks hold on a loaded machine too: every naive request makes two calls in the fault.
func short() overload.Case {
	c := overload.Cases()[0]
	c.Name, c.Rate = "short", 50
	c.Healthy, c.Fault, c.After = 1500*time.Millisecond, 2*time.Second, 1500*time.Millisecond
	c.ServiceTime = &scenario.Quantiles{P50: scenario.Duration(time.Second), P99: scenario.Duration(time.Second)}
	return c
}

func TestRunNaiveSlow(t *testing.T) {
	if testing.Short() {
		t.Skip("a live run of a few seconds")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	c := short()
	res, err := overload.Run(ctx, c, overload.Naive, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(summaryOf(res))
	offered := int64(0)
	for _, b := range res.Buckets {
		offered += b.Offered
	}
	if want := int64(c.Rate * c.Duration().Seconds()); offered != res.Load.Total.Offered || offered < want-1 || offered > want {
		t.Errorf("offered %d in the buckets, %d in the load's result; want both %d (or one fewer)", offered, res.Load.Total.Offered, want)
	}
	if res.Attempts <= 1.2 {
		t.Errorf("naive attempts/req %.2f during the slowdown; want about 2 (it retries every timeout)", res.Attempts)
	}
	if res.Healthy == 0 || res.Goodput >= res.Healthy/2 {
		t.Errorf("goodput %.1f/s during the slowdown, %.1f/s before it; want less than half", res.Goodput, res.Healthy)
	}
	if res.Recovery < 0 || res.Recovery > c.After {
		t.Errorf("recovery %v; want within [0, %v]", res.Recovery, c.After)
	}
	if res.Proxy.Requests == 0 || res.Proxy.InService != 0 || res.Proxy.Waiting != 0 {
		t.Errorf("proxy %+v; want calls, none left in service or waiting", res.Proxy)
	}
}

func TestRunBadInput(t *testing.T) {
	ok := short()
	noWindow := ok
	noWindow.Fault = 0
	offTick := ok
	offTick.After = 1234 * time.Millisecond
	noRate := ok
	noRate.Rate = 0
	badFault := ok
	badFault.ServiceTime = &scenario.Quantiles{P50: scenario.Duration(time.Second), P99: scenario.Duration(time.Millisecond)}
	for _, tc := range []struct {
		name string
		c    overload.Case
		v    overload.Variant
		want string
	}{
		{"no fault phase", noWindow, overload.Naive, "multiples of Tick"},
		{"phase off the tick", offTick, overload.Naive, "multiples of Tick"},
		{"no rate", noRate, overload.Naive, "must be positive"},
		{"bad service time", badFault, overload.Naive, "p50"},
		{"no variant", ok, nil, "no variant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := overload.Run(t.Context(), tc.c, tc.v, 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run: %v; want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestMeasure(t *testing.T) {
	// 1 s healthy, 1 s fault, 2 s after: 8 buckets of 500 ms, 50 offered in each.
	c := overload.Case{Name: "t", Rate: 100, Deadline: time.Second, Healthy: time.Second, Fault: time.Second, After: 2 * time.Second}
	timeline := func(goodput ...int64) []overload.Bucket {
		bs := make([]overload.Bucket, len(goodput))
		for i, g := range goodput {
			bs[i] = overload.Bucket{Offered: 50, Goodput: g, Calls: 50}
		}
		return bs
	}
	withCalls := timeline(50, 50, 10, 20, 50, 50, 50, 50)
	withCalls[2].Calls, withCalls[3].Calls = 100, 80
	for _, tc := range []struct {
		name    string
		buckets []overload.Bucket
		want    overload.Metrics
	}{
		{"back at once", timeline(50, 50, 10, 20, 50, 50, 50, 50),
			overload.Metrics{Healthy: 100, Goodput: 30, Recovery: 0, Attempts: 1}},
		{"95% is back", timeline(50, 50, 0, 0, 40, 48, 48, 50),
			overload.Metrics{Healthy: 100, Goodput: 0, Recovery: 500 * time.Millisecond, Attempts: 1}},
		{"one good bucket is not back", timeline(50, 50, 0, 0, 50, 10, 50, 50),
			overload.Metrics{Healthy: 100, Goodput: 0, Recovery: time.Second, Attempts: 1}},
		{"never back is capped", timeline(50, 50, 0, 0, 0, 0, 0, 50),
			overload.Metrics{Healthy: 100, Goodput: 0, Recovery: 2 * time.Second, Capped: true, Attempts: 1}},
		{"buckets past the end are ignored", timeline(50, 50, 0, 0, 0, 0, 0, 50, 50, 50),
			overload.Metrics{Healthy: 100, Goodput: 0, Recovery: 2 * time.Second, Capped: true, Attempts: 1}},
		{"attempts over the fault", withCalls,
			overload.Metrics{Healthy: 100, Goodput: 30, Recovery: 0, Attempts: 1.8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := overload.Measure(c, tc.buckets)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Measure = %+v; want %+v", got, tc.want)
			}
		})
	}
	if _, err := overload.Measure(c, timeline(50, 50, 50)); err == nil || !strings.Contains(err.Error(), "3 buckets, want 8") {
		t.Errorf("Measure of a short timeline: %v; want an error naming the buckets", err)
	}
}

func summaryOf(res *overload.Result) string { return summary(res) }
