package postgres

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/millrace/millrace/sinks"
)

// stageTable is Update mode's staging table, a temporary table private to
// the batch's transaction (ON COMMIT DROP).
const stageTable = "millrace_stage"

type batchWriter struct {
	s    *Sink
	info sinks.BatchInfo
	skip bool
	tx   pgx.Tx // nil once committed or aborted
	rows int64  // rows of the batch sent so far
	// staged: Update mode's staging table exists in tx.
	staged bool
	cols   []string
}

func (b *batchWriter) Skip() bool { return b.skip }

func (b *batchWriter) fail(format string, args ...any) error {
	return fmt.Errorf("postgres sink %s: batch %d: "+format, append([]any{b.s.tableName(), b.info.BatchID}, args...)...)
}

// Write sends rec's rows in the batch's transaction: COPY into the table
// (Append, Complete) or into the staging table (Update), BatchSize rows
// per COPY.
func (b *batchWriter) Write(ctx context.Context, rec arrow.RecordBatch) error {
	if b.skip || rec.NumRows() == 0 {
		return nil
	}
	if b.tx == nil {
		return b.fail("Write after Commit or Abort")
	}
	if b.cols == nil {
		for _, f := range rec.Schema().Fields() {
			b.cols = append(b.cols, f.Name)
		}
	}
	target := b.s.table
	if b.info.Mode == sinks.Update {
		if !b.staged {
			_, err := b.tx.Exec(ctx, "CREATE TEMP TABLE "+stageTable+" ON COMMIT DROP AS SELECT "+quoteAll(b.cols)+" FROM "+b.s.table.Sanitize()+" WITH NO DATA")
			if err != nil {
				return b.fail("create the staging table: %w", b.s.redact(err))
			}
			b.staged = true
		}
		target = pgx.Identifier{stageTable}
	}
	getters := make([]func(int) any, rec.NumCols())
	for i := range getters {
		g, err := getter(rec.Column(i))
		if err != nil {
			return b.fail("column %q: %w", b.cols[i], err)
		}
		getters[i] = g
	}
	n := int(rec.NumRows())
	for lo := 0; lo < n; lo += b.s.opts.BatchSize {
		hi := min(lo+b.s.opts.BatchSize, n)
		src := &copySource{getters: getters, row: lo - 1, end: hi, vals: make([]any, len(getters))}
		if _, err := b.tx.Conn().CopyFrom(ctx, target, b.cols, src); err != nil {
			return b.rowError(err, src, lo)
		}
		b.rows += int64(hi - lo)
	}
	return nil
}

// copyLine finds the line COPY failed at in a server error's context.
var copyLine = regexp.MustCompile(`COPY [^,]+, line (\d+)`)

// rowError names the batch and, when it can tell, the row (counted from
// 0 over the batch) in a failed COPY: the server's context says the line
// of the COPY, an encoding error happens at the source's current row.
func (b *batchWriter) rowError(err error, src *copySource, lo int) error {
	row := int64(-1)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		if m := copyLine.FindStringSubmatch(pgErr.Where); m != nil {
			line, _ := strconv.Atoi(m[1])
			row = b.rows + int64(line-1)
		}
	}
	if row < 0 && src.row >= lo && src.row < src.end {
		// pgx could not encode the row it was reading (then it cancels
		// the COPY, and the server's error repeats pgx's reason).
		row = b.rows + int64(src.row-lo)
	}
	if row >= 0 {
		return b.fail("row %d: %s: %w", row, describe(err), b.s.redact(err))
	}
	return b.fail("%s: %w", describe(err), b.s.redact(err))
}

// describe adds what PostgreSQL says beyond the message: detail (the key
// or the failing row's values), the constraint, the column, and a hint.
func describe(err error) string {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return "sending rows"
	}
	var parts []string
	switch {
	case strings.Contains(pgErr.Message, "unable to encode"):
		parts = append(parts, "value does not fit the column's type")
	case strings.HasPrefix(pgErr.Code, "23"):
		parts = append(parts, "constraint violation")
	case pgErr.Code == "22P02" || strings.HasPrefix(pgErr.Code, "42804") || pgErr.Code == "22003":
		parts = append(parts, "type mismatch")
	default:
		parts = append(parts, "server error")
	}
	if pgErr.ConstraintName != "" {
		parts = append(parts, "constraint "+pgErr.ConstraintName)
	}
	if pgErr.ColumnName != "" {
		parts = append(parts, "column "+pgErr.ColumnName)
	}
	if pgErr.Detail != "" {
		parts = append(parts, pgErr.Detail)
	}
	if pgErr.Hint != "" {
		parts = append(parts, "hint: "+pgErr.Hint)
	}
	return strings.Join(parts, "; ")
}

// Commit merges the staged rows (Update), records the batch in the
// progress table and commits, all in the batch's one transaction. If the
// progress table already records the batch (another instance of the query
// committed it meanwhile), it rolls back and succeeds.
func (b *batchWriter) Commit(ctx context.Context) error {
	if b.skip {
		return nil
	}
	if b.tx == nil {
		return b.fail("Commit after Commit or Abort")
	}
	defer b.Abort()
	if b.staged {
		if err := b.merge(ctx); err != nil {
			return err
		}
	}
	tag, err := b.tx.Exec(ctx, `INSERT INTO `+b.s.progress.Sanitize()+` AS p (query_id, table_name, batch_id) VALUES ($1, $2, $3)
		ON CONFLICT (query_id, table_name) DO UPDATE SET batch_id = EXCLUDED.batch_id, committed_at = now()
		WHERE p.batch_id < EXCLUDED.batch_id`, b.info.QueryID, b.s.tableName(), b.info.BatchID)
	if err != nil {
		return b.fail("record the batch in %s: %w", b.s.progress.Sanitize(), b.s.redact(err))
	}
	if tag.RowsAffected() == 0 {
		b.s.skipped.Add(1)
		return nil // Abort rolls back: the batch is already there
	}
	if err := b.tx.Commit(ctx); err != nil {
		b.tx = nil
		b.s.dropConn()
		b.s.mu.Unlock()
		return b.fail("commit: %s: %w", describe(err), b.s.redact(err))
	}
	b.tx = nil
	b.s.rows.Add(b.rows)
	b.s.commits.Add(1)
	b.s.mu.Unlock()
	return nil
}

// merge upserts the staging table into the table on the key columns.
func (b *batchWriter) merge(ctx context.Context) error {
	keys := map[string]bool{}
	for _, k := range b.s.opts.KeyColumns {
		keys[k] = true
	}
	var sets []string
	for _, c := range b.cols {
		if !keys[c] {
			q := pgx.Identifier{c}.Sanitize()
			sets = append(sets, q+" = EXCLUDED."+q)
		}
	}
	action := "DO NOTHING"
	if len(sets) > 0 {
		action = "DO UPDATE SET " + strings.Join(sets, ", ")
	}
	cols := quoteAll(b.cols)
	sql := "INSERT INTO " + b.s.table.Sanitize() + " (" + cols + ") SELECT " + cols + " FROM " + stageTable +
		" ON CONFLICT (" + quoteAll(b.s.opts.KeyColumns) + ") " + action
	if _, err := b.tx.Exec(ctx, sql); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42P10" {
			return b.fail("upsert: %s has no primary key or unique index on exactly (%s) (Options.KeyColumns): add one: %w",
				b.s.tableName(), strings.Join(b.s.opts.KeyColumns, ", "), b.s.redact(err))
		}
		if errors.As(err, &pgErr) && pgErr.Code == "21000" {
			return b.fail("upsert: the batch holds two rows with the same key (%s); Update mode writes one row per key: %w",
				strings.Join(b.s.opts.KeyColumns, ", "), b.s.redact(err))
		}
		return b.fail("upsert of %d rows: %s: %w", b.rows, describe(err), b.s.redact(err))
	}
	return nil
}

// Abort rolls the batch's transaction back; nothing of it stays.
func (b *batchWriter) Abort() {
	if b.skip || b.tx == nil {
		return
	}
	ctx := context.Background()
	if err := b.tx.Rollback(ctx); err != nil {
		b.s.dropConn() // a connection in an unknown state is not reused
	}
	b.tx = nil
	b.s.mu.Unlock()
}

// copySource feeds rows lo..end-1 of a record to pgx's CopyFrom.
type copySource struct {
	getters []func(int) any
	row     int
	end     int
	vals    []any
	err     error
}

func (c *copySource) Next() bool {
	c.row++
	return c.row < c.end && c.err == nil
}

func (c *copySource) Values() ([]any, error) {
	for i, g := range c.getters {
		v := g(c.row)
		if je, ok := v.(jsonError); ok {
			c.err = fmt.Errorf("column %d as JSON: %w", i, je.err)
			return nil, c.err
		}
		c.vals[i] = v
	}
	return c.vals, nil
}

func (c *copySource) Err() error { return c.err }
