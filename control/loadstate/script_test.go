package loadstate

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The scripts in testdata/*.txt drive a machine in the manner of etcd raft's
// datadriven tests. Each block is one command line, a "----" line, and the
// expected output up to a blank line. Run with -rewrite to regenerate the
// expected output after an intended change, then review the diff.
//
// Commands:
//
//	new [sustain=D] [ramp=none]   a Northstar machine at 14:00:00 with the
//	                              default signals (all within exit)
//	step HH:MM:SS [sig=v ...]     set signals (they persist) and Step once
//	run HH:MM:SS HH:MM:SS every=D [sig=v ...]
//	                              set signals and Step at each instant of the
//	                              range; print the transitions
//	override HH:MM:SS State reason...
//	policy                        print the snapshot
//	log                           print the whole log
//
// Signals: amp, slack, queue, sat, reserve, healthy (true/false).
var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata scripts")

var day = time.Date(2025, 3, 11, 0, 0, 0, 0, time.UTC)

// calm is within every Northstar exit threshold, trigger unhealthy.
var calm = Signals{Amplification: 1.02, Slack: 1600 * time.Millisecond, QueueAge: 50 * time.Millisecond, DependencySaturation: 0.5, ReadyReserve: 0.3}

type scriptEnv struct {
	m   *Machine
	sig Signals
}

func TestScripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { runScript(t, f) })
	}
}

func runScript(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	var out strings.Builder
	env := &scriptEnv{}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			out.WriteString(line + "\n")
			continue
		}
		cmdLine := i + 1
		if i+1 >= len(lines) || lines[i+1] != "----" {
			t.Fatalf("%s:%d: command %q is not followed by ----", path, cmdLine, line)
		}
		i += 2
		var want []string
		for ; i < len(lines) && lines[i] != ""; i++ {
			want = append(want, lines[i])
		}
		got, err := env.do(line)
		if err != nil {
			t.Fatalf("%s:%d: %s: %v", path, cmdLine, line, err)
		}
		if !*rewrite && got != strings.Join(want, "\n") {
			t.Errorf("%s:%d: %s\ngot:\n%s\nwant:\n%s", path, cmdLine, line, got, strings.Join(want, "\n"))
		}
		out.WriteString(line + "\n----\n" + got + "\n")
		if i < len(lines) {
			out.WriteString("\n")
		}
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func clock(s string) (time.Time, error) {
	c, err := time.Parse(time.TimeOnly, s)
	if err != nil {
		return time.Time{}, err
	}
	return day.Add(time.Duration(c.Hour())*time.Hour + time.Duration(c.Minute())*time.Minute + time.Duration(c.Second())*time.Second), nil
}

func (e *scriptEnv) setSignals(args []string) error {
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("signal %q: want key=value", a)
		}
		var err error
		switch k {
		case "amp":
			e.sig.Amplification, err = strconv.ParseFloat(v, 64)
		case "sat":
			e.sig.DependencySaturation, err = strconv.ParseFloat(v, 64)
		case "reserve":
			e.sig.ReadyReserve, err = strconv.ParseFloat(v, 64)
		case "slack":
			e.sig.Slack, err = time.ParseDuration(v)
		case "queue":
			e.sig.QueueAge, err = time.ParseDuration(v)
		case "healthy":
			e.sig.TriggerHealthy, err = strconv.ParseBool(v)
		default:
			return fmt.Errorf("unknown signal %q", k)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *scriptEnv) status() string {
	s := e.m.Snapshot()
	if s.Stage > 0 {
		return fmt.Sprintf("%s stage %d gen %d", s.State, s.Stage, s.Generation)
	}
	return fmt.Sprintf("%s gen %d", s.State, s.Generation)
}

func (e *scriptEnv) do(line string) (string, error) {
	f := strings.Fields(line)
	if f[0] != "new" && e.m == nil {
		return "", fmt.Errorf("no machine: start with new")
	}
	switch f[0] {
	case "new":
		cfg := northstar()
		for _, a := range f[1:] {
			k, v, _ := strings.Cut(a, "=")
			switch k {
			case "sustain":
				d, err := time.ParseDuration(v)
				if err != nil {
					return "", err
				}
				cfg.Sustain = d
			case "ramp":
				if v != "none" {
					return "", fmt.Errorf("ramp=%s: only ramp=none", v)
				}
				cfg.Ramp = nil
				cfg.Policies.Recovering.AdmissionScale = 0.75
			default:
				return "", fmt.Errorf("unknown option %q", a)
			}
		}
		m, err := New(cfg, day.Add(14*time.Hour))
		if err != nil {
			return "", err
		}
		e.m, e.sig = m, calm
		return e.status(), nil

	case "step":
		if len(f) < 2 {
			return "", fmt.Errorf("step HH:MM:SS [signals]")
		}
		now, err := clock(f[1])
		if err != nil {
			return "", err
		}
		if err := e.setSignals(f[2:]); err != nil {
			return "", err
		}
		if tr, ok := e.m.Step(now, e.sig); ok {
			return tr.String(), nil
		}
		return e.status(), nil

	case "run":
		if len(f) < 4 || !strings.HasPrefix(f[3], "every=") {
			return "", fmt.Errorf("run FROM TO every=D [signals]")
		}
		from, err := clock(f[1])
		if err != nil {
			return "", err
		}
		to, err := clock(f[2])
		if err != nil {
			return "", err
		}
		every, err := time.ParseDuration(strings.TrimPrefix(f[3], "every="))
		if err != nil || every <= 0 {
			return "", fmt.Errorf("every=%s: want a positive duration", f[3])
		}
		if err := e.setSignals(f[4:]); err != nil {
			return "", err
		}
		var lines []string
		for now := from; !now.After(to); now = now.Add(every) {
			if tr, ok := e.m.Step(now, e.sig); ok {
				lines = append(lines, tr.String())
			}
		}
		lines = append(lines, "now "+e.status())
		return strings.Join(lines, "\n"), nil

	case "override":
		if len(f) < 3 {
			return "", fmt.Errorf("override HH:MM:SS State reason")
		}
		now, err := clock(f[1])
		if err != nil {
			return "", err
		}
		to := State(255)
		for s := Normal; s <= Recovering; s++ {
			if s.String() == f[2] {
				to = s
			}
		}
		if to == 255 {
			return "", fmt.Errorf("unknown state %q", f[2])
		}
		return e.m.Override(now, to, strings.Join(f[3:], " ")).String(), nil

	case "policy":
		s := e.m.Snapshot()
		return fmt.Sprintf("%s %+v", e.status(), s.Policy), nil

	case "log":
		var lines []string
		for _, tr := range e.m.Log() {
			lines = append(lines, tr.String())
		}
		if len(lines) == 0 {
			return "(empty)", nil
		}
		return strings.Join(lines, "\n"), nil
	}
	return "", fmt.Errorf("unknown command %q", f[0])
}
