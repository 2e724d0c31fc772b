package scenario_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/scenario"
)

const singleServer = `name: single-server
clock: {duration: 10m}
load:
  schedule: [{at: 0s, rate: 80/s}, {at: 5m, rate: 4800/min}]
classes:
  - name: request
    share: 100%
    deadline: 500ms
    stages: [{name: handle, work: {mean: 10ms}}]
topology:
  entries: [{name: clients, target: server, timeout: 500ms}]
  services: [{name: server, instances: 1, workers: 1}]
arms: [{name: baseline, policy: {}}]
`

func ExampleDecode() {
	s, err := scenario.Decode("single.scenario.yaml", []byte(singleServer))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Name, s.Clock.Duration, s.Load.Schedule[1].Rate, s.Classes[0].Deadline)
	// Output: single-server 10m 80/s 500ms
}

func ExampleDecode_errors() {
	_, err := scenario.Decode("bad.scenario.yaml", []byte(`name: bad
clock: {duration: 10, tik: 1s}
load:
  schedule: [{at: 0s, rate: 80}]
`))
	fmt.Println(err)

	var list scenario.ErrorList
	if errors.As(err, &list) {
		fmt.Println(len(list), "problems; the first at line", list[0].Line, "column", list[0].Column)
	}
	// Output:
	// bad.scenario.yaml:2:19: clock.duration: "10" has no unit; durations need a unit, e.g. 350ms, 1.8s or 40m
	// bad.scenario.yaml:2:23: clock: unknown key "tik"; did you mean "tick"?
	// bad.scenario.yaml:4:29: load.schedule[0].rate: "80" has no unit; rates need a time unit, e.g. 80/s or 80/min
	// 3 problems; the first at line 2 column 19
}

// A Validate method reports problems by YAML path; Unmarshal (and Decode)
// place them in the file.
type budget struct {
	Ratio scenario.Fraction `yaml:"ratio"`
	TTL   scenario.Duration `yaml:"ttl"`
}

func (b *budget) Validate() error {
	var errs scenario.Errors
	if b.Ratio > 0.1 {
		errs.Addf("$.ratio", "ratio %s is high; expected at most 10%%", b.Ratio)
	}
	if b.TTL <= 0 {
		errs.Addf("$.ttl", "ttl is missing; expected a positive duration, e.g. 10s")
	}
	return errs.Err()
}

func ExampleErrors() {
	var b budget
	err := scenario.Unmarshal("budget.yaml", []byte("ratio: 20%\n"), &b)
	fmt.Println(err)
	// Output:
	// budget.yaml:1:1: ttl: ttl is missing; expected a positive duration, e.g. 10s
	// budget.yaml:1:8: ratio: ratio 20% is high; expected at most 10%
}

func ExampleParseRate() {
	for _, s := range []string{"9000/s", "540000/min", "9k/s", "9000"} {
		r, err := scenario.ParseRate(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(r.PerSecond(), "per second;", r.In(2*time.Minute), "in two minutes")
	}
	// Output:
	// 9000 per second; 1.08e+06 in two minutes
	// 9000 per second; 1.08e+06 in two minutes
	// 9000 per second; 1.08e+06 in two minutes
	// "9000" has no unit; rates need a time unit, e.g. 9000/s or 9000/min
}

func ExampleParseFraction() {
	a, _ := scenario.ParseFraction("28%")
	b, _ := scenario.ParseFraction("0.28")
	_, err := scenario.ParseFraction("120%")
	fmt.Println(float64(a), float64(b), a)
	fmt.Println(err)
	// Output:
	// 0.28 0.28 28%
	// 120% is more than 100%; expected a fraction from 0% to 100%
}

func ExampleParseSize() {
	for _, s := range []string{"16KiB", "1536MiB", "2.5MB", "512", "0.3KiB"} {
		v, err := scenario.ParseSize(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(v.Bytes(), "bytes, written", v)
	}
	// Output:
	// 16384 bytes, written 16KiB
	// 1610612736 bytes, written 1.5GiB
	// 2500000 bytes, written 2.5MB
	// "512" has no unit; expected a size with a unit, e.g. 16KiB or 2GiB
	// size "0.3KiB" is 307.2 bytes, not a whole number; expected a whole number of bytes, e.g. 307B or 308B
}

func ExampleQuantiles_Quantile() {
	q := scenario.Quantiles{P50: scenario.Duration(38 * time.Millisecond), P99: scenario.Duration(95 * time.Millisecond)}
	for _, p := range []float64{0.5, 0.9, 0.99} {
		fmt.Printf("p%g %v\n", p*100, q.Quantile(p).Round(100*time.Microsecond))
	}
	fmt.Println("mean", q.Mean().Round(100*time.Microsecond))
	// Output:
	// p50 38ms
	// p90 63ms
	// p99 95ms
	// mean 41.1ms
}

func ExampleDist() {
	var stage struct {
		Work scenario.Dist `yaml:"work"`
	}
	for _, src := range []string{"work: 4ms", "work: {mean: 5ms}", "work: {p50: 38ms, p99: 95ms}", "work: {mean: 5ms, constant: 4ms}"} {
		if err := scenario.Unmarshal("stage.yaml", []byte(src), &stage); err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(stage.Work.Kind(), stage.Work.Quantile(0.5).Round(time.Microsecond))
	}
	// Output:
	// constant 4ms
	// exponential 3.466ms
	// lognormal 38ms
	// stage.yaml:1:1: work: sets mean and constant; expected exactly one of {constant}, {mean} or {p50, p99}
}

func ExampleDuration_MarshalJSON() {
	b, _ := json.Marshal(struct {
		Timeout scenario.Duration `json:"timeout"`
		Rate    scenario.Rate     `json:"rate"`
		Share   scenario.Fraction `json:"share"`
	}{scenario.Duration(350 * time.Millisecond), 9000, 0.85})
	fmt.Println(string(b))
	// Output: {"timeout":"350ms","rate":"9000/s","share":"85%"}
}

func ExampleSchema() {
	b, err := scenario.Schema()
	if err != nil {
		fmt.Println(err)
		return
	}
	var s struct {
		Title string `json:"title"`
		Defs  map[string]struct {
			Pattern string `json:"pattern"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Title)
	fmt.Println(s.Defs["Rate"].Pattern != "", s.Defs["Duration"].Pattern != "")
	// Output:
	// goodput scenario
	// true true
}
