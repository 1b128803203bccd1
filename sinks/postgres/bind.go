package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/millrace/millrace/sinks"
)

var _ sinks.Binder = (*Sink)(nil)

// kind names the sink in sinks.CheckRecorded's errors.
const kind = "PostgreSQL table"

// location is the table's place in the sink's identity: server, database
// and table, never the user or password.
func (s *Sink) location() string { return "postgres://" + s.where + "/" + s.tableName() }

// Bind checks at a checkpointed query's start that the table and the
// checkpoint belong together, creates the table (Options.CreateTable, from
// info.Schema) when it is missing, and records the query's checkpoint in
// its progress row. The table's identity is its location and its relation
// OID, which a DROP and CREATE changes. Bind refuses
// (sinks.ErrSinkMismatch), unless info.Force, when:
//
//   - the table the checkpoint recorded was dropped or replaced while the
//     checkpoint has committed batches written to it (sinks.CheckRecorded);
//   - the progress table records this query's batches only up to one
//     before the checkpoint's last committed batch (restored from an older
//     backup: the batches in between are missing);
//   - in Append mode, the table holds batches of another query written
//     with this same checkpoint directory: the checkpoint was deleted and
//     recreated, and the new query would append its sources' data again.
//
// Complete mode never refuses (each batch replaces the table); Update
// mode upserts on keys, so a second query cannot duplicate rows.
func (s *Sink) Bind(ctx context.Context, info sinks.BindInfo) (sinks.Identity, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, err := s.bind(ctx, info)
	if err != nil {
		s.dropConn()
		return sinks.Identity{}, fmt.Errorf("postgres sink %s: %w", s.tableName(), err)
	}
	return id, nil
}

func (s *Sink) bind(ctx context.Context, info sinks.BindInfo) (sinks.Identity, error) {
	conn, err := s.connect(ctx)
	if err != nil {
		return sinks.Identity{}, err
	}
	id := sinks.Identity{Location: s.location()}
	if id.ID, err = s.relationID(ctx, conn); err != nil {
		return sinks.Identity{}, err
	}
	if id.ID == "" {
		// Refuse before creating a new table where the old one should be.
		if err := sinks.CheckRecorded(info, id, kind); err != nil {
			return sinks.Identity{}, err
		}
		if s.opts.CreateTable && info.Schema != nil {
			if err := s.checkTable(ctx, conn, info.Schema); err != nil {
				return sinks.Identity{}, err
			}
			if id.ID, err = s.relationID(ctx, conn); err != nil {
				return sinks.Identity{}, err
			}
		}
	}
	if err := sinks.CheckRecorded(info, id, kind); err != nil {
		return sinks.Identity{}, err
	}
	if !info.Force && info.Mode != sinks.Complete {
		if err := s.checkProgress(ctx, conn, info); err != nil {
			return sinks.Identity{}, err
		}
	}
	// Record the checkpoint (batch -1: none committed yet) and take it
	// from any older query that had it, whose record would otherwise
	// refuse this query's restarts.
	_, err = conn.Exec(ctx, `INSERT INTO `+s.progress.Sanitize()+` (query_id, table_name, batch_id, checkpoint) VALUES ($1, $2, -1, $3)
		ON CONFLICT (query_id, table_name) DO UPDATE SET checkpoint = EXCLUDED.checkpoint`, info.QueryID, s.tableName(), info.Checkpoint)
	if err == nil {
		_, err = conn.Exec(ctx, `UPDATE `+s.progress.Sanitize()+` SET checkpoint = NULL WHERE table_name = $1 AND checkpoint = $2 AND query_id <> $3`,
			s.tableName(), info.Checkpoint, info.QueryID)
	}
	if err != nil {
		return sinks.Identity{}, fmt.Errorf("record the query in %s: %w", s.progress.Sanitize(), s.redact(err))
	}
	return id, nil
}

// relationID returns the table's OID as text, "" when it does not exist.
func (s *Sink) relationID(ctx context.Context, conn *pgx.Conn) (string, error) {
	var oid *uint32
	if err := conn.QueryRow(ctx, `SELECT to_regclass($1)::oid`, s.table.Sanitize()).Scan(&oid); err != nil {
		return "", fmt.Errorf("look up table %s: %w", s.tableName(), s.redact(err))
	}
	if oid == nil {
		return "", nil
	}
	return fmt.Sprint(*oid), nil
}

// checkProgress compares the progress table with the checkpoint (see Bind).
func (s *Sink) checkProgress(ctx context.Context, conn *pgx.Conn, info sinks.BindInfo) error {
	last, err := s.lastBatch(ctx, conn, info.QueryID)
	if err != nil {
		return fmt.Errorf("read %s: %w", s.progress.Sanitize(), s.redact(err))
	}
	if last >= 0 && last < info.LastCommitted {
		return fmt.Errorf("%s holds query %s's batches only up to %d, but checkpoint %s has committed batches up to %d: "+
			"the database was restored to an older state, and batches %d..%d would be missing from the table. Restore "+
			"the database to its latest state; or set IgnoreSinkMismatch to continue, accepting the loss: %w",
			s.progress.Sanitize(), info.QueryID, last, info.Checkpoint, info.LastCommitted, last+1, info.LastCommitted, sinks.ErrSinkMismatch)
	}
	if last >= 0 || info.Mode != sinks.Append {
		return nil
	}
	var other string
	var otherLast int64
	err = conn.QueryRow(ctx, `SELECT query_id, batch_id FROM `+s.progress.Sanitize()+`
		WHERE table_name = $1 AND checkpoint = $2 AND query_id <> $3 AND batch_id >= 0 LIMIT 1`,
		s.tableName(), info.Checkpoint, info.QueryID).Scan(&other, &otherLast)
	if err == pgx.ErrNoRows {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", s.progress.Sanitize(), s.redact(err))
	}
	return fmt.Errorf("table %s already holds the output of query %s (batches up to %d), written with checkpoint %s, "+
		"which now belongs to a new query %s: the checkpoint was deleted and recreated, and the new query would append "+
		"its sources' data to the table again (duplicates). Restore the checkpoint from a backup; or, to start over, "+
		"empty the table too; or, if the new query's output is meant to go beside the old one, set IgnoreSinkMismatch: %w",
		s.tableName(), other, otherLast, info.Checkpoint, info.QueryID, sinks.ErrSinkMismatch)
}
