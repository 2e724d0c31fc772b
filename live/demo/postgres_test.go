package demo

import (
	"context"
	"os"
	"testing"
	"time"
)

// postgres returns the DSN of GOODPUT_TEST_POSTGRES with empty orders and refusals
// tables, or skips the test when it is unset or not reachable.
func postgres(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("GOODPUT_TEST_POSTGRES")
	const hint = "set GOODPUT_TEST_POSTGRES=postgres://…; .ci/run starts one"
	if dsn == "" {
		t.Skip("PostgreSQL not reachable: " + hint)
	}
	if !IsPostgres(dsn) {
		t.Fatalf("GOODPUT_TEST_POSTGRES=%q: expected a postgres:// URL", dsn)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := Open(ctx, dsn)
	if err != nil {
		t.Skipf("PostgreSQL not reachable (%v): %s", err, hint)
	}
	defer s.Close()
	if _, err := s.DB().ExecContext(ctx, `TRUNCATE orders, refusals`); err != nil {
		t.Fatalf("emptying the tables: %v", err)
	}
	return dsn
}

func TestPostgresConcurrentDuplicates(t *testing.T) {
	testConcurrentDuplicates(t, postgres(t))
}

func TestPostgresClosedMidRun(t *testing.T) {
	testDatabaseClosed(t, postgres(t))
}

func TestPostgresRoutes(t *testing.T) {
	l := newLab(t, labOptions{arm: "protected", dsn: postgres(t)})
	for _, tc := range []struct {
		method, path, key string
		status            int
	}{
		{"POST", "/checkout", "pg-1", 201},
		{"POST", "/checkout", "pg-1", 200},
		{"POST", "/checkout/pg-1/pay", "", 200},
		{"GET", "/orders/pg-1", "", 200},
		{"GET", "/orders/pg-2", "", 404},
	} {
		if status, reason, body := l.do(t, tc.method, tc.path, tc.key, ""); status != tc.status {
			t.Errorf("%s %s: %d %s %q; want %d", tc.method, tc.path, status, reason, body, tc.status)
		}
	}
	a, err := l.store.Audit(context.Background())
	if err != nil || a != (Audit{Orders: 1, Identities: 1, Refused: 2, RefusedIdentities: 1}) {
		t.Errorf("audit %+v, %v", a, err)
	}
}
