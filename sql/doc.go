// Package sql is Millrace's Spark SQL front end. It parses Spark SQL
// expression text (what Spark's expr and selectExpr take) into plan
// expressions, ParseExpr, and queries into an AST, ParseQuery:
//
//	[WITH name AS (query), …]
//	SELECT [DISTINCT] item, … FROM from
//	  [WHERE e] [GROUP BY e, …] [HAVING e]
//	[UNION ALL …]
//	[ORDER BY e [ASC|DESC] [NULLS FIRST|LAST], …] [LIMIT n]
//
// where an item is *, t.* or an expression with an optional alias, and a
// from is a view name or (query) with an optional alias, joined to more:
//
//	from [INNER] JOIN from ON cond
//	from LEFT|RIGHT|FULL [OUTER] JOIN from ON cond
//	from [LEFT] SEMI JOIN from ON cond
//	from [LEFT] ANTI JOIN from ON cond
//	from … JOIN from USING (col, …)
//
// (sql/join.go, sql/order.go). The AST (Select, Union, With, Sorted,
// Table, Subquery, Join, Watermarked) keeps the byte offset of its parts
// and of every column reference (Select.Refs), so that the planner
// (millrace.Session.SQL, which maps it onto the builder API) positions its
// errors with ErrorAt — an unknown or ambiguous name at the name — and
// suggests names with Suggest. An inner
// join without ON or USING (CROSS JOIN, FROM a, b) is a cross join.
// NATURAL joins, OFFSET and UNION without ALL are refused at their
// position. An aggregate may be followed by FILTER (WHERE cond), planned
// as the aggregate of CASE WHEN cond THEN arg END (aggregates skip nulls);
// after first/last, which do not, FILTER is refused, as is OVER. ORDER BY and LIMIT parse anywhere Spark's grammar has them;
// the engine allows them, as Spark, over an aggregation in Complete mode.
//
// INTERVAL n UNIT [n UNIT …], INTERVAL 'n' UNIT and INTERVAL 'n unit' are
// literals of plan.IntervalType (a time.Duration), which a timestamp adds
// or subtracts (ts + INTERVAL 1 HOUR); months and years, which have no
// fixed length, are refused.
//
// Scripts (ParseStatements, ParseStatement; ddl.go) are statements
// separated by ';', parsed whole before anything runs:
//
//	SELECT …                                   a query (QueryStatement)
//	CREATE [OR REPLACE] TABLE [IF NOT EXISTS] name [(col TYPE [NOT NULL], …)]
//	  USING format [OPTIONS (key 'value', …)] [LOCATION 'path']
//	  [PARTITIONED BY (col, …)] [COMMENT '…']      (CreateTable)
//	CREATE [OR REPLACE] TEMP[ORARY] VIEW name [(cols)] USING format OPTIONS (…)
//	                                           the same, Spark's session form
//	CREATE [OR REPLACE] TEMP[ORARY] VIEW name AS query   (CreateView)
//	DROP TABLE|VIEW [IF EXISTS] name           (DropTable)
//	INSERT INTO [TABLE] name query             (Insert)
//	SET [key [= value]]                        (Set)
//	EXPLAIN [EXTENDED|FORMATTED] query-or-insert   (Explain)
//	DESCRIBE [TABLE] name                      (Describe)
//	SHOW TABLES                                (ShowTables)
//
// Column types are Spark's names: STRING, INT (INTEGER), BIGINT (LONG),
// DOUBLE, FLOAT, BOOLEAN, TIMESTAMP, DATE, BINARY. Option keys are dotted
// names or strings, values strings, numbers or booleans, with an optional
// '='. What a format makes of its options is package catalog's business;
// the parser checks only the syntax (and that no key is given twice).
//
// A FROM item may carry Spark's watermark clause (watermark.go), checked
// against Spark 4.2, before its alias:
//
//	FROM t WATERMARK ts DELAY OF INTERVAL 10 SECONDS [[AS] alias]
//	FROM t WATERMARK expr AS ts DELAY OF INTERVAL '10' SECOND
//
// (Watermarked; the delay is an INTERVAL or a '10 seconds' string). A
// computed event time needs a name, as in Spark, and becomes the first
// column of the relation. FROM STREAM name and FROM STREAM(name), Spark's
// ways to read a table as a stream, read the table (every read here is a
// stream).
//
// The parser is our own: a hand-written lexer and a precedence-climbing
// (Pratt) parser for Spark's expression grammar, chosen over the Go SQL
// parser libraries after trying them (docs/ARCHITECTURE.md, "SQL parser").
// It follows Spark's precedence, lowest first:
//
//	OR
//	AND
//	NOT
//	predicates: IS [NOT] NULL, [NOT] BETWEEN, [NOT] IN, [NOT] LIKE/RLIKE
//	comparison: = == <> != < <= > >= <=>
//	|  ^  &  (bitwise, not supported by plan)
//	+ - ||
//	* / % DIV
//	unary - + ~
//	postfix :: (cast), primary
//
// A dotted name is a struct field access (window.start, `window`.`end`:
// plan.GetField over the column), as Spark resolves it when no table
// qualifier matches; a name holding a dot is backquoted (`a.b`).
//
// CASE WHEN … THEN … [ELSE …] END is plan.Case; the simple form CASE e
// WHEN v THEN … compares e = v in each branch, as Spark builds it.
//
// [NOT] LIKE p [ESCAPE 'c'], ILIKE and RLIKE (or REGEXP) are plan.Like,
// with a string literal pattern (NULL gives NULL); with a computed
// pattern they are calls of the like, ilike and rlike functions. The
// escape is \ by default, as in Spark; RLIKE patterns are Go RE2 syntax,
// which lacks Java's backreferences, lookaround and possessive
// quantifiers. An invalid pattern is an error at its position.
//
// A call of a function of package functions is plan.Call; so are the
// SQL-standard forms TRIM([BOTH|LEADING|TRAILING] [chars] FROM s),
// SUBSTRING(s FROM pos [FOR len]) and POSITION(sub IN s)
// (functions_strings.go), as Spark maps them onto trim/ltrim/rtrim,
// substring and locate.
//
// Syntax that Spark accepts but plan cannot express yet (LIKE ANY/ALL,
// …) parses as far as needed to
// name it, and is refused with an Error at its position; nothing is
// silently approximated, except that Spark's decimal literals (1.5) become
// doubles, plan having no decimal type. Implicit casts are plan's (a
// string compared with a timestamp or a number is cast to its type, as
// non-ANSI Spark does: plan.ComparisonCast).
package sql
