package formula

import (
	"errors"
	"math"
	"reflect"
	"testing"
)

func TestEval(t *testing.T) {
	env := map[string]float64{"a": 9000, "b": 1.28, "c": 1.22, "zero": 0}
	for _, tc := range []struct {
		src  string
		want float64
	}{
		{"a * b * c", 9000 * 1.28 * 1.22},
		{"(a - 1000) / 8", 1000},
		{"7 / 2", 3.5},
		{"2 ^ 10 + 2 ** 2", 1028},
		{"-a + +b", -9000 + 1.28},
		{"max(b, c, 1) + min(a, 3) + abs(-2) + ceil(1.2) + floor(1.8) + round(2.5)", 12.280000000000001},
		{"9223372036854775807 * 2", 2 * 9223372036854775807.0}, // float, not a wrapped integer
	} {
		got, err := Eval(tc.src, env)
		if err != nil || got != tc.want {
			t.Errorf("Eval(%q) = %v, %v; want %v", tc.src, got, err, tc.want)
		}
	}
	if v, err := Eval("a / zero", env); err != nil || !math.IsInf(v, 1) {
		t.Errorf("a / zero = %v, %v; want +Inf for the caller to judge", v, err)
	}
}

func TestRejects(t *testing.T) {
	env := map[string]float64{"a": 1, "b": 2}
	for _, tc := range []struct {
		src, msg string
		offset   int
	}{
		{"", "formula is empty; " + Allowed, -1},
		{"a > b", "operator > is not arithmetic; " + Allowed, 2},
		{"a > b ? a : b", `"a > b ? a : b" is not arithmetic; ` + Allowed, 12},
		{"a % b", "operator % is not arithmetic; " + Allowed, 2},
		{"!a", "operator ! is not arithmetic; " + Allowed, 0},
		{"len(a)", "function len is not arithmetic; " + Allowed, 0},
		{"abs(a, b)", "abs takes one argument; found 2", 0},
		{`"x"`, `"\"x\"" is not arithmetic; ` + Allowed, 0},
		{"a +", "formula does not parse: unexpected token EOF", 2},
	} {
		_, err := Eval(tc.src, env)
		var fe *Error
		if !errors.As(err, &fe) || fe.Msg != tc.msg || fe.Offset != tc.offset {
			t.Errorf("Eval(%q): %#v; want %q at %d", tc.src, err, tc.msg, tc.offset)
		}
	}
	if _, err := Eval("a + c", env); err == nil || err.Error() != `unknown name "c"` {
		t.Errorf("unknown name: %v", err)
	}
}

func TestParseRefs(t *testing.T) {
	refs, err := Parse("rate * (1 + retry) - rate")
	want := []Ref{{"rate", 0}, {"retry", 12}, {"rate", 21}}
	if err != nil || !reflect.DeepEqual(refs, want) {
		t.Errorf("Parse: %v, %v; want %v", refs, err, want)
	}
}
