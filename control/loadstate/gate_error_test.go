package loadstate

import (
	"errors"
	"math"
	"testing"
	"time"
)

// Each gate's faults come back typed, gate by gate, with the threshold, the rule and the
// side the threshold must lie on; Validate returns the first of them as a *GateError.
func TestGateErrors(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	tests := []struct {
		name  string
		gates Gates
		want  []GateError // Gate, Field, Rule and Than of each, and LowerWorse for an order rule
	}{
		{"valid", Gates{QueueAge: DurationGate{Warn: ms(250), Hard: ms(1000), Exit: ms(200)}}, nil},
		{"every bad field of one gate", Gates{QueueAge: DurationGate{Warn: -1, Hard: -2, Exit: ms(1)}, Amplification: Gate{Hard: math.Inf(1)}},
			[]GateError{{Gate: "Amplification", Field: "Hard", Rule: GateNotFinite}, {Gate: "QueueAge", Field: "Warn", Rule: GateNegative}, {Gate: "QueueAge", Field: "Hard", Rule: GateNegative}}},
		{"share above one", Gates{ReadyReserve: Gate{Warn: 1.5, Exit: 2}},
			[]GateError{{Gate: "ReadyReserve", Field: "Warn", Rule: GateAboveOne}, {Gate: "ReadyReserve", Field: "Exit", Rule: GateAboveOne}}},
		{"exit without enter", Gates{DependencySaturation: Gate{Exit: 0.5}}, []GateError{{Gate: "DependencySaturation", Field: "Exit", Rule: GateExitWithoutEnter}}},
		{"no exit", Gates{QueueAge: DurationGate{Warn: ms(250)}}, []GateError{{Gate: "QueueAge", Field: "Exit", Rule: GateNoExit}}},
		{"exit on the wrong side of warn, higher worse", Gates{Amplification: Gate{Warn: 1.1, Exit: 1.2}},
			[]GateError{{Gate: "Amplification", Field: "Exit", Rule: GateExitNotSafe, Than: "Warn", LowerWorse: false}}},
		{"exit on the wrong side of hard, lower worse", Gates{Slack: DurationGate{Hard: ms(600), Exit: ms(600)}},
			[]GateError{{Gate: "Slack", Field: "Exit", Rule: GateExitNotSafe, Than: "Hard", LowerWorse: true}}},
		{"hard not beyond warn, lower worse", Gates{Slack: DurationGate{Warn: ms(50), Hard: ms(100), Exit: ms(200)}},
			[]GateError{{Gate: "Slack", Field: "Hard", Rule: GateHardNotBeyond, Than: "Warn", LowerWorse: true}}},
		{"two gates at fault", Gates{Amplification: Gate{Warn: 1.3, Hard: 1.2, Exit: 1.05}, ReadyReserve: Gate{Warn: 0.2, Exit: 0.1}},
			[]GateError{{Gate: "Amplification", Field: "Hard", Rule: GateHardNotBeyond, Than: "Warn"}, {Gate: "ReadyReserve", Field: "Exit", Rule: GateExitNotSafe, Than: "Warn", LowerWorse: true}}},
	}
	sides := map[[2]bool]string{ // {exit rule, lower worse}
		{true, false}: "below", {true, true}: "above", {false, false}: "above", {false, true}: "below",
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.gates.Errors()
			if len(got) != len(tc.want) {
				t.Fatalf("Errors() = %v, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Gate != w.Gate || g.Field != w.Field || g.Rule != w.Rule || g.Than != w.Than || w.Than != "" && g.LowerWorse != w.LowerWorse {
					t.Errorf("[%d] = %+v, want %+v", i, *g, w)
				}
				if w.Than != "" {
					if want := sides[[2]bool{w.Rule == GateExitNotSafe, w.LowerWorse}]; g.Side() != want {
						t.Errorf("[%d] Side() = %q, want %q", i, g.Side(), want)
					}
				} else if g.Side() != "" {
					t.Errorf("[%d] Side() = %q for a rule without an order", i, g.Side())
				}
			}
			err := (Config{Gates: tc.gates}).Validate()
			var ge *GateError
			switch {
			case len(tc.want) == 0 && err != nil:
				t.Errorf("Validate() = %v", err)
			case len(tc.want) > 0 && (!errors.As(err, &ge) || *ge != *got[0]):
				t.Errorf("Validate() = %v, want the first GateError %v", err, got[0])
			}
		})
	}
}
