package model

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/internal/latency"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// series turns a pattern into one measurement a tick: '1' a tick whose ratio is 1, '0'
// one whose ratio is 0, '-' one with nothing counted (a denominator of 0).
func series(pattern string) []alertObs {
	var out []alertObs
	for _, c := range pattern {
		switch c {
		case '1':
			out = append(out, alertObs{num: 1, den: 1})
		case '0':
			out = append(out, alertObs{num: 0, den: 1})
		default:
			out = append(out, alertObs{})
		}
	}
	return out
}

// evaluate feeds obs to a rule and writes what each tick did: '.' nothing, 'F' fired,
// 'C' cleared.
func evaluate(p alertPlan, tick time.Duration, obs []alertObs) string {
	e := newAlertEval(&p, tick)
	var b strings.Builder
	for _, o := range obs {
		change, _, _ := e.step(o)
		b.WriteByte(".FC"[change])
	}
	return b.String()
}

// TestAlertEval evaluates each form of rule on fixed series at a 1 s tick: threshold for
// a duration, n of m, the clear condition, windows and ticks without data.
func TestAlertEval(t *testing.T) {
	s := time.Second
	above := alertPlan{kind: alertGoodputFraction, threshold: 0.5, above: true, window: 1}
	below := alertPlan{kind: alertSuccessRate, threshold: 0.5, window: 1}
	with := func(p alertPlan, f func(*alertPlan)) alertPlan { f(&p); return p }
	for _, tc := range []struct {
		name string
		p    alertPlan
		obs  []alertObs
		want string
	}{
		{"for 0 fires on the first crossing and clears on the first tick without", above, series("0110100"), ".F.CFC."},
		{"for 2s fires on the second crossing tick in a row", with(above, func(p *alertPlan) { p.hold = 2 * s }), series("01101110"), "..FC.F.C"},
		{"for 2s never fires on alternate ticks", with(above, func(p *alertPlan) { p.hold = 2 * s }), series("0101010"), "......."},
		{"3 of 5 fires on the third crossing and clears below three", with(above, func(p *alertPlan) { p.n, p.m = 3, 5 }), series("1010100000"), "....FC...."},
		{"3 of 5 keeps firing while three of the last five cross", with(above, func(p *alertPlan) { p.n, p.m = 3, 5 }), series("11100110000"), "..F....C..."},
		{"3 of 5 with clear_for 2s", with(above, func(p *alertPlan) { p.n, p.m, p.clearFor = 3, 5, 2*s }), series("10101000"), "....F.C."},
		{"clear_for 3s rides out a dip and clears after three calm ticks", with(above, func(p *alertPlan) { p.clearFor = 3 * s }), series("1101100011"), "F......CF."},
		{"a flap after every clear", above, series("101010"), "FCFCFC"},
		{"no data is not a crossing of above", above, series("-1--"), ".FC."},
		{"no data is not a crossing of below", below, series("---0"), "...F"},
		{"an empty tick of a rule with an empty value takes it", with(below, func(p *alertPlan) { p.empty, p.hasEmpty = 0, true }), series("-1-"), "FCF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := evaluate(tc.p, s, tc.obs); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestAlertEvalWindow: a ratio over a window sums its numerators and denominators; a
// gauge over 1 a tick is the mean of its samples.
func TestAlertEvalWindow(t *testing.T) {
	obs := []alertObs{{num: 1, den: 10}, {num: 9, den: 10}, {}, {num: 5, den: 10}}
	p := alertPlan{kind: alertSuccessRate, threshold: 0.6, above: true, window: 1}
	if got := evaluate(p, time.Second, obs); got != ".FC." {
		t.Errorf("one tick: got %s, want .FC.", got)
	}
	p.window = 3 // 0.1, 10/20, 10/20, 14/20
	if got := evaluate(p, time.Second, obs); got != "...F" {
		t.Errorf("three ticks: got %s, want ...F", got)
	}
	e := newAlertEval(&p, time.Second)
	var v float64
	for _, o := range obs {
		_, v, _ = e.step(o)
	}
	if v != 0.7 {
		t.Errorf("the window's value is %v, want 0.7", v)
	}
	ages := []alertObs{{num: int64(100 * time.Millisecond), den: 1}, {num: int64(400 * time.Millisecond), den: 1}, {num: int64(700 * time.Millisecond), den: 1}}
	q := alertPlan{kind: alertQueueAge, threshold: float64(450 * time.Millisecond), above: true, window: 2}
	if got := evaluate(q, time.Second, ages); got != "..F" { // means 100, 250, 550 ms
		t.Errorf("queue age over two ticks: got %s, want ..F", got)
	}
}

// TestAlertEvalLatency merges the ticks' latency histograms over the window.
func TestAlertEvalLatency(t *testing.T) {
	ticks := make([]latency.Histogram, 3)
	for i := range ticks {
		ticks[i] = newSignalHist()
	}
	for range 100 {
		ticks[0].Record(10 * time.Millisecond)
	}
	for range 99 {
		ticks[1].Record(10 * time.Millisecond)
	}
	ticks[1].Record(500 * time.Millisecond)
	ticks[1].Record(500 * time.Millisecond)
	// ticks[2] is empty: no answers.
	obs := make([]alertObs, len(ticks))
	for i := range ticks {
		obs[i] = alertObs{lat: &ticks[i]}
	}
	p := alertPlan{kind: alertLatency, quantile: 0.99, threshold: float64(100 * time.Millisecond), above: true, window: 1}
	if got := evaluate(p, time.Second, obs); got != ".FC" { // tick 1's p99 alone is 500 ms
		t.Errorf("one tick: got %s, want .FC", got)
	}
	p.window = 2
	if got := evaluate(p, time.Second, obs); got != "..F" { // 199 of 201 at 10 ms, then tick 1 alone
		t.Errorf("two ticks: got %s, want ..F", got)
	}
	e := newAlertEval(&p, time.Second)
	var v float64
	var ok bool
	for _, o := range obs {
		_, v, ok = e.step(o)
	}
	only := newSignalHist()
	only.Record(500 * time.Millisecond)
	if want, _ := only.UpperBound(1); !ok || v != float64(want) {
		t.Errorf("p99 over ticks 1 and 2 is %v (ok %v), want %v", time.Duration(v), ok, time.Duration(want))
	}
	e = newAlertEval(&p, time.Second)
	empty := newSignalHist()
	if _, _, ok := e.step(alertObs{lat: &empty}); ok {
		t.Error("a window without answers has a latency")
	}
}

// alertScenario is the small scenario with one alert rule of each form; its baseline's
// pay slowdown from 5 s to 13 s makes them fire.
func alertScenario(t *testing.T, alerts string) *scenario.Scenario {
	t.Helper()
	return decode(t, small+"alerts:\n"+alerts)
}

// reference evaluates a rule on per-tick crossings from its definition: the fires and the
// clears, by tick index.
func reference(crossed []bool, hold, clearFor, tick time.Duration, n, m int) (fires, clears []int) {
	firing := false
	calm := time.Duration(0)
	for k := range crossed {
		var holds, starts bool
		if m > 0 {
			c := 0
			for j := max(0, k-m+1); j <= k; j++ {
				if crossed[j] {
					c++
				}
			}
			holds, starts = c >= n, c >= n
		} else {
			run := 0
			for j := k; j >= 0 && crossed[j]; j-- {
				run++
			}
			holds, starts = crossed[k], run > 0 && time.Duration(run)*tick >= hold
		}
		switch {
		case !firing && starts:
			firing, calm = true, 0
			fires = append(fires, k)
		case firing && holds:
			calm = 0
		case firing:
			calm += tick
			if calm >= max(clearFor, tick) {
				firing = false
				clears = append(clears, k)
			}
		}
	}
	return fires, clears
}

// checkAgainst compares a packet alert and its events with the reference's fires and
// clears on the arm's series.
func checkAgainst(t *testing.T, a packet.Arm, rule int, name string, fires, clears []int) {
	t.Helper()
	tick := a.Tick
	at := func(k int) time.Duration { return min(time.Duration(k+1)*tick, a.Duration) }
	got := a.Alerts[rule]
	if got.Name != name {
		t.Fatalf("%s: alert %d is %q, want %q", a.Name, rule, got.Name, name)
	}
	if len(fires) == 0 {
		if got.FirstFired != nil {
			t.Errorf("%s %s: first fired at %v; the series says it never fires", a.Name, name, *got.FirstFired)
		}
		return
	}
	if got.FirstFired == nil || *got.FirstFired != at(fires[0]) {
		t.Errorf("%s %s: first fired %v, want %v", a.Name, name, got.FirstFired, at(fires[0]))
	}
	if got.Flaps != len(fires)-1 {
		t.Errorf("%s %s: %d flaps, want %d (fires at ticks %v, clears at %v)", a.Name, name, got.Flaps, len(fires)-1, fires, clears)
	}
	switch {
	case len(clears) < len(fires):
		if got.Cleared != nil {
			t.Errorf("%s %s: cleared at %v, want still firing at the end", a.Name, name, *got.Cleared)
		}
	case got.Cleared == nil || *got.Cleared != at(clears[len(clears)-1]):
		t.Errorf("%s %s: last cleared %v, want %v", a.Name, name, got.Cleared, at(clears[len(clears)-1]))
	}
	n := 0
	for _, e := range a.Events {
		if e.Kind == "alert" && strings.HasPrefix(e.Text, name+" fired: ") {
			n++
		}
	}
	if n != len(fires) {
		t.Errorf("%s %s: %d fired events, want %d", a.Name, name, n, len(fires))
	}
}

// rows are the arm's series rows of the run's ticks (without the drain's).
func rows(a packet.Arm) []packet.Row {
	n := int((a.Duration + a.Tick - 1) / a.Tick)
	return a.Series[:min(n, len(a.Series))]
}

// TestAlertFormsInReplay replays rules of each form and checks packet.json's alerts and
// the events against the same rules evaluated from the series: a goodput fraction for a
// duration, in n of m ticks and with a clear_for, a success rate over a window, and the
// share of a dependency's concurrency limit in use.
func TestAlertFormsInReplay(t *testing.T) {
	sc := alertScenario(t, `
  - {name: gf for, metric: goodput_fraction, below: 90%, for: 1500ms}
  - {name: gf 3 of 6, metric: goodput_fraction, below: 90%, n_of_m: {n: 3, m: 6}}
  - {name: gf clear, metric: goodput_fraction, below: 90%, clear_for: 3s}
  - {name: success, metric: success_rate, below: 90%, window: 2s}
  - {name: flaky busy, metric: utilisation, resource: {dependency: flaky, of: concurrency}, above: 50%}
`)
	pk := fates(t, sc, 1)
	tick := sc.Clock.Tick.Std()
	for _, a := range pk.Arms {
		if len(a.Alerts) != len(sc.Alerts) {
			t.Fatalf("%s: %d alerts, want %d", a.Name, len(a.Alerts), len(sc.Alerts))
		}
		rs := rows(a)
		gf := make([]bool, len(rs))
		success := make([]bool, len(rs))
		busy := make([]bool, len(rs))
		fired := 0
		for k, r := range rs {
			gf[k] = r.Offered > 0 && float64(r.Goodput)/float64(r.Offered) < 0.9
			var g, settled int64
			for j := max(0, k-3); j <= k; j++ { // 2 s of 500 ms ticks
				g += rs[j].Goodput
				settled += rs[j].Rejected + rs[j].Goodput + rs[j].Late + rs[j].Expired + rs[j].Failed + rs[j].Ambiguous
			}
			success[k] = settled > 0 && float64(g)/float64(settled) < 0.9
			busy[k] = r.Sampled && float64(r.Dependencies[1].InService)/4 > 0.5
		}
		for i, c := range []struct {
			crossed        []bool
			hold, clearFor time.Duration
			n, m           int
		}{
			{gf, 1500 * time.Millisecond, 0, 0, 0},
			{gf, 0, 0, 3, 6},
			{gf, 0, 3 * time.Second, 0, 0},
			{success, 0, 0, 0, 0},
			{busy, 0, 0, 0, 0},
		} {
			fires, clears := reference(c.crossed, c.hold, c.clearFor, tick, c.n, c.m)
			checkAgainst(t, a, i, sc.Alerts[i].Name, fires, clears)
			fired += len(fires)
		}
		if a.Name == "baseline" && fired == 0 {
			t.Errorf("baseline: no rule fired; the test checks nothing")
		}
	}
}

// TestAlertLatencyInReplay: a p99 rule over a window fires in the baseline's pay slowdown
// (5–13 s), not before, and the same rule over one tick fires no later.
func TestAlertLatencyInReplay(t *testing.T) {
	sc := alertScenario(t, `
  - {name: p99 window, metric: latency_p99, above: 140ms, window: 2s}
  - {name: p99 tick, metric: latency_p99, above: 140ms}
  - {name: p50, metric: latency_p50, above: 1h}
`)
	pk, err := Run(t.Context(), sc, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b := pk.Arms[0]
	win, one := b.Alerts[0], b.Alerts[1]
	if win.FirstFired == nil || *win.FirstFired <= 5*time.Second || *win.FirstFired > 13*time.Second {
		t.Fatalf("baseline: the windowed p99 rule first fired at %v; want inside the slowdown", win.FirstFired)
	}
	if one.FirstFired == nil || *one.FirstFired > *win.FirstFired {
		t.Errorf("baseline: the one-tick rule first fired at %v, after the windowed one (%v)", one.FirstFired, *win.FirstFired)
	}
	if b.Alerts[2].FirstFired != nil {
		t.Errorf("a p50 above an hour fired at %v", *b.Alerts[2].FirstFired)
	}
}

// TestAlertUtilisation samples each kind of resource on an arm set by hand: a
// dependency's pools over the instances that are up of the services that call it (shop,
// not catalog), a service's workers over its instances that are up, a dependency's
// concurrency limit, and the admission limit (no data without one).
func TestAlertUtilisation(t *testing.T) {
	sc := alertScenario(t, `
  - {name: pool, metric: utilisation, resource: {dependency: pay, of: pool}, above: 90%}
  - {name: conc, metric: utilisation, resource: {dependency: flaky, of: concurrency}, above: 90%}
  - {name: workers, metric: utilisation, resource: {service: shop, of: workers}, above: 90%}
  - {name: admission, metric: utilisation, resource: {of: admission}, above: 90%}
`)
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, ad := range sc.Arms {
		a, err := newArm(p, sc, ad, 1)
		if err != nil {
			t.Fatal(err)
		}
		// shop's instances are 0 and 1, catalog's 2; pay is dependency 0, flaky 1.
		a.insts[0].pools[0].inUse, a.insts[1].pools[0].inUse = 3, 1
		a.insts[2].pools[0].inUse = 1 // catalog never calls pay
		a.insts[0].busy, a.insts[1].busy, a.insts[2].busy = 4, 2, 2
		a.deps[1].busy = 3
		check := func(rule int, num, den int64) {
			t.Helper()
			if o := a.utilisation(&p.alerts[rule]); o.num != num || o.den != den {
				t.Errorf("%s %s: %d/%d in use, want %d/%d", ad.Name, p.alerts[rule].name, o.num, o.den, num, den)
			}
		}
		check(0, 4, 6)
		check(1, 3, 4)
		check(2, 6, 8)
		if a.pol.adm == nil {
			check(3, 0, 0)
		} else {
			check(3, int64(a.pol.adm.InFlight()), int64(a.pol.adm.Limit()))
			if a.pol.adm.Limit() == 0 {
				t.Errorf("%s: the admission limit is 0", ad.Name)
			}
		}
		a.insts[1].up = false // its process is down: neither its use nor its capacity
		check(0, 3, 3)
		check(2, 4, 4)
	}
}

// TestAlertArms: a rule that names arms is evaluated on those alone. The protected arm
// reports both rules and the baseline only the one for every arm; the rule for every arm
// fires at the same instant in both, as without the other, since a rule only observes.
func TestAlertArms(t *testing.T) {
	const every = "  - {name: goodput, metric: goodput_fraction, below: 90%}\n"
	const only = "  - {name: headroom, metric: utilisation, resource: {service: shop, of: workers}, above: 50%, arms: [protected]}\n"
	run := func(alerts string) *packet.Packet {
		t.Helper()
		pk, err := Run(t.Context(), alertScenario(t, alerts), Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return pk
	}
	pk, plain := run(every+only), run(every)
	names := func(a packet.Arm) []string {
		var out []string
		for _, x := range a.Alerts {
			out = append(out, x.Name)
		}
		return out
	}
	for i, want := range [][]string{{"goodput"}, {"goodput", "headroom"}} {
		a := pk.Arms[i]
		if got := names(a); !slices.Equal(got, want) {
			t.Fatalf("%s reports alerts %v, want %v", a.Name, got, want)
		}
		if got, alone := a.Alerts[0].FirstFired, plain.Arms[i].Alerts[0].FirstFired; got == nil || alone == nil || *got != *alone {
			t.Errorf("%s: goodput first fired at %v beside the headroom rule, %v without it", a.Name, got, alone)
		}
		for _, e := range a.Events {
			if e.Kind == "alert" && strings.HasPrefix(e.Text, "headroom") && a.Name != "protected" {
				t.Errorf("%s: event %q of a rule for the protected arm only", a.Name, e.Text)
			}
		}
	}
	if pk.Arms[1].Alerts[1].FirstFired == nil {
		t.Error("protected: the headroom rule never fired; the test checks nothing")
	}
	if pk.Arms[1].Totals != plain.Arms[1].Totals {
		t.Errorf("protected: totals %+v with the headroom rule, %+v without it", pk.Arms[1].Totals, plain.Arms[1].Totals)
	}
}

// TestNoAlertsNoField: a scenario without alerts gives arms without any, and packet.json
// without the field.
func TestNoAlertsNoField(t *testing.T) {
	pk, err := Run(t.Context(), decode(t, small), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range pk.Arms {
		if a.Alerts != nil {
			t.Errorf("%s: alerts %v without rules", a.Name, a.Alerts)
		}
	}
	b, err := pk.Arms[0].MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"alerts"`) {
		t.Error("packet.json has alerts without rules")
	}
}
