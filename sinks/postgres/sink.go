package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5"
	"github.com/millrace/millrace/sinks"
)

// DefaultProgressTable is the table that records each query's last
// committed batch per target table.
const DefaultProgressTable = "millrace_progress"

// Options configures a PostgreSQL sink; the zero value means the defaults.
type Options struct {
	// KeyColumns are the columns that identify a row, for Update mode's
	// upsert (INSERT … ON CONFLICT (keys) DO UPDATE): the table needs a
	// primary key or unique index on exactly these columns (CreateTable
	// makes the primary key). Required for Update mode.
	KeyColumns []string
	// CreateTable creates the table from the first batch's schema when it
	// does not exist (types as in the package doc; NOT NULL for
	// non-nullable fields; PRIMARY KEY (KeyColumns) when set, or UNIQUE
	// NULLS NOT DISTINCT for nullable keys). Without it a missing table is
	// an error.
	CreateTable bool
	// BatchSize is how many rows one COPY statement carries at most
	// (Spark's JDBC batchsize; default 100000). A micro-batch of more rows
	// is sent as several COPYs in the same transaction.
	BatchSize int
	// ProgressTable records the last committed batch per query and table
	// (default millrace_progress, created when missing). Qualify it with a
	// schema (myschema.millrace_progress) to keep it out of public.
	ProgressTable string
}

// Sink writes each micro-batch to a PostgreSQL table in one transaction,
// exactly once. Create it with New.
type Sink struct {
	connString string
	table      pgx.Identifier
	progress   pgx.Identifier
	opts       Options
	secret     string // the connection's password, redacted from every error
	where      string // host:port/database, for Name and errors

	// mu is held from a writing batch's Begin to its Commit or Abort: the
	// sink has one connection and one transaction on it at a time.
	mu      sync.Mutex
	conn    *pgx.Conn
	columns map[string]string // the table's columns → pg_type.typname, once known

	rows, commits, skipped atomic.Int64
}

var (
	_ sinks.Sink        = (*Sink)(nil)
	_ sinks.ModeChecker = (*Sink)(nil)
	_ sinks.Metricer    = (*Sink)(nil)
)

// New returns a sink writing to table (name or schema.name) of the
// database connString names (a postgres:// URL or key=value DSN as libpq
// takes; TLS through sslmode, sslrootcert, sslcert, sslkey). It parses
// connString but does not connect: the first batch does.
func New(connString, table string, opts Options) (*Sink, error) {
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		// pgx's parse errors never echo the password; redact anyway, as
		// the string may be malformed around it.
		return nil, fmt.Errorf("postgres sink: connection string: %w", redact(err, passwordIn(connString)))
	}
	if table == "" {
		return nil, errors.New("postgres sink: a table name is required")
	}
	if opts.BatchSize < 0 {
		return nil, fmt.Errorf("postgres sink: Options.BatchSize %d is negative", opts.BatchSize)
	}
	if opts.BatchSize == 0 {
		opts.BatchSize = 100_000
	}
	if opts.ProgressTable == "" {
		opts.ProgressTable = DefaultProgressTable
	}
	for i, k := range opts.KeyColumns {
		if k == "" {
			return nil, fmt.Errorf("postgres sink: Options.KeyColumns[%d] is empty", i)
		}
	}
	return &Sink{
		connString: connString,
		table:      ident(table),
		progress:   ident(opts.ProgressTable),
		opts:       opts,
		secret:     cfg.Password,
		where:      fmt.Sprintf("%s:%d/%s", cfg.Host, cfg.Port, cfg.Database),
	}, nil
}

// ident splits schema.name; names are taken as written (case kept).
func ident(name string) pgx.Identifier { return pgx.Identifier(strings.Split(name, ".")) }

// tableName is the table as written in errors and the progress table.
func (s *Sink) tableName() string { return strings.Join(s.table, ".") }

// Name describes the sink in progress events; it never holds the password.
func (s *Sink) Name() string {
	return fmt.Sprintf("PostgresSink[%s %s]", s.where, s.tableName())
}

// CheckMode accepts every mode; Update needs Options.KeyColumns.
func (s *Sink) CheckMode(m sinks.OutputMode) error {
	if m == sinks.Update && len(s.opts.KeyColumns) == 0 {
		return fmt.Errorf("postgres sink %s: Update mode upserts on key columns: set Options.KeyColumns (and give the table a primary key or unique index on them)", s.tableName())
	}
	return nil
}

// Metrics reports rows written, batches committed and batches skipped as
// already committed.
func (s *Sink) Metrics() map[string]string {
	return map[string]string{
		"rowsWritten":      fmt.Sprint(s.rows.Load()),
		"batchesCommitted": fmt.Sprint(s.commits.Load()),
		"batchesSkipped":   fmt.Sprint(s.skipped.Load()),
	}
}

// Close closes the connection. It refuses while a batch is open (between
// a writing Begin and its Commit or Abort) instead of waiting for it: the
// connection is that batch's.
func (s *Sink) Close() error {
	if !s.mu.TryLock() {
		return fmt.Errorf("postgres sink %s: Close while a batch is open: Commit or Abort it first", s.tableName())
	}
	defer s.mu.Unlock()
	if s.conn == nil {
		return nil
	}
	err := s.conn.Close(context.Background())
	s.conn = nil
	return s.redact(err)
}

func (s *Sink) redact(err error) error { return redact(err, s.secret) }

// connect returns the open connection, opening it (and the progress
// table) when there is none or the last one broke. Called with s.mu held.
func (s *Sink) connect(ctx context.Context) (*pgx.Conn, error) {
	if s.conn != nil && !s.conn.IsClosed() {
		return s.conn, nil
	}
	conn, err := pgx.Connect(ctx, s.connString)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", s.where, s.redact(err))
	}
	_, err = conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+s.progress.Sanitize()+` (
	query_id text NOT NULL,
	table_name text NOT NULL,
	batch_id bigint NOT NULL,
	committed_at timestamptz NOT NULL DEFAULT now(),
	checkpoint text,
	PRIMARY KEY (query_id, table_name))`)
	if err != nil && !isCode(err, "23505", "42P07") { // two sinks creating it at once
		conn.Close(ctx)
		return nil, fmt.Errorf("create progress table %s: %w", s.progress.Sanitize(), s.redact(err))
	}
	s.conn = conn
	return conn, nil
}

// dropConn closes a connection left in an unknown state. Called with s.mu
// held.
func (s *Sink) dropConn() {
	if s.conn != nil {
		s.conn.Close(context.Background())
		s.conn = nil
	}
}

// lastBatch returns the last batch of queryID committed to the table, or
// -1.
func (s *Sink) lastBatch(ctx context.Context, q querier, queryID string) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `SELECT batch_id FROM `+s.progress.Sanitize()+` WHERE query_id = $1 AND table_name = $2`,
		queryID, s.tableName()).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return -1, nil
	}
	return id, err
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Begin starts batch info.BatchID: it skips a batch the progress table
// records as committed, and otherwise opens the batch's transaction
// (after checking, the first time, that the table exists and its columns
// take the schema's types).
func (s *Sink) Begin(ctx context.Context, info sinks.BatchInfo) (sinks.BatchWriter, error) {
	if err := s.CheckMode(info.Mode); err != nil {
		return nil, err
	}
	if info.QueryID == "" {
		return nil, fmt.Errorf("postgres sink %s: batch %d has no query id to record in %s", s.tableName(), info.BatchID, s.progress.Sanitize())
	}
	s.mu.Lock()
	bw, err := s.begin(ctx, info)
	if err != nil {
		s.dropConn()
		s.mu.Unlock()
		return nil, fmt.Errorf("postgres sink %s: batch %d: %w", s.tableName(), info.BatchID, err)
	}
	if bw.skip {
		s.skipped.Add(1)
		s.mu.Unlock()
	}
	return bw, nil
}

func (s *Sink) begin(ctx context.Context, info sinks.BatchInfo) (*batchWriter, error) {
	conn, err := s.connect(ctx)
	if err != nil {
		return nil, err
	}
	last, err := s.lastBatch(ctx, conn, info.QueryID)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.progress.Sanitize(), s.redact(err))
	}
	if last >= info.BatchID {
		return &batchWriter{s: s, info: info, skip: true}, nil
	}
	if err := s.checkTable(ctx, conn, info.Schema); err != nil {
		return nil, err
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin transaction: %w", s.redact(err))
	}
	bw := &batchWriter{s: s, info: info, tx: tx}
	if info.Mode == sinks.Complete {
		// DELETE, not TRUNCATE: readers keep seeing the previous contents
		// until the batch commits instead of waiting on TRUNCATE's lock.
		if _, err := tx.Exec(ctx, `DELETE FROM `+s.table.Sanitize()); err != nil {
			tx.Rollback(ctx)
			return nil, fmt.Errorf("empty %s for Complete mode: %w", s.tableName(), s.redact(err))
		}
	}
	return bw, nil
}

// checkTable checks (once per connection's sink) that the table exists,
// creating it if Options.CreateTable, and that every field of schema has
// a column of a type it can be written to.
func (s *Sink) checkTable(ctx context.Context, conn *pgx.Conn, schema *arrow.Schema) error {
	if s.columns == nil {
		cols, err := s.tableColumns(ctx, conn)
		if err != nil {
			return err
		}
		if cols == nil {
			if !s.opts.CreateTable {
				return fmt.Errorf("table %s does not exist in %s: create it, or set Options.CreateTable", s.tableName(), s.where)
			}
			if schema == nil {
				return fmt.Errorf("table %s does not exist and the batch has no schema to create it from", s.tableName())
			}
			if err := s.createTable(ctx, conn, schema); err != nil {
				return err
			}
			if cols, err = s.tableColumns(ctx, conn); err != nil {
				return err
			}
		}
		s.columns = cols
	}
	if schema == nil {
		return nil
	}
	for _, f := range schema.Fields() {
		typ, ok := s.columns[f.Name]
		if !ok {
			return fmt.Errorf("table %s has no column %q for the batch's field %q (%s): add it (ALTER TABLE … ADD COLUMN) or rename the field", s.tableName(), f.Name, f.Name, f.Type)
		}
		if !compatible(f.Type, typ) {
			want, _ := pgType(f.Type)
			return fmt.Errorf("type mismatch: field %q is Arrow %s, which this sink writes to %s, but column %s.%q is %s: cast the field or change the column", f.Name, f.Type, want, s.tableName(), f.Name, typ)
		}
	}
	for _, k := range s.opts.KeyColumns {
		if _, ok := s.columns[k]; !ok {
			return fmt.Errorf("key column %q (Options.KeyColumns) is not a column of %s", k, s.tableName())
		}
	}
	return nil
}

// tableColumns returns the table's columns and their pg_type names, or nil
// when the table does not exist.
func (s *Sink) tableColumns(ctx context.Context, conn *pgx.Conn) (map[string]string, error) {
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, s.table.Sanitize()).Scan(&exists); err != nil {
		return nil, fmt.Errorf("look up table %s: %w", s.tableName(), s.redact(err))
	}
	if !exists {
		return nil, nil
	}
	rows, err := conn.Query(ctx, `SELECT a.attname, t.typname FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
		WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`, s.table.Sanitize())
	if err != nil {
		return nil, fmt.Errorf("read the columns of %s: %w", s.tableName(), s.redact(err))
	}
	cols := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			rows.Close()
			return nil, s.redact(err)
		}
		cols[name] = typ
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the columns of %s: %w", s.tableName(), s.redact(err))
	}
	return cols, nil
}

// createTable creates the table from schema (see Options.CreateTable).
func (s *Sink) createTable(ctx context.Context, conn *pgx.Conn, schema *arrow.Schema) error {
	var defs []string
	for _, f := range schema.Fields() {
		typ, err := pgType(f.Type)
		if err != nil {
			return fmt.Errorf("create table %s: field %q: %w", s.tableName(), f.Name, err)
		}
		def := pgx.Identifier{f.Name}.Sanitize() + " " + typ
		if !f.Nullable {
			def += " NOT NULL"
		}
		defs = append(defs, def)
	}
	if len(s.opts.KeyColumns) > 0 {
		key, err := s.keyConstraint(ctx, conn, schema)
		if err != nil {
			return err
		}
		defs = append(defs, key)
	}
	sql := "CREATE TABLE IF NOT EXISTS " + s.table.Sanitize() + " (" + strings.Join(defs, ", ") + ")"
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("create table %s: %w", s.tableName(), s.redact(err))
	}
	return nil
}

// keyConstraint is the created table's constraint on the key columns: a
// primary key, unless a key field is nullable. A null key is a group of
// its own in Spark (and so one row to upsert), which a primary key
// refuses and a plain unique index would duplicate (nulls are distinct
// there); so nullable keys get UNIQUE NULLS NOT DISTINCT, PostgreSQL 15's,
// and an older server is told to make the fields non-nullable.
func (s *Sink) keyConstraint(ctx context.Context, conn *pgx.Conn, schema *arrow.Schema) (string, error) {
	var nullable []string
	for _, k := range s.opts.KeyColumns {
		idx := schema.FieldIndices(k)
		if len(idx) == 0 {
			return "", fmt.Errorf("create table %s: key column %q (Options.KeyColumns) is not a field of the batch", s.tableName(), k)
		}
		if schema.Field(idx[0]).Nullable {
			nullable = append(nullable, k)
		}
	}
	if len(nullable) == 0 {
		return "PRIMARY KEY (" + quoteAll(s.opts.KeyColumns) + ")", nil
	}
	var version int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		return "", fmt.Errorf("create table %s: server version: %w", s.tableName(), s.redact(err))
	}
	if version < 150000 {
		return "", fmt.Errorf("create table %s: key columns %s are nullable, and PostgreSQL %d cannot make nulls one key (UNIQUE NULLS NOT DISTINCT is PostgreSQL 15's): filter out null keys or create the table yourself",
			s.tableName(), strings.Join(nullable, ", "), version/10000)
	}
	return "UNIQUE NULLS NOT DISTINCT (" + quoteAll(s.opts.KeyColumns) + ")", nil
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = pgx.Identifier{n}.Sanitize()
	}
	return strings.Join(q, ", ")
}
