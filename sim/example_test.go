package sim_test

import (
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/sim"
)

// server is a one-worker FIFO server: arrivals queue, each takes 40ms of service.
type server struct {
	queue []int64
	busy  bool
}

const (
	arrive int32 = iota
	depart
)

func (sv *server) Handle(s *sim.Sim, e sim.Event) {
	switch e.Kind {
	case arrive:
		if sv.busy {
			sv.queue = append(sv.queue, e.ID)
			return
		}
		sv.busy = true
		s.Schedule(40*time.Millisecond, sv, depart, e.ID)
	case depart:
		fmt.Printf("%s request %d done\n", s.Now().Format("15:04:05.000"), e.ID)
		if len(sv.queue) == 0 {
			sv.busy = false
			return
		}
		next := sv.queue[0]
		sv.queue = sv.queue[1:]
		s.Schedule(40*time.Millisecond, sv, depart, next)
	}
}

func Example() {
	s := sim.New(time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC))
	sv := &server{}
	for i := range 3 {
		s.Schedule(time.Duration(i)*10*time.Millisecond, sv, arrive, int64(i+1))
	}
	s.Run(time.Second)
	fmt.Println(s.Processed(), "events")
	// Output:
	// 14:00:00.040 request 1 done
	// 14:00:00.080 request 2 done
	// 14:00:00.120 request 3 done
	// 6 events
}
