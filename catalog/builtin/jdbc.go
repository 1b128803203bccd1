package builtin

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/catalog"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sinks/postgres"
	"github.com/millrace/millrace/sources"
)

// jdbcTable is a PostgreSQL table written by the sinks/postgres sink:
// Spark's jdbc format for the one database Millrace has a driver for.
// Spark's JDBC source is batch only and its streaming writes go through
// foreachBatch; here INSERT INTO writes the table exactly once.
type jdbcTable struct {
	name, connString, table string
	columns                 *arrow.Schema
	opts                    postgres.Options
}

func openJDBC(d catalog.Decl) (catalog.Table, error) {
	if d.Location != "" {
		return nil, &catalog.OptionError{Key: "location", Msg: "jdbc tables take no LOCATION: OPTIONS (url 'jdbc:postgresql://host/db', dbtable '…')"}
	}
	o := catalog.NewOptions(d)
	raw, err := o.Required("url", "jdbc:postgresql://host:port/database")
	if err != nil {
		return nil, err
	}
	t := &jdbcTable{name: d.Name, columns: d.Columns}
	if t.table, err = o.Required("dbtable", "the table to write, name or schema.name"); err != nil {
		return nil, err
	}
	user, _ := o.String("user")
	password, _ := o.String("password")
	if t.connString, err = pgConnString(raw, user, password); err != nil {
		return nil, &catalog.OptionError{Key: "url", Msg: err.Error()}
	}
	if keys, ok := o.String("keyColumns"); ok {
		for _, k := range strings.Split(keys, ",") {
			if k = strings.TrimSpace(k); k != "" {
				t.opts.KeyColumns = append(t.opts.KeyColumns, k)
			}
		}
	}
	n, err := o.Int("batchsize")
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, &catalog.OptionError{Key: "batchsize", Msg: fmt.Sprintf("option batchsize: %d is negative", n)}
	}
	t.opts.BatchSize = int(n)
	// Spark's JDBC writer creates a missing table; so does INSERT INTO.
	t.opts.CreateTable = true
	if b, ok, err := o.Bool("createTableIfMissing"); err != nil {
		return nil, err
	} else if ok {
		t.opts.CreateTable = b
	}
	if err := o.Unknown(); err != nil {
		return nil, err
	}
	if _, err := postgres.New(t.connString, t.table, t.opts); err != nil {
		return nil, &catalog.OptionError{Key: "url", Msg: err.Error()}
	}
	return t, nil
}

// pgConnString turns a JDBC URL (jdbc:postgresql://…) or a postgres://
// URL into pgx's, with the user and password options in it. Its errors
// never hold the URL (it may carry a password).
func pgConnString(raw, user, password string) (string, error) {
	s := strings.TrimPrefix(raw, "jdbc:")
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "postgresql" && u.Scheme != "postgres") {
		return "", errors.New("option url: want jdbc:postgresql://host[:port]/database (PostgreSQL is the one JDBC database Millrace writes)")
	}
	if user != "" || password != "" {
		if user == "" && u.User != nil {
			user = u.User.Username()
		}
		if password != "" {
			u.User = url.UserPassword(user, password)
		} else if p, ok := u.User.Password(); ok { // nil User: no password
			u.User = url.UserPassword(user, p)
		} else {
			u.User = url.User(user)
		}
	}
	return u.String(), nil
}

// Schema is the declared columns, nil without them (the first INSERT INTO
// creates the table from its query when it does not exist).
func (t *jdbcTable) Schema() (*arrow.Schema, error) { return t.columns, nil }

func (t *jdbcTable) NewSource() (sources.Source, error) {
	return nil, fmt.Errorf("jdbc table %s can be written (INSERT INTO), not read as a stream (Spark's JDBC source is batch only)", t.name)
}

func (t *jdbcTable) NewSink() (sinks.Sink, error) {
	return postgres.New(t.connString, t.table, t.opts)
}

// CheckMode: update upserts on the keyColumns option (a Millrace
// extension), so it needs one.
func (t *jdbcTable) CheckMode(m sinks.OutputMode) error {
	if m == sinks.Update && len(t.opts.KeyColumns) == 0 {
		return fmt.Errorf("jdbc table %s: output mode update upserts on key columns: declare them with OPTIONS (keyColumns 'a,b')", t.name)
	}
	return nil
}
