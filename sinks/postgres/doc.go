// Package postgres is the PostgreSQL sink, Spark's JDBC sink for one
// database: each micro-batch goes into a table in one transaction, exactly
// once, through pgx (github.com/jackc/pgx/v5).
//
// # Terms
//
//   - Append mode: the batch's rows are added with COPY (binary format),
//     Options.BatchSize rows per COPY statement.
//   - Update mode: an upsert on Options.KeyColumns. The rows are COPYed
//     into a staging table (temporary, dropped at commit) and merged with
//     one INSERT … SELECT … ON CONFLICT (keys) DO UPDATE SET every other
//     column; the table needs a primary key or unique index on exactly the
//     key columns. CreateTable makes a primary key, or, when a key field
//     is nullable, UNIQUE NULLS NOT DISTINCT (PostgreSQL 15 and later), so
//     that a null key is one row, as it is one group in Spark. COPY into the stage and one merge statement are 2.4×
//     as fast as row-by-row INSERT … ON CONFLICT (BENCHMARKS.md).
//   - Complete mode: the table's contents are replaced: DELETE of every
//     row, then COPY, in the batch's transaction, so readers see the old
//     contents until the new ones commit (DELETE rather than TRUNCATE,
//     whose lock would block them meanwhile).
//   - progress table: millrace_progress (Options.ProgressTable) with one
//     row per (query id, table): the last batch committed there (-1 before
//     the first) and the checkpoint of the query that bound it.
//
// # Exactly once
//
// Begin reads the progress table and skips a batch at or below the
// recorded one (a replay after a restart). Commit writes the progress row
// in the same transaction as the batch's rows, with a condition that it
// only moves forward; if another instance of the query committed the batch
// meanwhile, nothing is updated, and the batch rolls back and counts as
// skipped. So a batch's rows and its record commit together or not at
// all, whatever kills the query when.
//
// A checkpointed query binds the sink at start (Bind, sinks.Binder): the
// table's identity is its location and relation OID, and the progress
// row records the query's checkpoint, so a table dropped and recreated
// under committed batches, a database restored to before them, or a
// recreated checkpoint appending its sources again is refused with
// sinks.ErrSinkMismatch instead of losing or duplicating rows.
//
// # Types
//
// Arrow types go to these PostgreSQL types (the column CreateTable makes
// first; the others the sink also writes to an existing column):
//
//	int8, int16, uint8        smallint   (integer, bigint, numeric)
//	int32, uint16             integer    (smallint, bigint, numeric)
//	int64, uint32             bigint     (smallint, integer, numeric)
//	uint64                    numeric(20,0) (bigint, when the values fit)
//	float32 / float64         real / double precision (numeric)
//	decimal128/256(p,s)       numeric(p,s)
//	string (all kinds)        text       (varchar, char, json, jsonb)
//	boolean                   boolean
//	timestamp (any unit, tz)  timestamptz (timestamp: the UTC wall clock)
//	date32, date64            date       (timestamptz, timestamp)
//	binary (all kinds)        bytea
//	struct, list, map         jsonb      (json): the value as Arrow's JSON
//	null                      text       (any column: every value is NULL)
//
// Nulls are NULL. Other Arrow types (durations, intervals, unions,
// dictionaries) are refused with an error that says to cast them.
//
// # Errors
//
// Errors name the table and the batch; a row COPY refuses is named by its
// index in the batch (from COPY's line), with PostgreSQL's detail (the key
// or the row's values), constraint and column; a row Update mode's merge
// refuses is named by its values (PostgreSQL's "Failing row contains"). Before the first row, the
// sink checks that the table exists (or creates it, Options.CreateTable)
// and that each field has a column of a type it can take, so a missing
// table or a type mismatch fails the batch before anything is sent.
//
// # Secrets
//
// The connection string's password never appears in Name, Metrics, the
// progress table or errors (errors are redacted in case a driver message
// echoes it). TLS is configured in the connection string as libpq takes
// it (sslmode=verify-full, sslrootcert, sslcert, sslkey).
//
// Read next: sinks/sink.go for the Sink interface, internal/pgtest for
// the test server.
package postgres
