package lab

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/live/faultproxy"
	"github.com/goodput-lab/goodput/live/loadgen"
	"github.com/goodput-lab/goodput/model"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// testScenario is a small scenario with two classes through one entry and an objective
// of every kind a live arm can and cannot measure.
const testScenario = `
name: lab-test
seed: 3
clock: {start: 2026-03-10T14:00:00Z, duration: 4s, tick: 1s}
load:
  arrivals: uniform
  schedule:
    - {at: 0s, rate: 10/s}
classes:
  - name: buy
    share: 0.5
    deadline: 500ms
    stages:
      - {name: handle, service: server, work: {mean: 10ms}}
  - name: browse
    share: 0.5
    deadline: 500ms
    stages:
      - {name: handle, service: server, work: {mean: 10ms}}
topology:
  entries:
    - {name: clients, target: server, timeout: 300ms, retries: {max: 1, on: [timeout]}}
  services:
    - {name: server, instances: 2, workers: 1, queue: {capacity: 500}}
  dependencies:
    - {name: db, service_time: {p50: 2ms, p99: 10ms}}
faults:
  - {at: 1s, for: 2s, service: server, work_factor: 200%, note: slow disk}
arms:
  - {name: baseline, policy: {}}
  - {name: protected, policy: {deadline: {propagate: true, cancel: true}}}
objectives:
  - {name: goodput, metric: goodput_fraction, min: 90%}
  - {name: floor, metric: goodput_rate, min: 8/s, window: {from: 1s, to: 3s}}
  - {name: worst_tick, metric: goodput_rate, stat: min, min: 5/s}
  - {name: p99, metric: latency_p99, max: 500ms}
  - {name: buy_p50, metric: latency_p50, class: buy, max: 100ms}
  - {name: late_p99, metric: latency_p99, max: 500ms, window: {from: 2s}}
  - {name: no_duplicates, metric: duplicates, max: 0}
  - {name: amplification, metric: amplification, max: 1.1}
  - {name: retries, metric: retry_ratio, max: 10%}
  - {name: queue, metric: queue_age_max, max: 200ms}
  - {name: recovery, metric: time_to_normal, max: 2s, after: 3s}
`

func decode(t *testing.T) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Decode("lab-test.scenario.yaml", []byte(testScenario))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// result is a generator's result of the scenario: 4 ticks of load and one of drain, with
// a rejection counted a tick after its request was offered and a retry a tick after its
// first send, so that the conversion must carry both.
func result() *loadgen.Result {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	lat := func(n int64, p50, p99 int) loadgen.Percentiles {
		return loadgen.Percentiles{Count: n, P50: ms(p50), P90: ms(p99 - 1), P99: ms(p99), P999: ms(p99), Max: ms(p99)}
	}
	return &loadgen.Result{
		Target: "http://127.0.0.1:1", Seed: 3, Start: time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC),
		Duration: 4 * time.Second, Elapsed: 5 * time.Second, Tick: time.Second,
		MaxInFlight: 100, PeakInFlight: 7, Workers: 7, CPU: 400 * time.Millisecond,
		Lateness: lat(38, 1, 3),
		Classes: []loadgen.ClassResult{
			{Name: "buy", Offered: 20, Sent: 20, Goodput: 17, Late: 1, Rejected: 1, Failed: 1, Attempts: 21,
				Rejections: []loadgen.Rejection{{Status: 429, Reason: "admission", Count: 1}},
				Failures:   []loadgen.Failure{{Cause: "timeout", Count: 1}}, Latency: lat(20, 20, 480)},
			{Name: "browse", Offered: 20, Sent: 18, Unsent: 2, Goodput: 16, Rejected: 1, Failed: 1, Attempts: 19,
				Rejections: []loadgen.Rejection{{Status: 503, Count: 1}},
				Failures:   []loadgen.Failure{{Cause: "status 500", Count: 1}}, Latency: lat(18, 25, 300)},
		},
		Total: loadgen.ClassResult{Name: "total", Offered: 40, Sent: 38, Unsent: 2, Goodput: 33, Late: 1, Rejected: 2, Failed: 2, Attempts: 40,
			Rejections: []loadgen.Rejection{{Status: 429, Reason: "admission", Count: 1}, {Status: 503, Count: 1}},
			Failures:   []loadgen.Failure{{Cause: "status 500", Count: 1}, {Cause: "timeout", Count: 1}}, Latency: lat(38, 22, 480)},
		Series: []loadgen.Row{
			{T: 0, Offered: 10, Sent: 10, Goodput: 10, Attempts: 10, P50: ms(20), P99: ms(40)},
			{T: time.Second, Offered: 10, Sent: 8, Unsent: 2, Goodput: 6, Rejected: 1, Attempts: 8, P50: ms(30), P99: ms(300)},
			{T: 2 * time.Second, Offered: 10, Sent: 10, Goodput: 7, Late: 1, Rejected: 1, Failed: 1, Attempts: 11, P50: ms(30), P99: ms(480)},
			{T: 3 * time.Second, Offered: 10, Sent: 10, Goodput: 10, Attempts: 10, P50: ms(20), P99: ms(30)},
			{T: 4 * time.Second, Failed: 1, Attempts: 1, P50: ms(400), P99: ms(400)},
		},
	}
}

func counts() LiveCounts {
	return LiveCounts{
		Duplicates:       packet.Duplicates{OrderCommits: 2},
		DuplicatesByTick: []int64{0, 1, 1},
		Proxies: []Proxy{{Dependency: "db", Stats: faultproxy.Stats{Requests: 44, WorkStarted: 42,
			StartedAfterDeadline: 3, StartedAfterCancel: 1, Cancelled: 2, Rejected: 1, Errors: 1}}},
		ProxyCPU:   50 * time.Millisecond,
		ServiceCPU: 120 * time.Millisecond,
		Cores:      2,
	}
}

func TestArmConserves(t *testing.T) {
	sc := decode(t)
	a, err := Arm("baseline", sc, result(), counts())
	if err != nil {
		t.Fatal(err)
	}
	if a.Source != packet.SourceLive || !a.IsLive() {
		t.Errorf("source %q, want live", a.Source)
	}
	if a.Start != sc.Clock.Start.Time() || a.Tick != time.Second || a.Duration != 4*time.Second {
		t.Errorf("clock %v %v %v, want the scenario's", a.Start, a.Tick, a.Duration)
	}
	tot := a.Totals
	want := packet.Totals{Offered: 40, Admitted: 38, Rejected: 2, Attempts: 40, Goodput: 33, Late: 1, Expired: 2, Failed: 2, Retries: 2}
	if tot != want {
		t.Errorf("totals\n got %+v\nwant %+v", tot, want)
	}
	for _, inv := range a.Invariants {
		if !inv.Pass {
			t.Errorf("invariant %s failed: %s", inv.Name, inv.Message)
		}
	}
	names := map[string]bool{}
	for _, inv := range a.Invariants {
		names[inv.Name] = true
	}
	for _, n := range []string{"offered = admitted + rejected", "admitted = goodput + late + expired + failed + ambiguous",
		"offered = sent + unsent", "sent = goodput + late + rejected + failed", "the series sums to the totals"} {
		if !names[n] {
			t.Errorf("no invariant %q", n)
		}
	}

	var sum packet.Row
	for i, r := range a.Series {
		if r.Admitted < 0 || r.Retries < 0 {
			t.Errorf("tick %d: admitted %d, retries %d; want zero or more", i, r.Admitted, r.Retries)
		}
		if r.Sampled {
			t.Errorf("tick %d sampled: a live run samples no gauges", i)
		}
		sum.Offered += r.Offered
		sum.Admitted += r.Admitted
		sum.Attempts += r.Attempts
		sum.Retries += r.Retries
		sum.Goodput += r.Goodput
		sum.Expired += r.Expired
		sum.Duplicates += r.Duplicates
	}
	if sum.Offered != tot.Offered || sum.Admitted != tot.Admitted || sum.Goodput != tot.Goodput ||
		sum.Expired != tot.Expired || sum.Duplicates != 2 || sum.Retries != tot.Retries {
		t.Errorf("series sums %+v do not match the totals %+v", sum, tot)
	}
	if edge := a.Layers[0]; edge.Name != "clients" || edge.Attempts != sum.Attempts || edge.Retries != 2 {
		t.Errorf("entry layer %+v, want clients with the series' %d attempts and 2 retries", edge, sum.Attempts)
	}
	if a.Amplification.ByLayer["clients"] != 1 || a.Amplification.Total != 1 || a.Amplification.Peak != 1.1 || a.Amplification.PeakAt != 2*time.Second {
		t.Errorf("amplification %+v, want 1 in total and a peak of 1.1 at t=2s", a.Amplification)
	}
	if a.RejectedBy["admission"] != 1 || a.RejectedBy["status 503"] != 1 {
		t.Errorf("rejected by %v", a.RejectedBy)
	}
	if a.Samples != 0 || a.Recovery.Drain != nil || a.Recovery.Normal != nil {
		t.Errorf("samples %d, recovery %+v: a live arm measures no queue", a.Samples, a.Recovery)
	}
	l := a.Live
	if l == nil || l.Sent != 38 || l.Unsent != 2 || l.FailedBy["timeout"] != 1 || l.Lateness.Count != 38 {
		t.Fatalf("live %+v", l)
	}
	o := l.Overhead
	if o.GeneratorCPUPerRequest != 10*time.Millisecond || o.ProxyCPUPerRequest != 1136*time.Microsecond || o.CPUShare != 0.045 {
		t.Errorf("overhead %+v, want 10ms and 1.136ms per request, 4.5%% of 2 cores for 5s", o)
	}
	if o.ServiceCPU != 120*time.Millisecond || o.ServiceCPUPerRequest != 3*time.Millisecond {
		t.Errorf("overhead %+v, want the service's 120ms, 3ms per attempt sent, outside the lab's share", o)
	}
	if len(l.Proxies) != 1 || l.Proxies[0].StartedAfterDeadline != 3 {
		t.Errorf("proxies %+v", l.Proxies)
	}
}

func TestArmObjectives(t *testing.T) {
	a, err := Arm("baseline", decode(t), result(), counts())
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		value  float64
		pass   bool
		noData bool
	}
	wants := map[string]want{
		"goodput":       {value: 0.825},
		"floor":         {value: 6.5},
		"worst_tick":    {value: 6, pass: true}, // tick 1; the drain's tick 4 is not the run's
		"p99":           {value: 480, pass: true},
		"buy_p50":       {value: 20, pass: true},
		"late_p99":      {noData: true},
		"no_duplicates": {value: 2},
		"amplification": {value: 1, pass: true},
		"retries":       {value: 0.0526, pass: true},
		"queue":         {noData: true},
		"recovery":      {noData: true},
	}
	if len(a.Objectives) != len(wants) {
		t.Fatalf("%d objectives, want %d", len(a.Objectives), len(wants))
	}
	for _, o := range a.Objectives {
		w, ok := wants[o.Name]
		if !ok {
			t.Errorf("unexpected objective %s", o.Name)
			continue
		}
		if o.Value != w.value || o.Pass != w.pass || o.NoData != w.noData {
			t.Errorf("%s: value %v pass %v no data %v (%s), want %v %v %v", o.Name, o.Value, o.Pass, o.NoData, o.Note, w.value, w.pass, w.noData)
		}
	}
}

// TestEvaluateAsTheReplay checks that Evaluate, over model.Objectives, measures a replayed
// arm as the replay did: the same names, metrics, bounds, statistics and values.
func TestEvaluateAsTheReplay(t *testing.T) {
	sc := decode(t)
	p, err := model.Run(context.Background(), sc, model.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	a := p.Arms[0]
	got := a
	got.Evaluate(model.Objectives(sc), packet.Config{})
	if len(got.Objectives) != len(a.Objectives) {
		t.Fatalf("%d objectives, the replay has %d", len(got.Objectives), len(a.Objectives))
	}
	for i, o := range got.Objectives {
		r := a.Objectives[i]
		if o.Name != r.Name || o.Metric != r.Metric || o.Op != r.Op || o.Target != r.Target || o.Unit != r.Unit || o.Statistic != r.Statistic {
			t.Errorf("objective %d: %+v\nthe replay's %+v", i, o, r)
		}
		if o.Metric != "latency_p99" && o.Metric != "latency_p50" && o.Value != r.Value {
			t.Errorf("%s: Evaluate gives %v on the replayed arm, Finish %v", o.Name, o.Value, r.Value)
		}
	}
}

func TestArmErrors(t *testing.T) {
	sc := decode(t)
	tests := []struct {
		name string
		edit func(*loadgen.Result, *LiveCounts)
		want string
	}{
		{"tick", func(r *loadgen.Result, _ *LiveCounts) { r.Tick = 100 * time.Millisecond }, "the result's tick is 100ms"},
		{"classes", func(r *loadgen.Result, _ *LiveCounts) { r.Classes = r.Classes[:1] }, "1 classes, the scenario 2"},
		{"class name", func(r *loadgen.Result, _ *LiveCounts) { r.Classes[1].Name = "sell" }, `class 1 is "sell"`},
		{"duplicates", func(_ *loadgen.Result, c *LiveCounts) { c.DuplicatesByTick = nil }, "0 duplicates by tick, 2 by kind"},
		{"proxy", func(_ *loadgen.Result, c *LiveCounts) { c.Proxies = append(c.Proxies, c.Proxies[0]) }, `proxy for dependency "db"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, c := result(), counts()
			tt.edit(r, &c)
			_, err := Arm("baseline", sc, r, c)
			if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrMismatch with %q", err, tt.want)
			}
		})
	}
}

func TestSpread(t *testing.T) {
	tests := []struct{ in, want []int64 }{
		{[]int64{3, -1, 2}, []int64{3, 0, 1}},
		{[]int64{3, 0, -2}, []int64{1, 0, 0}},
		{[]int64{1, -3, 1, 2}, []int64{1, 0, 0, 0}},
		{[]int64{}, []int64{}},
	}
	for _, tt := range tests {
		got := append([]int64{}, tt.in...)
		spread(got)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("spread(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestJoinRoundTrip joins a live packet and the replay and reads the joined packet back.
func TestJoinRoundTrip(t *testing.T) {
	sc := decode(t)
	replay, err := model.Run(context.Background(), sc, model.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var live packet.Packet
	live.Scenario, live.Seed = replay.Scenario, replay.Seed
	for _, name := range []string{"baseline", "protected"} {
		a, err := Arm(name, sc, result(), counts())
		if err != nil {
			t.Fatal(err)
		}
		live.Arms = append(live.Arms, a)
	}
	j, err := Join(&live, replay)
	if err != nil {
		t.Fatal(err)
	}
	var names, sources []string
	for _, a := range j.Arms {
		names = append(names, a.Name)
		sources = append(sources, a.Source)
	}
	if want := []string{"baseline", "baseline_replay", "protected", "protected_replay"}; !reflect.DeepEqual(names, want) {
		t.Errorf("arms %v, want %v", names, want)
	}
	if want := []string{"live", "replay", "live", "replay"}; !reflect.DeepEqual(sources, want) {
		t.Errorf("sources %v, want %v", sources, want)
	}
	if replay.Arms[0].Name != "baseline" || replay.Arms[0].Source != "" || live.Arms[0].Events != nil {
		t.Error("Join changed its inputs")
	}
	faults := 0
	for _, e := range j.Arms[0].Events {
		if e.Kind != "fault" || e.Arm != "baseline" {
			t.Errorf("live arm's event %+v, want the replay's faults", e)
		}
		faults++
	}
	if faults != 2 {
		t.Errorf("%d fault events on the live arm, want the start and end of the fault", faults)
	}
	for _, e := range j.Arms[1].Events {
		if e.Arm != "baseline_replay" {
			t.Errorf("replay arm's event names arm %q", e.Arm)
		}
	}

	dir := t.TempDir()
	if err := j.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	back, err := packet.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, j) {
		for i := range j.Arms {
			if !reflect.DeepEqual(back.Arms[i], j.Arms[i]) {
				t.Errorf("arm %s read back differs:\n got %+v\nwant %+v", j.Arms[i].Name, back.Arms[i], j.Arms[i])
			}
		}
	}
}

func TestJoinErrors(t *testing.T) {
	sc := decode(t)
	a, err := Arm("baseline", sc, result(), counts())
	if err != nil {
		t.Fatal(err)
	}
	replayArm := a
	replayArm.Source, replayArm.Live = "", nil
	live := &packet.Packet{Scenario: "lab-test", Seed: 3, Arms: []packet.Arm{a}}
	tests := []struct {
		name   string
		replay packet.Packet
		want   string
	}{
		{"scenario", packet.Packet{Scenario: "other", Seed: 3, Arms: []packet.Arm{replayArm}}, `scenario "lab-test", the replay of "other"`},
		{"seed", packet.Packet{Scenario: "lab-test", Seed: 4, Arms: []packet.Arm{replayArm}}, "seed 3, the replay 4"},
		{"clock", packet.Packet{Scenario: "lab-test", Seed: 3, Arms: []packet.Arm{func() packet.Arm { r := replayArm; r.Tick = 2 * time.Second; return r }()}}, "expected one clock"},
		{"clash", packet.Packet{Scenario: "lab-test", Seed: 3, Arms: []packet.Arm{replayArm}}, "two arms named baseline_replay"},
		{"empty", packet.Packet{Scenario: "lab-test", Seed: 3}, "each with arms"},
		{"not a replay", packet.Packet{Scenario: "lab-test", Seed: 3, Arms: []packet.Arm{a}}, `source "live"; expected a replay's own packet`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := live
			if tt.name == "clash" {
				b := a
				b.Name = "baseline_replay"
				l = &packet.Packet{Scenario: "lab-test", Seed: 3, Arms: []packet.Arm{a, b}}
			}
			_, err := Join(l, &tt.replay)
			if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrMismatch with %q", err, tt.want)
			}
		})
	}
}

// TestArmFromAttack converts a real attack on a loopback service: whatever the machine's
// timing, the populations conserve.
func TestArmFromAttack(t *testing.T) {
	if testing.Short() {
		t.Skip("a one-second attack")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Goodput-Attempt") == "" && strings.HasSuffix(r.Header.Get("Idempotency-Key"), "7") {
			w.Header().Set(controlhttp.ReasonHeader, "admission")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	sc := decode(t)
	sc.Clock.Duration = scenario.Duration(time.Second)
	sc.Load.Schedule[0].Rate = 100
	plan, err := loadgen.ScenarioPlan(sc, 3)
	if err != nil {
		t.Fatal(err)
	}
	atk, err := loadgen.New(plan, srv.URL, loadgen.Options{MaxInFlight: 50})
	if err != nil {
		t.Fatal(err)
	}
	res, err := atk.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	a, err := Arm("baseline", sc, res, LiveCounts{Cores: 2})
	if err != nil {
		t.Fatal(err)
	}
	if a.Totals.Offered == 0 {
		t.Fatal("nothing offered")
	}
	for _, inv := range a.Invariants {
		if !inv.Pass {
			t.Errorf("invariant %s failed: %s", inv.Name, inv.Message)
		}
	}
	if a.Live.Overhead.GeneratorCPUPerRequest <= 0 {
		t.Errorf("overhead %+v: no CPU per request", a.Live.Overhead)
	}
}
