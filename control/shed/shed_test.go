package shed

import (
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-lab/goodput/control/loadstate"
)

func mustCompile(t testing.TB, p Plan) Table {
	t.Helper()
	tbl, err := p.Compile()
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func TestDefaultPlan(t *testing.T) {
	tbl := mustCompile(t, checkout())
	tests := []struct {
		state loadstate.State
		shed  []string
	}{
		{loadstate.Normal, nil},
		{loadstate.Pressured, []string{Analytics, Background}},
		{loadstate.Protected, []string{Analytics, Background, Recommendations, ReceiptEnrichment, FraudEnrichment}},
		{loadstate.Recovering, []string{Analytics, Background, Recommendations, ReceiptEnrichment, FraudEnrichment}},
		{loadstate.State(9), []string{Analytics, Background, Recommendations, ReceiptEnrichment, FraudEnrichment}},
	}
	all := []string{Analytics, Background, Recommendations, ReceiptEnrichment, FraudEnrichment}
	for _, tt := range tests {
		if got := tbl.Names(tbl.Set(tt.state)); !slices.Equal(got, tt.shed) && !(len(got) == 0 && tt.shed == nil) {
			t.Errorf("%v: shed %v, want %v", tt.state, got, tt.shed)
		}
		for _, name := range all {
			f, ok := tbl.Feature(name)
			if !ok {
				t.Fatalf("feature %q missing", name)
			}
			if got, want := tbl.Shed(tt.state, f), slices.Contains(tt.shed, name); got != want {
				t.Errorf("Shed(%v, %s) = %v, want %v", tt.state, name, got, want)
			}
		}
	}
	for _, name := range []string{InventoryReservation, PaymentIdempotency, OrderCommit, RiskCheck, "nope"} {
		if _, ok := tbl.Feature(name); ok {
			t.Errorf("Feature(%q) found a sheddable feature", name)
		}
	}
	// Features are numbered in shed order.
	for i, name := range all {
		if f, _ := tbl.Feature(name); int(f) != i {
			t.Errorf("Feature(%q) = %d, want %d", name, f, i)
		}
	}
	fraud, _ := tbl.Feature(" Fraud-Enrichment ")
	if o, ok := tbl.Optional(fraud); !ok || !strings.Contains(o.Fallback, "conservative") {
		t.Errorf("fraud enrichment: %+v, %v", o, ok)
	}
	if _, ok := tbl.Optional(200); ok {
		t.Error("Optional(200) found something")
	}
	if tbl.Len() != 5 {
		t.Errorf("Len = %d", tbl.Len())
	}
	// Default returns a fresh plan each time.
	p := checkout()
	p.States[loadstate.Pressured][0].Fallback = "changed"
	if checkout().States[loadstate.Pressured][0].Fallback == "changed" {
		t.Error("Default shares its slices between calls")
	}
}

func TestZeroTable(t *testing.T) {
	var tbl Table
	for s := range loadstate.Recovering + 1 {
		if tbl.Set(s) != 0 || tbl.Shed(s, 0) {
			t.Errorf("zero table sheds in %v", s)
		}
	}
	if _, ok := tbl.Feature(Analytics); ok {
		t.Error("zero table knows a feature")
	}
}

func TestSet(t *testing.T) {
	s := Set(1<<0 | 1<<5 | 1<<63)
	for f, want := range map[Feature]bool{0: true, 1: false, 5: true, 63: true, 64: false, 255: false} {
		if s.Has(f) != want {
			t.Errorf("Has(%d) = %v", f, !want)
		}
	}
	if s.Len() != 3 {
		t.Errorf("Len = %d", s.Len())
	}
}

func TestValidate(t *testing.T) {
	a := Optional{Name: "a", Fallback: "without a"}
	b := Optional{Name: "b", Fallback: "without b"}
	c := Optional{Name: "c", Fallback: "without c"}
	req := []Required{{Name: "order-commit", Why: "durability"}}
	tests := []struct {
		name string
		plan Plan
		is   error
		want string
	}{
		{"empty", Plan{}, nil, ""},
		{"cumulative", Plan{States: map[loadstate.State][]Optional{
			loadstate.Pressured: {a}, loadstate.Recovering: {a, b}, loadstate.Protected: {c, b, a}}}, nil, ""},
		{"shed in Normal too", Plan{States: map[loadstate.State][]Optional{
			loadstate.Normal: {a}, loadstate.Pressured: {a}, loadstate.Recovering: {a}, loadstate.Protected: {a}}}, nil, ""},
		{"required name", Plan{Required: req, States: map[loadstate.State][]Optional{
			loadstate.Protected: {a, {Name: "order-commit", Fallback: "commit later"}}}},
			ErrRequired, `shed: required work cannot be shed: "order-commit" is declared required and is listed as optional in Protected`},
		{"required name, other case", Plan{Required: req, States: map[loadstate.State][]Optional{
			loadstate.Protected: {{Name: " Order-Commit", Fallback: "x"}}}}, ErrRequired, ""},
		{"Pressured not in Protected", Plan{States: map[loadstate.State][]Optional{
			loadstate.Pressured: {a, b}, loadstate.Recovering: {a, b}, loadstate.Protected: {a}}},
			ErrNotCumulative, `"b" is shed in Recovering but not in Protected`},
		{"Pressured not in Recovering", Plan{States: map[loadstate.State][]Optional{
			loadstate.Pressured: {a}, loadstate.Protected: {a}}},
			ErrNotCumulative, `"a" is shed in Pressured but not in Recovering`},
		{"Normal not in Pressured", Plan{States: map[loadstate.State][]Optional{loadstate.Normal: {a}}},
			ErrNotCumulative, `"a" is shed in Normal but not in Pressured`},
		{"no name", Plan{States: map[loadstate.State][]Optional{loadstate.Protected: {{Fallback: "x"}}}},
			nil, "shed: an optional feature shed in Protected has no name"},
		{"no fallback", Plan{States: map[loadstate.State][]Optional{loadstate.Protected: {{Name: "x", Fallback: "  "}}}},
			nil, `shed: optional feature "x" has no fallback`},
		{"twice in a state", Plan{States: map[loadstate.State][]Optional{loadstate.Protected: {a, b, a}}},
			nil, `"a" is listed twice in Protected`},
		{"two fallbacks", Plan{States: map[loadstate.State][]Optional{
			loadstate.Pressured: {a}, loadstate.Recovering: {a}, loadstate.Protected: {{Name: "a", Fallback: "other"}}}},
			nil, `"a" is declared as`},
		{"unknown state", Plan{States: map[loadstate.State][]Optional{7: {a}, 5: {a}}}, nil, "shed: unknown load state State(5)"},
		{"required without name", Plan{Required: []Required{{Why: "x"}}}, nil, "shed: Required[0] has no name"},
		{"required twice", Plan{Required: []Required{{Name: "x"}, {Name: "X"}}}, nil, `required work "X" is declared twice`},
	}
	for _, tt := range tests {
		err := tt.plan.Validate()
		if tt.is == nil && tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: Validate accepted the plan", tt.name)
			continue
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("%s: %v is not %v", tt.name, err, tt.is)
		}
		if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "shed: ") {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
		if _, cerr := tt.plan.Compile(); cerr == nil || cerr.Error() != err.Error() {
			t.Errorf("%s: Compile = %v, Validate = %v", tt.name, cerr, err)
		}
	}

	many := make([]Optional, MaxFeatures+1)
	for i := range many {
		many[i] = Optional{Name: fmt.Sprint("f", i), Fallback: "none"}
	}
	if err := (Plan{States: map[loadstate.State][]Optional{loadstate.Protected: many}}).Validate(); err == nil ||
		!strings.Contains(err.Error(), "more than 64") {
		t.Errorf("65 features: %v", err)
	}
	if err := (Plan{States: map[loadstate.State][]Optional{loadstate.Protected: many[:MaxFeatures]}}).Validate(); err != nil {
		t.Errorf("64 features: %v", err)
	}
}

// TestRequiredHasNoPathIntoAPlan checks the type-level half of the
// guarantee: a Required value can be neither assigned nor converted to an
// Optional, and the only thing a plan's states hold is Optional.
func TestRequiredHasNoPathIntoAPlan(t *testing.T) {
	req, opt := reflect.TypeFor[Required](), reflect.TypeFor[Optional]()
	if req.AssignableTo(opt) || req.ConvertibleTo(opt) {
		t.Fatal("a Required can become an Optional")
	}
	states, _ := reflect.TypeFor[Plan]().FieldByName("States")
	if states.Type.Elem().Elem() != opt {
		t.Fatalf("Plan.States holds %v, want []Optional", states.Type.Elem())
	}
}

// TestRequiredRefusedByCompiler type-checks client code against this
// package's export data (built by `go list -export`) and expects the
// compiler to refuse every way of putting required work into a plan's shed
// sets.
func TestRequiredRefusedByCompiler(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build export data")
	}
	out, err := exec.Command(goTool, "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	exports := map[string]string{}
	for line := range strings.Lines(string(out)) {
		path, file, _ := strings.Cut(strings.TrimSpace(line), "\t")
		exports[path] = file
	}
	lookup := func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %q", path)
		}
		return os.Open(file)
	}
	const src = `package client

import (
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
)

var commit = shed.Required{Name: "order-commit"}

var _ = shed.Plan{States: map[loadstate.State][]shed.Optional{
	loadstate.Protected: {commit},
}}

var _ = shed.Optional(commit)

var _ []shed.Optional = []shed.Required{commit}

var ok = shed.Plan{Required: []shed.Required{commit}}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "client.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	conf := types.Config{
		Importer: importer.ForCompiler(fset, "gc", lookup),
		Error:    func(err error) { errs = append(errs, err.Error()) },
	}
	conf.Check("client", fset, []*ast.File{f}, nil)
	want := []string{
		"client.go:11:24: cannot use commit (variable of struct type shed.Required) as shed.Optional value",
		"client.go:14:23: cannot convert commit (variable of struct type shed.Required) to type shed.Optional",
		"client.go:16:25: cannot use []shed.Required{…} (value of type []shed.Required) as []shed.Optional value",
	}
	if len(errs) != len(want) {
		t.Fatalf("type errors:\n%s\nwant %d", strings.Join(errs, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(errs[i], want[i]) {
			t.Errorf("error %d = %q, want prefix %q", i, errs[i], want[i])
		}
	}
}

// TestPropertyCompiledMatchesDeclaration builds random cumulative plans and
// checks that the compiled sets agree with a naive lookup in the declared
// lists, and that a random feature removed from a more protective state is
// caught as not cumulative.
func TestPropertyCompiledMatchesDeclaration(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 6))
		n := 1 + r.IntN(20)
		pool := make([]Optional, n)
		for i := range pool {
			pool[i] = Optional{Name: fmt.Sprint("feature-", i), Fallback: fmt.Sprint("fallback ", i)}
		}
		// Each feature starts being shed at a random level of protection
		// (numStates: never).
		p := Plan{States: map[loadstate.State][]Optional{}}
		from := make([]int, n)
		for i := range from {
			from[i] = r.IntN(numStates + 1)
		}
		for lvl, s := range protection {
			for _, i := range r.Perm(n) {
				if from[i] <= lvl {
					p.States[s] = append(p.States[s], pool[i])
				}
			}
		}
		tbl, err := p.Compile()
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, s := range protection {
			for _, o := range pool {
				f, ok := tbl.Feature(o.Name)
				declared := slices.Contains(p.States[s], o)
				if !ok {
					if declared {
						t.Fatalf("seed %d: %s declared but unknown", seed, o.Name)
					}
					continue
				}
				if tbl.Shed(s, f) != declared {
					t.Fatalf("seed %d: Shed(%v, %s) = %v, declared %v", seed, s, o.Name, !declared, declared)
				}
			}
		}
		// Remove one feature from a more protective state than where it
		// starts: not cumulative.
		var cand []int
		for i, lvl := range from {
			if lvl < numStates-1 {
				cand = append(cand, i)
			}
		}
		if len(cand) == 0 {
			continue
		}
		i := cand[r.IntN(len(cand))]
		lvl := from[i] + 1 + r.IntN(numStates-1-from[i])
		s := protection[lvl]
		p.States[s] = slices.DeleteFunc(slices.Clone(p.States[s]), func(o Optional) bool { return o == pool[i] })
		if err := p.Validate(); !errors.Is(err, ErrNotCumulative) {
			t.Fatalf("seed %d: removing %s from %v: %v", seed, pool[i].Name, s, err)
		}
	}
}

func TestLookupAllocations(t *testing.T) {
	tbl := mustCompile(t, checkout())
	f, _ := tbl.Feature(Recommendations)
	allocs := testing.AllocsPerRun(1000, func() {
		if !tbl.Shed(loadstate.Protected, f) || tbl.Set(loadstate.Normal).Has(f) {
			t.Fatal("wrong answer")
		}
	})
	if allocs != 0 {
		t.Errorf("lookup: %v allocs", allocs)
	}
}

func BenchmarkShed(b *testing.B) {
	tbl := mustCompile(b, checkout())
	f, _ := tbl.Feature(ReceiptEnrichment)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if tbl.Shed(loadstate.Protected, f) {
			n++
		}
	}
	if n == 0 {
		b.Fatal("never shed")
	}
}
