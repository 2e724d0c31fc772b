package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/goodput-lab/goodput/control/controlotel"
	"github.com/goodput-lab/goodput/live/demo"
	"github.com/goodput-lab/goodput/scenario"
)

// runDemo is the 'demo' subcommand: the live lab's reference checkout, or with
// 'dependency' a stub dependency, until SIGINT or SIGTERM.
func runDemo(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(args) > 0 && args[0] == "dependency" {
		return demoDependency(ctx, args[1:], stdout, stderr, nil)
	}
	return demoService(ctx, args, stdout, stderr, nil)
}

func demoUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "usage: goodput demo FILE.scenario.yaml --policy ARM --dep NAME=URL… [--listen ADDR] [--db FILE|postgres://…] [--otel stdout|otlp]")
	fmt.Fprintln(w, "       goodput demo dependency [--kind risk|payment|all] [--listen ADDR]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Serves the reference checkout under one arm of the scenario: POST /checkout (new")
	fmt.Fprintln(w, "checkout), POST /checkout/{id}/pay or /checkout/pay (payment continuation), GET")
	fmt.Fprintln(w, "/orders/{id} (status lookup) and GET /metrics. An arm that declares no control is the")
	fmt.Fprintln(w, "baseline (fixed timeouts, layered retries, no cancellation); one that does runs the")
	fmt.Fprintln(w, "controls. It calls the scenario's risk and payment dependencies at the --dep URLs (the")
	fmt.Fprintln(w, "fault proxies, in the lab) and commits orders to the database: a SQLite file, or")
	fmt.Fprintln(w, "PostgreSQL with a postgres:// URL. The address is printed on stderr once it listens;")
	fmt.Fprintln(w, "it runs until SIGINT or SIGTERM and then prints the database's audit as JSON on stdout.")
	fmt.Fprintln(w, "With --otel the controls' decisions are traced with OpenTelemetry (package")
	fmt.Fprintln(w, "control/controlotel): 'stdout' writes the spans as JSON lines on stderr, 'otlp' sends")
	fmt.Fprintln(w, "them over OTLP/HTTP to $OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318).")
	fmt.Fprintln(w, "The baseline arm runs no controls and has no spans.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "'goodput demo dependency' is a stub dependency that answers at once and counts")
	fmt.Fprintln(w, "authorisations by identity (GET /_stub/stats); on SIGINT or SIGTERM it prints them.")
	fmt.Fprintln(w)
	fs.PrintDefaults()
	fmt.Fprintln(w)
	exitStatus(w, "a scenario that does not load, a database that cannot be opened, an address that cannot be listened on", "")
}

// demoFlags are the parsed command line of 'goodput demo'.
type demoFlags struct {
	file, policy, listen, db string
	otel                     string // "", "stdout" or "otlp"
	deps                     map[string]string
}

func parseDemoFlags(args []string, stderr io.Writer) (demoFlags, error) {
	f := demoFlags{deps: map[string]string{}}
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.policy, "policy", "", "serve the scenario's arm `ARM`, e.g. baseline or protected (default: its only arm)")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:0", "listen on `ADDR` (host:port; port 0 picks a free one)")
	fs.StringVar(&f.db, "db", "orders.db", "the orders database: a SQLite `FILE` (created if missing) or a postgres:// URL")
	fs.Func("otel", "trace the controls with OpenTelemetry to `EXPORTER`: stdout (JSON lines on stderr) or otlp (OTLP/HTTP)", func(v string) error {
		if v != "stdout" && v != "otlp" {
			return fmt.Errorf("%q: expected stdout or otlp", v)
		}
		f.otel = v
		return nil
	})
	fs.Func("dep", "call the scenario's dependency NAME at URL, `NAME=URL` (repeat for each)", func(v string) error {
		name, u, ok := strings.Cut(v, "=")
		if !ok || name == "" || u == "" {
			return fmt.Errorf("%q: expected NAME=URL, e.g. payment=http://127.0.0.1:8081", v)
		}
		if _, dup := f.deps[name]; dup {
			return fmt.Errorf("%q: dependency %s given twice", v, name)
		}
		f.deps[name] = u
		return nil
	})
	fs.Usage = func() { demoUsage(stderr, fs) }
	files, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return f, err
	}
	if err != nil {
		return f, fmt.Errorf("%w: demo: %v", errUsage, err)
	}
	if len(files) != 1 {
		return f, fmt.Errorf("%w: demo takes one scenario file, got %d: %s", errUsage, len(files), strings.Join(files, " "))
	}
	f.file = files[0]
	return f, nil
}

// demoService runs 'goodput demo FILE …' until ctx ends. ready, if not nil, is called with
// the address once the service listens.
func demoService(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(addr string)) error {
	f, err := parseDemoFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	sc, err := scenario.Load(f.file)
	if err != nil {
		return err
	}
	arm := f.policy
	if arm == "" {
		if len(sc.Arms) != 1 {
			var names []string
			for _, a := range sc.Arms {
				names = append(names, a.Name)
			}
			return fmt.Errorf("%w: demo: %s has %d arms (%s); name one with --policy", errUsage, f.file, len(sc.Arms), strings.Join(names, ", "))
		}
		arm = sc.Arms[0].Name
	}
	cfg, err := demo.FromScenario(sc, arm, f.deps)
	if err != nil {
		return fmt.Errorf("%w: demo: %s: %v", errUsage, f.file, strings.TrimPrefix(err.Error(), "demo: "))
	}
	store, err := demo.Open(ctx, f.db)
	if err != nil {
		return err
	}
	defer store.Close()
	if f.otel != "" {
		tp, err := demoTracerProvider(ctx, f.otel, stderr)
		if err != nil {
			return err
		}
		defer func() {
			// Flush the spans still batched; they are lost if the collector does not answer.
			flush, done := context.WithTimeout(context.Background(), 5*time.Second)
			defer done()
			if err := tp.Shutdown(flush); err != nil {
				fmt.Fprintf(stderr, "goodput demo: --otel %s: %v\n", f.otel, err)
			}
		}()
		cfg.Observer = controlotel.New(tp)
	}
	svc, err := demo.New(cfg, store)
	if err != nil {
		return err
	}
	defer svc.Close()
	svc.ErrorLog = func(err error) { fmt.Fprintf(stderr, "goodput demo: %v\n", err) }

	what := "the baseline: fixed timeouts, layered retries, no cancellation"
	if cfg.Controls {
		what = "the controls"
	}
	err = demoServe(ctx, f.listen, svc, stderr, ready, func(addr string) string {
		return fmt.Sprintf("goodput demo: listening on %s, arm %s (%s), risk %s, payment %s, orders in %s",
			addr, cfg.Arm, what, cfg.Risk.URL, cfg.Payment.URL, store.Where)
	})
	if err != nil {
		return err
	}
	audit, err := store.Audit(context.Background())
	if err != nil {
		return err
	}
	return demoJSON(stdout, audit)
}

// demoTracerProvider returns the TracerProvider of --otel exporter: stdout writes
// spans as JSON lines on stderr, apart from the audit on stdout; otlp sends them over
// OTLP/HTTP to the endpoint of the standard OTEL_EXPORTER_OTLP_* variables. Shut it
// down to flush.
func demoTracerProvider(ctx context.Context, exporter string, stderr io.Writer) (*sdktrace.TracerProvider, error) {
	var exp sdktrace.SpanExporter
	var err error
	switch exporter {
	case "stdout":
		exp, err = stdouttrace.New(stdouttrace.WithWriter(stderr))
	case "otlp":
		exp, err = otlptracehttp.New(ctx)
	default:
		return nil, fmt.Errorf("%w: demo: --otel %q: expected stdout or otlp", errUsage, exporter)
	}
	if err != nil {
		return nil, fmt.Errorf("demo: --otel %s: %w", exporter, err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", "goodput-demo"))
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)), nil
}

// demoDependency runs 'goodput demo dependency …' until ctx ends.
func demoDependency(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(addr string)) error {
	fs := flag.NewFlagSet("demo dependency", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:0", "listen on `ADDR` (host:port; port 0 picks a free one)")
	kind := fs.String("kind", demo.KindAll, "the routes to serve, `KIND`: risk (POST /score), payment (POST /authorise, /capture) or all")
	maxKeys := fs.Int("max-keys", demo.DefaultMaxKeys, "remember at most `N` identities per route (past them calls are counted, not told apart)")
	fs.Usage = func() { demoUsage(stderr, fs) }
	rest, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: demo dependency: %v", errUsage, err)
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: demo dependency takes no arguments, got %s", errUsage, strings.Join(rest, " "))
	}
	stub, err := demo.NewStub(*kind, *maxKeys)
	if err != nil {
		return fmt.Errorf("%w: demo dependency: --kind/--max-keys: %v", errUsage, strings.TrimPrefix(err.Error(), "demo: "))
	}
	err = demoServe(ctx, *listen, stub, stderr, ready, func(addr string) string {
		return fmt.Sprintf("goodput demo dependency: listening on %s, kind %s", addr, *kind)
	})
	if err != nil {
		return err
	}
	return demoJSON(stdout, stub.Stats())
}

// demoServe serves h on listen until ctx ends, announcing the address on stderr with the line
// banner writes, then shuts down: requests in flight get 5 s to finish.
func demoServe(ctx context.Context, listen string, h http.Handler, stderr io.Writer, ready func(string), banner func(addr string) string) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	addr := "http://" + ln.Addr().String()
	fmt.Fprintln(stderr, banner(addr))
	if ready != nil {
		ready(addr)
	}
	select {
	case <-ctx.Done():
	case err = <-served:
	}
	shut, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	if e := srv.Shutdown(shut); e != nil {
		srv.Close()
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("demo: %w", err)
	}
	return nil
}

func demoJSON(w io.Writer, v any) error {
	b, _ := json.MarshalIndent(v, "", "  ")
	_, err := fmt.Fprintf(w, "%s\n", b)
	return err
}
