package sql

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Statement is one parsed statement of a script: a *QueryStatement, a
// *CreateTable, a *CreateView, a *DropTable, an *Insert, a *Set, an
// *Explain, a *Describe or a *ShowTables.
type Statement interface {
	// Pos is the byte offset of the statement's first token in the text.
	Pos() int
	stmt()
}

// QueryStatement is a query standing as a statement (its results are the
// statement's output).
type QueryStatement struct{ Query Query }

// CreateTable declares a table that queries read as a stream and INSERT
// INTO writes as a sink:
//
//	CREATE [OR REPLACE] TABLE [IF NOT EXISTS] name [(col TYPE [NOT NULL] [COMMENT '…'], …)]
//	  USING format [OPTIONS (key 'value', …)] [LOCATION 'path']
//	  [PARTITIONED BY (col, …)] [COMMENT '…']
//
// and Spark's session-scoped form of the same, CREATE [OR REPLACE]
// TEMP[ORARY] VIEW name [(cols)] USING format OPTIONS (…), with Temporary
// set.
type CreateTable struct {
	Start       int
	Name        string
	NameAt      int
	OrReplace   bool
	IfNotExists bool
	Temporary   bool // declared as a TEMPORARY VIEW … USING
	// Columns is nil without a column list.
	Columns   []ColumnDef
	ColumnsAt int // byte offset of the column list's '(' (or of the name without one)
	Format    string
	FormatAt  int
	Options   []Option
	// Location is LOCATION 'path', "" without it; LocationAt its offset.
	Location    string
	LocationAt  int
	PartitionBy []string
}

// ColumnDef is one column of a CREATE TABLE column list.
type ColumnDef struct {
	Name    string
	Type    arrow.DataType
	NotNull bool
	At      int
}

// Option is key 'value' (or key = 'value') of an OPTIONS list. Keys are
// dotted names (kafka.bootstrap.servers) or strings; values strings,
// numbers or booleans, kept as their text.
type Option struct {
	Key, Value string
	At         int // byte offset of the key
	ValueAt    int
}

// CreateView is CREATE [OR REPLACE] TEMP[ORARY] VIEW name AS query.
type CreateView struct {
	Start     int
	Name      string
	NameAt    int
	OrReplace bool
	Query     Query
}

// DropTable is DROP TABLE|VIEW [IF EXISTS] name.
type DropTable struct {
	Start    int
	Name     string
	NameAt   int
	IfExists bool
	View     bool
}

// Insert is INSERT INTO [TABLE] name query: a streaming query writing to
// the table's sink.
type Insert struct {
	Start   int
	Table   string
	TableAt int
	Query   Query
}

// Set is SET key = value (Value set), SET key (show one setting) or SET
// alone (list them). The value is the text up to the end of the
// statement, without surrounding quotes.
type Set struct {
	Start    int
	Key      string
	Value    string
	HasValue bool
}

// Explain is EXPLAIN [EXTENDED|FORMATTED] statement, of a query or an
// INSERT INTO.
type Explain struct {
	Start    int
	Extended bool
	Stmt     Statement
}

// Describe is DESCRIBE [TABLE] name: the columns of a table or view.
type Describe struct {
	Start  int
	Name   string
	NameAt int
}

// ShowTables is SHOW TABLES: the session's tables and views.
type ShowTables struct{ Start int }

func (s *Describe) Pos() int       { return s.Start }
func (s *ShowTables) Pos() int     { return s.Start }
func (*Describe) stmt()            {}
func (*ShowTables) stmt()          {}
func (s *QueryStatement) Pos() int { return s.Query.Pos() }
func (s *CreateTable) Pos() int    { return s.Start }
func (s *CreateView) Pos() int     { return s.Start }
func (s *DropTable) Pos() int      { return s.Start }
func (s *Insert) Pos() int         { return s.Start }
func (s *Set) Pos() int            { return s.Start }
func (s *Explain) Pos() int        { return s.Start }
func (*QueryStatement) stmt()      {}
func (*CreateTable) stmt()         {}
func (*CreateView) stmt()          {}
func (*DropTable) stmt()           {}
func (*Insert) stmt()              {}
func (*Set) stmt()                 {}
func (*Explain) stmt()             {}

// ParseStatements parses a script: statements separated by ';' (an empty
// statement, as in ";;", is skipped). The whole script is parsed before
// anything runs, so that a syntax error in the last statement stops the
// first one from starting. Errors are *Error, positioned in text.
func ParseStatements(text string) ([]Statement, error) {
	toks, err := lex(text)
	if err != nil {
		return nil, err
	}
	p := &parser{text: text, toks: toks}
	var out []Statement
	for {
		for p.acceptOp(";") {
		}
		if p.peek().kind == tokEOF {
			return out, nil
		}
		s, err := p.statement()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
		if t := p.peek(); t.kind != tokEOF && !t.isOp(";") {
			if _, ok := s.(*QueryStatement); ok {
				return nil, p.unexpectedInQuery(t)
			}
			return nil, p.errAt(t, "expected ';' or the end of the statement, found %s", t.describe())
		}
	}
}

// ParseStatement parses exactly one statement, with an optional final ';'.
func ParseStatement(text string) (Statement, error) {
	ss, err := ParseStatements(text)
	if err != nil {
		return nil, err
	}
	switch len(ss) {
	case 0:
		return nil, errorAt(text, len(text), "empty statement")
	case 1:
		return ss[0], nil
	}
	return nil, errorAt(text, ss[1].Pos(), "one statement expected, found more (separate statements are run one by one)")
}

// statement parses one statement at the parser's position.
func (p *parser) statement() (Statement, error) {
	t := p.peek()
	switch {
	case t.isWord("SELECT") || t.isWord("WITH") || t.isOp("("):
		q, err := p.query()
		if err != nil {
			return nil, err
		}
		return &QueryStatement{Query: q}, nil
	case t.isWord("CREATE"):
		return p.create()
	case t.isWord("DROP"):
		return p.drop()
	case t.isWord("INSERT"):
		return p.insert()
	case t.isWord("SET"):
		return p.set()
	case t.isWord("EXPLAIN"):
		p.next()
		e := &Explain{Start: t.pos}
		if u := p.peek(); u.isWord("EXTENDED") || u.isWord("FORMATTED") {
			p.next()
			e.Extended = true
		} else if u.isWord("CODEGEN") || u.isWord("COST") {
			return nil, p.errAt(u, "EXPLAIN %s is not supported (EXPLAIN and EXPLAIN EXTENDED are)", strings.ToUpper(u.text))
		}
		u := p.peek()
		if !u.isWord("SELECT") && !u.isWord("WITH") && !u.isOp("(") && !u.isWord("INSERT") {
			return nil, p.errAt(u, "EXPLAIN takes a query or an INSERT INTO, found %s", u.describe())
		}
		s, err := p.statement()
		if err != nil {
			return nil, err
		}
		e.Stmt = s
		return e, nil
	case t.isWord("DESCRIBE") || t.isWord("DESC"):
		p.next()
		p.acceptWord("TABLE")
		if u := p.peek(); u.isWord("EXTENDED") || u.isWord("FORMATTED") {
			p.next()
		}
		name, at, err := p.name("table")
		if err != nil {
			return nil, err
		}
		return &Describe{Start: t.pos, Name: name, NameAt: at}, nil
	case t.isWord("SHOW"):
		p.next()
		if u := p.peek(); !u.isWord("TABLES") && !u.isWord("VIEWS") {
			return nil, p.errAt(u, "SHOW %s is not supported (SHOW TABLES is)", u.text)
		}
		p.next()
		return &ShowTables{Start: t.pos}, nil
	case t.isWord("FROM"):
		return nil, p.errAt(t, "FROM-first queries are not supported; write SELECT … FROM")
	case t.isWord("ALTER") || t.isWord("UPDATE") || t.isWord("DELETE") || t.isWord("MERGE") ||
		t.isWord("TRUNCATE") || t.isWord("USE"):
		return nil, p.errAt(t, "%s is not supported; statements are SELECT, CREATE TABLE, CREATE TEMPORARY VIEW, DROP, INSERT INTO, SET, EXPLAIN, DESCRIBE and SHOW TABLES", strings.ToUpper(t.text))
	case t.kind == tokEOF:
		return nil, p.errAt(t, "unexpected end of input, expected a statement")
	}
	return nil, p.errAt(t, "expected a statement (SELECT, CREATE, DROP, INSERT, SET, EXPLAIN), found %s", t.describe())
}

// name parses a table or view name: one identifier, plain or backquoted.
func (p *parser) name(what string) (string, int, error) {
	t := p.peek()
	if t.kind != tokWord && t.kind != tokQuoted {
		if t.kind == tokEOF {
			return "", 0, p.errAt(t, "unexpected end of input, expected a %s name", what)
		}
		return "", 0, p.errAt(t, "expected a %s name, found %s", what, t.describe())
	}
	p.next()
	if d := p.peek(); d.isOp(".") {
		return "", 0, p.errAt(d, "qualified names (database.%s) are not supported", what)
	}
	return t.text, t.pos, nil
}

func (p *parser) create() (Statement, error) {
	start := p.next().pos
	orReplace := false
	if p.acceptWord("OR") {
		if err := p.expectWord("REPLACE"); err != nil {
			return nil, err
		}
		orReplace = true
	}
	temp := p.acceptWord("TEMP") || p.acceptWord("TEMPORARY")
	if p.acceptWord("GLOBAL") {
		return nil, p.errAt(p.toks[p.i-1], "GLOBAL TEMPORARY views are not supported; views live in the session")
	}
	t := p.peek()
	switch {
	case t.isWord("VIEW"):
		p.next()
		if !temp {
			return nil, p.errAt(t, "only TEMPORARY views are supported (views live in the session): write CREATE TEMPORARY VIEW")
		}
		if p.peek().isWord("IF") {
			return nil, p.errAt(p.peek(), "IF NOT EXISTS is not supported for temporary views; use CREATE OR REPLACE TEMPORARY VIEW")
		}
		name, at, err := p.name("view")
		if err != nil {
			return nil, err
		}
		if u := p.peek(); u.isOp("(") || u.isWord("USING") {
			ct := &CreateTable{Start: start, Name: name, NameAt: at, OrReplace: orReplace, Temporary: true}
			return ct, p.tableSpec(ct)
		}
		if err := p.expectWord("AS"); err != nil {
			return nil, err
		}
		if u := p.peek(); !u.isWord("SELECT") && !u.isWord("WITH") && !u.isOp("(") {
			return nil, p.errAt(u, "expected a query after AS, found %s", u.describe())
		}
		q, err := p.query()
		if err != nil {
			return nil, err
		}
		return &CreateView{Start: start, Name: name, NameAt: at, OrReplace: orReplace, Query: q}, nil
	case t.isWord("TABLE"):
		p.next()
		if temp {
			return nil, p.errAt(t, "CREATE TEMPORARY TABLE is not supported: tables live in the session already; write CREATE TABLE")
		}
		ct := &CreateTable{Start: start, OrReplace: orReplace}
		if p.peek().isWord("IF") {
			p.next()
			if err := p.expectWord("NOT"); err != nil {
				return nil, err
			}
			if err := p.expectWord("EXISTS"); err != nil {
				return nil, err
			}
			ct.IfNotExists = true
			if orReplace {
				return nil, p.errAt(t, "CREATE OR REPLACE TABLE IF NOT EXISTS: choose one of OR REPLACE and IF NOT EXISTS")
			}
		}
		name, at, err := p.name("table")
		if err != nil {
			return nil, err
		}
		ct.Name, ct.NameAt = name, at
		return ct, p.tableSpec(ct)
	case t.isWord("STREAMING") || t.isWord("MATERIALIZED"):
		return nil, p.errAt(t, "CREATE %s … is not supported; declare the sink with CREATE TABLE … USING and fill it with INSERT INTO", strings.ToUpper(t.text))
	case t.kind == tokEOF:
		return nil, p.errAt(t, "unexpected end of input, expected TABLE or TEMPORARY VIEW")
	}
	return nil, p.errAt(t, "expected TABLE or TEMPORARY VIEW after CREATE, found %s", t.describe())
}

// tableSpec parses what follows the name of CREATE TABLE: the optional
// column list and the clauses, in any order, as Spark takes them.
func (p *parser) tableSpec(ct *CreateTable) error {
	ct.ColumnsAt = ct.NameAt
	if t := p.peek(); t.isOp("(") {
		ct.ColumnsAt = t.pos
		p.next()
		cols, err := p.columnDefs()
		if err != nil {
			return err
		}
		ct.Columns = cols
	}
	seen := map[string]bool{}
	for {
		t := p.peek()
		kw := strings.ToUpper(t.text)
		if t.kind != tokWord {
			kw = ""
		}
		switch kw {
		case "USING", "OPTIONS", "LOCATION", "PARTITIONED", "COMMENT", "TBLPROPERTIES", "CLUSTERED", "AS":
			if seen[kw] {
				return p.errAt(t, "%s is given twice", kw)
			}
			seen[kw] = true
		}
		switch kw {
		case "USING":
			p.next()
			f := p.peek()
			if f.kind != tokWord && f.kind != tokQuoted {
				return p.errAt(f, "expected a format name after USING (kafka, kinesis, delta, parquet, json, csv, jdbc, rate, socket), found %s", f.describe())
			}
			p.next()
			ct.Format, ct.FormatAt = strings.ToLower(f.text), f.pos
		case "OPTIONS":
			p.next()
			opts, err := p.options()
			if err != nil {
				return err
			}
			ct.Options = opts
		case "LOCATION":
			p.next()
			l := p.next()
			if l.kind != tokString {
				return p.errAt(l, "expected a path string after LOCATION, found %s", l.describe())
			}
			ct.Location, ct.LocationAt = l.text, l.pos
		case "PARTITIONED":
			p.next()
			if err := p.expectWord("BY"); err != nil {
				return err
			}
			if err := p.expectOp("("); err != nil {
				return err
			}
			for {
				n, _, err := p.name("column")
				if err != nil {
					return err
				}
				ct.PartitionBy = append(ct.PartitionBy, n)
				if !p.acceptOp(",") {
					break
				}
			}
			if err := p.expectOp(")"); err != nil {
				return err
			}
		case "COMMENT":
			p.next()
			if c := p.next(); c.kind != tokString {
				return p.errAt(c, "expected a string after COMMENT, found %s", c.describe())
			}
		case "TBLPROPERTIES", "CLUSTERED":
			return p.errAt(t, "%s is not supported", kw)
		case "AS":
			return p.errAt(t, "CREATE TABLE … AS SELECT is not supported: declare the table, then INSERT INTO it")
		default:
			if ct.Format == "" {
				if t.kind == tokEOF || t.isOp(";") {
					return p.errAt(t, "expected USING format: a table names its format (kafka, kinesis, delta, parquet, json, csv, jdbc, rate, socket)")
				}
				return p.errAt(t, "expected USING, OPTIONS or LOCATION, found %s", t.describe())
			}
			return nil
		}
	}
}

func (p *parser) columnDefs() ([]ColumnDef, error) {
	var cols []ColumnDef
	for {
		t := p.peek()
		if t.kind != tokWord && t.kind != tokQuoted {
			return nil, p.errAt(t, "expected a column name, found %s", t.describe())
		}
		p.next()
		typ, err := p.columnType()
		if err != nil {
			return nil, err
		}
		c := ColumnDef{Name: t.text, Type: typ, At: t.pos}
		if p.peek().isWord("NOT") {
			p.next()
			if err := p.expectWord("NULL"); err != nil {
				return nil, err
			}
			c.NotNull = true
		}
		if p.acceptWord("COMMENT") {
			if s := p.next(); s.kind != tokString {
				return nil, p.errAt(s, "expected a string after COMMENT, found %s", s.describe())
			}
		}
		for _, o := range cols {
			if strings.EqualFold(o.Name, c.Name) {
				return nil, p.errAt(t, "column %q is declared twice", c.Name)
			}
		}
		cols = append(cols, c)
		if p.acceptOp(",") {
			continue
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return cols, nil
	}
}

// columnType is a Spark type name of a column declaration. Tables hold a
// few types that expressions cannot make yet (DATE, FLOAT, BINARY); the
// rest are the types of CAST.
func (p *parser) columnType() (arrow.DataType, error) {
	t := p.peek()
	switch {
	case t.isWord("DATE"):
		p.next()
		return arrow.FixedWidthTypes.Date32, nil
	case t.isWord("FLOAT") || t.isWord("REAL"):
		p.next()
		return arrow.PrimitiveTypes.Float32, nil
	case t.isWord("BINARY"):
		p.next()
		return arrow.BinaryTypes.Binary, nil
	case t.kind == tokEOF || t.isOp(",") || t.isOp(")"):
		return nil, p.errAt(t, "expected a type after the column name, found %s", t.describe())
	}
	return p.dataType()
}

// options parses ( key [=] value, … ).
func (p *parser) options() ([]Option, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	var out []Option
	if p.acceptOp(")") {
		return out, nil
	}
	for {
		k := p.peek()
		var key string
		switch k.kind {
		case tokString:
			p.next()
			key = k.text
		case tokWord, tokQuoted:
			// a dotted key: kafka.bootstrap.servers
			p.next()
			key = k.text
			for p.peek().isOp(".") {
				p.next()
				w := p.next()
				if w.kind != tokWord && w.kind != tokQuoted {
					return nil, p.errAt(w, "expected the rest of the option key after '.', found %s", w.describe())
				}
				key += "." + w.text
			}
		default:
			return nil, p.errAt(k, "expected an option key, found %s", k.describe())
		}
		p.acceptOp("=")
		v := p.peek()
		neg := ""
		if v.isOp("-") {
			p.next()
			neg = "-"
			v = p.peek()
		}
		switch {
		case v.kind == tokString || v.kind == tokNumber:
		case v.kind == tokWord && neg == "" && (v.isWord("TRUE") || v.isWord("FALSE")):
		default:
			return nil, p.errAt(v, "expected the value of option %q (a string, number or boolean), found %s", key, v.describe())
		}
		p.next()
		for _, o := range out {
			if strings.EqualFold(o.Key, key) {
				return nil, p.errAt(k, "option %q is given twice", key)
			}
		}
		out = append(out, Option{Key: key, Value: neg + v.text, At: k.pos, ValueAt: v.pos})
		if p.acceptOp(",") {
			continue
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return out, nil
	}
}

func (p *parser) drop() (Statement, error) {
	start := p.next().pos
	d := &DropTable{Start: start}
	t := p.peek()
	switch {
	case t.isWord("TABLE"):
	case t.isWord("VIEW"):
		d.View = true
	default:
		return nil, p.errAt(t, "expected TABLE or VIEW after DROP, found %s", t.describe())
	}
	p.next()
	if p.peek().isWord("IF") {
		p.next()
		if err := p.expectWord("EXISTS"); err != nil {
			return nil, err
		}
		d.IfExists = true
	}
	name, at, err := p.name("table")
	if err != nil {
		return nil, err
	}
	d.Name, d.NameAt = name, at
	if p.peek().isWord("PURGE") {
		p.next()
	}
	return d, nil
}

func (p *parser) insert() (Statement, error) {
	start := p.next().pos
	t := p.peek()
	if t.isWord("OVERWRITE") {
		return nil, p.errAt(t, "INSERT OVERWRITE is not supported for streams: use INSERT INTO (with output mode complete to rewrite the table each trigger)")
	}
	if err := p.expectWord("INTO"); err != nil {
		return nil, err
	}
	p.acceptWord("TABLE")
	name, at, err := p.name("table")
	if err != nil {
		return nil, err
	}
	if u := p.peek(); u.isOp("(") {
		return nil, p.errAt(u, "INSERT INTO with a column list is not supported yet: select the table's columns in its order")
	} else if u.isWord("VALUES") {
		return nil, p.errAt(u, "INSERT INTO … VALUES is not supported: a stream is written by a query")
	} else if u.isWord("BY") || u.isWord("PARTITION") || u.isWord("REPLACE") {
		return nil, p.errAt(u, "INSERT INTO … %s is not supported", strings.ToUpper(u.text))
	} else if !u.isWord("SELECT") && !u.isWord("WITH") && !u.isOp("(") {
		return nil, p.errAt(u, "expected a query after INSERT INTO %s, found %s", name, u.describe())
	}
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	return &Insert{Start: start, Table: name, TableAt: at, Query: q}, nil
}

// set parses SET [key [= value]]. The key and the value are taken as text
// (keys are dotted names, values anything up to ';'), as Spark does.
func (p *parser) set() (Statement, error) {
	start := p.next()
	s := &Set{Start: start.pos}
	if t := p.peek(); t.kind == tokEOF || t.isOp(";") {
		return s, nil
	}
	first := p.peek()
	if first.isOp("-") || first.isOp("=") {
		return nil, p.errAt(first, "expected a setting name after SET, found %s", first.describe())
	}
	// The key runs to '=' or to the end of the statement.
	keyEnd := -1
	for t := p.peek(); t.kind != tokEOF && !t.isOp(";") && !t.isOp("="); t = p.peek() {
		p.next()
		keyEnd = p.peek().pos
	}
	if first.kind == tokQuoted && p.toks[p.i-1].pos == first.pos {
		s.Key = first.text
	} else {
		s.Key = strings.TrimSpace(p.text[first.pos:keyEnd])
	}
	if strings.ContainsAny(s.Key, " \t\n") {
		return nil, p.errAt(first, "a setting name has no spaces: SET key = value")
	}
	if !p.acceptOp("=") {
		return s, nil
	}
	s.HasValue = true
	v := p.peek()
	if v.kind == tokString && (p.peekAt(1).kind == tokEOF || p.peekAt(1).isOp(";")) {
		p.next()
		s.Value = v.text
		return s, nil
	}
	end := v.pos
	for t := p.peek(); t.kind != tokEOF && !t.isOp(";"); t = p.peek() {
		p.next()
		end = p.peek().pos
	}
	s.Value = strings.TrimSpace(p.text[v.pos:end])
	return s, nil
}
