package controlotel_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/control/controlotel"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
)

// An Observer set in ServerConfig traces each served request; spans go to
// the TracerProvider's processors (here an in-memory recorder; in a service
// a batch processor and an exporter).
func Example() {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	obs := controlotel.New(tp)

	h := controlhttp.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "receipt")
	}), controlhttp.ServerConfig{Observer: obs})
	// The same Observer goes in every ClientConfig:
	// controlhttp.NewTransport(nil, controlhttp.ClientConfig{Observer: obs, Dependency: "payments"})

	req := httptest.NewRequest("POST", "/checkout", nil)
	req.Header.Set(deadline.TimeoutHeader, "2S")
	identity.Inject(req.Header, identity.First("order-7"))
	h.ServeHTTP(httptest.NewRecorder(), req)

	for _, s := range rec.Ended() {
		fmt.Println(s.Name(), s.SpanKind())
		for _, kv := range s.Attributes() {
			if kv.Key == controlotel.KeyDeadline {
				fmt.Println(" ", kv.Key, "(2 s after arrival)")
				continue
			}
			fmt.Println(" ", kv.Key, kv.Value.Emit())
		}
	}
	// Output:
	// goodput.serve server
	//   http.request.method POST
	//   url.path /checkout
	//   goodput.identity order-7
	//   goodput.attempt 1
	//   goodput.deadline (2 s after arrival)
	//   goodput.admission.class standard
	//   goodput.admission.result admitted
	//   goodput.load.state Normal
	//   goodput.policy.generation 0
	//   goodput.result goodput
	//   http.response.status_code 200
}
