package demo

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Order is one committed order: a row of the orders table.
type Order struct {
	// Identity is the logical identity of the request that committed it (its
	// Idempotency-Key); the table's primary key, so one identity has one order.
	Identity string `json:"identity"`
	// ID is the order's id, derived from Identity ([OrderID]).
	ID string `json:"order_id"`
	// Class is the route that committed it: new_checkout or payment_continuation.
	Class string `json:"class"`
	// Amount is the order's amount in cents.
	Amount int64 `json:"amount"`
	// Status is authorised (a new checkout) or paid (a payment continuation).
	Status string `json:"status"`
	// Attempt is the attempt number (Goodput-Attempt) of the commit.
	Attempt int `json:"attempt"`
	// Created is when the row was committed, in UTC, RFC 3339 with nanoseconds.
	Created string `json:"created_at"`
}

// OrderID is the order id of the logical identity key: "ord-" and 16 hex digits of its
// SHA-256, so a retried commit names the same order.
func OrderID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "ord-" + hex.EncodeToString(sum[:8])
}

// Store keeps orders durably in SQLite (a file) or PostgreSQL, through database/sql.
// Open it with [Open]; [Store.Commit] inserts an order, [Store.Audit] counts what the
// tables hold.
type Store struct {
	db       *sql.DB
	postgres bool
	// Where names the database in errors: the file, or postgres.
	Where string
}

// schema is the orders and refusals tables. The orders table's primary key is the
// logical identity, so the database itself refuses a second commit of one request; each
// refused commit is a row of refusals.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS orders (
		identity   TEXT PRIMARY KEY,
		order_id   TEXT NOT NULL UNIQUE,
		class      TEXT NOT NULL,
		amount     BIGINT NOT NULL,
		status     TEXT NOT NULL,
		attempt    INTEGER NOT NULL,
		created_at TEXT NOT NULL
	)`,
	`CREATE TABLE IF NOT EXISTS refusals (
		identity   TEXT NOT NULL,
		class      TEXT NOT NULL,
		attempt    INTEGER NOT NULL,
		refused_at TEXT NOT NULL
	)`,
}

// IsPostgres reports whether dsn names a PostgreSQL database (postgres:// or
// postgresql://) rather than a SQLite file.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open opens the database dsn names and creates the tables if they are missing: a
// PostgreSQL URL (postgres://user:password@host/db) through pgx, anything else a SQLite
// file path, created if missing, in WAL mode with a 10 s busy timeout and full
// synchronous commits. At most 32 connections are open to PostgreSQL, 8 to SQLite. Close
// the Store when done.
func Open(ctx context.Context, dsn string) (*Store, error) {
	if dsn == "" {
		return nil, errors.New("demo: no database: expected a SQLite file path or a postgres:// URL")
	}
	s := &Store{postgres: IsPostgres(dsn), Where: dsn}
	var err error
	if s.postgres {
		s.Where = "postgres"
		s.db, err = sql.Open("pgx", dsn)
	} else {
		if strings.ContainsAny(dsn, "?#") {
			return nil, fmt.Errorf("demo: database file %q: expected a path without ? or #", dsn)
		}
		s.db, err = sql.Open("sqlite", dsn+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)")
	}
	if err != nil {
		return nil, fmt.Errorf("demo: database %s: %w", s.Where, err)
	}
	// Bounded pools: PostgreSQL's connection limit (100 by default) is shared with other
	// clients; SQLite has one writer at a time, so more connections only wait on its lock.
	conns := 8
	if s.postgres {
		conns = 32
	}
	s.db.SetMaxOpenConns(conns)
	s.db.SetMaxIdleConns(conns)
	for _, q := range schema {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			s.db.Close()
			return nil, fmt.Errorf("demo: database %s: creating the tables: %w", s.Where, err)
		}
	}
	return s, nil
}

// DB is the store's database handle, for queries of your own.
func (s *Store) DB() *sql.DB { return s.db }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// q writes a query's $n placeholders as the driver wants them.
func (s *Store) q(query string) string {
	if s.postgres {
		return query
	}
	for i := 9; i >= 1; i-- {
		query = strings.ReplaceAll(query, fmt.Sprintf("$%d", i), "?")
	}
	return query
}

// Commit inserts o (its ID and Created are filled in). When the database refuses the row
// because an order with o's identity exists, Commit records the refusal in the refusals
// table and returns the existing order with created false: the idempotent answer. Any
// other database error is returned, wrapped with what was being done; the caller must not
// acknowledge the order then.
func (s *Store) Commit(ctx context.Context, o Order) (committed Order, created bool, err error) {
	o.ID = OrderID(o.Identity)
	o.Created = time.Now().UTC().Format(time.RFC3339Nano)
	_, err = s.db.ExecContext(ctx, s.q(`INSERT INTO orders (identity, order_id, class, amount, status, attempt, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`),
		o.Identity, o.ID, o.Class, o.Amount, o.Status, o.Attempt, o.Created)
	if err == nil {
		return o, true, nil
	}
	if !IsDuplicate(err) {
		return Order{}, false, fmt.Errorf("committing order %s: %w", o.Identity, err)
	}
	if _, err := s.db.ExecContext(ctx, s.q(`INSERT INTO refusals (identity, class, attempt, refused_at) VALUES ($1, $2, $3, $4)`),
		o.Identity, o.Class, o.Attempt, o.Created); err != nil {
		return Order{}, false, fmt.Errorf("recording the refused duplicate of order %s: %w", o.Identity, err)
	}
	existing, ok, err := s.Order(ctx, o.Identity)
	switch {
	case err != nil:
		return Order{}, false, err
	case !ok:
		return Order{}, false, fmt.Errorf("order %s: refused as a duplicate but not found", o.Identity)
	}
	return existing, false, nil
}

// Order returns the order of the identity key; ok is false when there is none.
func (s *Store) Order(ctx context.Context, key string) (o Order, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, s.q(`SELECT identity, order_id, class, amount, status, attempt, created_at FROM orders WHERE identity = $1`), key).
		Scan(&o.Identity, &o.ID, &o.Class, &o.Amount, &o.Status, &o.Attempt, &o.Created)
	if errors.Is(err, sql.ErrNoRows) {
		return Order{}, false, nil
	}
	if err != nil {
		return Order{}, false, fmt.Errorf("reading order %s: %w", key, err)
	}
	return o, true, nil
}

// IsDuplicate reports whether err is the database refusing a row that breaks a unique
// constraint: SQLite's SQLITE_CONSTRAINT_PRIMARYKEY or _UNIQUE, PostgreSQL's
// unique_violation (23505).
func IsDuplicate(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code()
		return c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY || c == sqlite3.SQLITE_CONSTRAINT_UNIQUE
	}
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// Audit is what the database holds, counted by queries, not by the service's counters.
type Audit struct {
	// Orders is the rows of the orders table.
	Orders int64 `json:"orders"`
	// Identities is the distinct identities among them.
	Identities int64 `json:"identities"`
	// Duplicates is orders committed twice for one identity: Orders − Identities, zero
	// while the table's primary key holds.
	Duplicates int64 `json:"duplicates"`
	// Refused is the duplicate commits the database refused (rows of refusals).
	Refused int64 `json:"refused"`
	// RefusedIdentities is the distinct identities among the refused commits.
	RefusedIdentities int64 `json:"refused_identities"`
}

// Audit counts the orders and refused duplicates in the database.
func (s *Store) Audit(ctx context.Context) (Audit, error) { return AuditDB(ctx, s.db) }

// AuditDB counts the orders and refused duplicates in db, a database a [Store] wrote.
func AuditDB(ctx context.Context, db *sql.DB) (Audit, error) {
	var a Audit
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(DISTINCT identity) FROM orders`).Scan(&a.Orders, &a.Identities); err != nil {
		return Audit{}, fmt.Errorf("demo: audit: counting orders: %w", err)
	}
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(DISTINCT identity) FROM refusals`).Scan(&a.Refused, &a.RefusedIdentities); err != nil {
		return Audit{}, fmt.Errorf("demo: audit: counting refusals: %w", err)
	}
	a.Duplicates = a.Orders - a.Identities
	return a, nil
}
