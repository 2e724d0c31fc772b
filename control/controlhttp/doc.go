// Package controlhttp puts goodput's overload controls around net/http: a
// server middleware, [Handler], and a client [http.RoundTripper],
// [Transport], that together carry one absolute deadline and one logical
// identity across every hop, admit work before it is expensive, shed
// optional features by load state, and retry only under one shared budget.
//
// It is the only control package that reads a clock. The controls it
// drives (packages deadline, identity, budget, admission, breaker,
// loadstate, shed) take the current instant as an argument, so the replay
// simulator runs them on virtual time; here that instant is time.Now().
// Tests run the package under testing/synctest, whose bubble makes time.Now,
// timers and tickers virtual too.
//
// # Server
//
// [Handler] wraps a handler. Per request it reads the deadline and the
// identity from the headers, refuses malformed (400) and expired (503)
// requests, asks admission (503 when the service is full or the request
// cannot finish in time, 429 when the request's class is over its share),
// and serves the rest with a context that ends at the deadline and carries
// the identity and an [Info]: the class, the load state and policy
// generation the request was admitted under, and the features shed for it.
// Handlers ask [Shed] before optional work and may call [Started] when
// service starts after a wait, so admission learns the queueing delay.
// Every refusal names its reason in [ReasonHeader] and its generation in
// [GenerationHeader]; an overload refusal says [NoRetry] in
// [OverloadHeader] and, when waiting can help, when to come back in
// Retry-After.
//
// # Client
//
// [Transport] wraps the transport of one dependency. It derives each call's
// timeout from the remaining deadline minus a reserve and does not make a
// call that could not answer in time; it sends the call's deadline and the
// identity and attempt number; it consults the dependency's breaker; and
// after a failure it retries only when the shared [budget.Budget] allows
// (transient failure, idempotent or deduplicated, enough deadline left,
// a token left), with the same identity, the next attempt number and a
// full-jitter backoff drawn from a seeded stream. An answer marked
// [NoRetry] is never retried.
//
// # Load state
//
// A [loadstate.Machine] is pure: something must step it. [Stepper] does so
// on a ticker, every second by default, with the signals a service
// measures, and applies each new policy generation to admission (its
// scale) and the retry budget (its ratio). Run it in a goroutine and cancel
// its context to stop it. [Handler] only reads the machine, once per
// request.
//
// # Metrics
//
// A [Metrics] counts every decision: requests admitted or refused by class
// and reason and their outcomes (goodput, late, failed), shed lookups,
// attempts, retry decisions by reason, calls refused by the breaker or the
// deadline, and the load state and generation. Counting is an atomic add on
// the request path; the Metrics is a prometheus.Collector, so a scrape of a
// registry it is registered on reads the counts. Register it on a registry
// of your own and serve that with promhttp; nothing goes to the global
// registry. Without a Metrics nothing is counted.
//
// # Tracing
//
// A [ServerObserver] in [ServerConfig.Observer] is told of every request
// (its [Served]: identity, attempt, deadline, class, admission and refusal
// reason, load state and generation, features shed and asked, terminal
// result) and a [ClientObserver] in [ClientConfig.Observer] of every attempt
// (its [Attempt]: timeout, refusal, outcome, retry token, breaker state).
// Package controlotel implements both with OpenTelemetry, so this package
// does not link it. Without an Observer nothing is reported and nothing is
// allocated for it.
//
// # A program
//
//	func run() error {
//		now := time.Now()
//		adm, err := admission.New(admission.Config{Max: 200})
//		if err != nil {
//			return err
//		}
//		retries, err := budget.New(budget.Finagle()) // one budget for every dependency
//		if err != nil {
//			return err
//		}
//		payments, err := breaker.New(breaker.AI2()) // one breaker per dependency
//		if err != nil {
//			return err
//		}
//		states, err := loadstate.New(loadstate.Config{}, now) // declare the service's gates
//		if err != nil {
//			return err
//		}
//		plan, err := shed.Plan{States: map[loadstate.State][]shed.Optional{
//			loadstate.Protected: {{Name: "recommendations", Fallback: "no recommendations block"}},
//		}}.Compile()
//		if err != nil {
//			return err
//		}
//		recs, _ := plan.Feature("recommendations")
//		metrics := new(controlhttp.Metrics)
//
//		paymentClient := &http.Client{Transport: controlhttp.NewTransport(nil, controlhttp.ClientConfig{
//			Budget:   retries,
//			Breaker:  payments,
//			Reserve:  100 * time.Millisecond, // to answer the caller after the call
//			Expected: 120 * time.Millisecond, // an attempt's p90
//			Seed:     1,
//			Metrics:  metrics,
//		})}
//
//		checkout := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
//			ctx := r.Context() // ends at the deadline; carries the identity
//			req, _ := http.NewRequestWithContext(ctx, "POST", "http://payments.internal/authorise",
//				strings.NewReader(r.FormValue("amount")))
//			resp, err := paymentClient.Do(req)
//			if err != nil {
//				http.Error(w, "payment unavailable", http.StatusServiceUnavailable)
//				return
//			}
//			defer resp.Body.Close()
//			// ... commit the order ...
//			if !controlhttp.Shed(ctx, recs) {
//				// ... add recommendations to the receipt ...
//			}
//		})
//
//		mux := http.NewServeMux()
//		mux.Handle("/checkout", controlhttp.Handler(checkout, controlhttp.ServerConfig{
//			Deadline:  deadline.Config{SkewMargin: 20 * time.Millisecond, Default: 1800 * time.Millisecond, Max: 30 * time.Second},
//			Admission: adm,
//			Classify:  classify, // e.g. continuations and status lookups by path
//			Expected:  300 * time.Millisecond,
//			LoadState: states,
//			Shed:      plan,
//			Metrics:   metrics,
//		}))
//		reg := prometheus.NewRegistry()
//		reg.MustRegister(metrics)
//		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
//		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
//		defer stop()
//		stepper := &controlhttp.Stepper{
//			Machine:      states,
//			Signals:      measure, // amplification, slack p10, oldest queue age, pool saturation, ...
//			Admission:    adm,
//			Budget:       retries,
//			OnTransition: func(t loadstate.Transition) { log.Print(t) },
//			Metrics:      metrics,
//		}
//		go stepper.Run(ctx)
//
//		srv := &http.Server{Addr: ":8080", Handler: mux}
//		go func() {
//			<-ctx.Done()
//			srv.Shutdown(context.Background())
//		}()
//		if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
//			return err
//		}
//		return nil
//	}
//
// Handlers, Transports, Metrics and a running Stepper are safe for
// concurrent use.
package controlhttp
