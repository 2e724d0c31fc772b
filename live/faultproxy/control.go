package faultproxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/goodput-lab/goodput/scenario"
)

// ControlPrefix is the path prefix of the control API, which the proxy serves itself
// instead of forwarding:
//
//	GET    /_goodput/fault    the fault in force (FaultState)
//	PUT    /_goodput/fault    replace it with the Fault in the body until DELETE
//	DELETE /_goodput/fault    return to the schedule
//	GET    /_goodput/stats    the counters (Stats)
//	GET    /_goodput/metrics  the counters in the Prometheus text format
const ControlPrefix = "/_goodput/"

// FaultState is the answer of GET, PUT and DELETE /_goodput/fault.
type FaultState struct {
	// Fault is the fault in force.
	Fault Fault `json:"fault"`
	// Source is "schedule" or "override" (set by PUT).
	Source string `json:"source"`
	// Elapsed is the run's time (since the proxy's start).
	Elapsed scenario.Duration `json:"elapsed"`
}

// maxFaultBody bounds a PUT body.
const maxFaultBody = 64 << 10

func (p *Proxy) controlHandler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(p.Collector())
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+ControlPrefix+"fault", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, p.faultState())
	})
	mux.HandleFunc("PUT "+ControlPrefix+"fault", func(w http.ResponseWriter, r *http.Request) {
		f, err := decodeFault(http.MaxBytesReader(w, r.Body, maxFaultBody))
		if err == nil {
			err = p.SetFault(f)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, http.StatusOK, p.faultState())
	})
	mux.HandleFunc("DELETE "+ControlPrefix+"fault", func(w http.ResponseWriter, r *http.Request) {
		p.ClearFault()
		writeJSON(w, http.StatusOK, p.faultState())
	})
	mux.HandleFunc("GET "+ControlPrefix+"stats", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, p.Stats())
	})
	mux.Handle("GET "+ControlPrefix+"metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return mux
}

func (p *Proxy) faultState() FaultState {
	st := FaultState{Source: "schedule", Elapsed: scenario.Duration(p.Elapsed())}
	if f := p.override.Load(); f != nil {
		st.Fault, st.Source = *f, "override"
	} else {
		st.Fault = p.sched.At(p.Elapsed())
	}
	return st
}

// decodeFault reads one Fault from a PUT body, strictly: unknown fields and trailing data
// are errors.
func decodeFault(r io.Reader) (Fault, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var f Fault
	if err := dec.Decode(&f); err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return Fault{}, fmt.Errorf("faultproxy: fault: body over %d bytes", mb.Limit)
		}
		return Fault{}, fmt.Errorf("faultproxy: fault: %s; expected a JSON object such as {\"error_rate\": \"40%%\", \"service_time\": {\"p50\": \"20ms\", \"p99\": \"100ms\"}}",
			strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return Fault{}, errors.New("faultproxy: fault: more than one JSON value in the body; expected one object")
	}
	return f, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
