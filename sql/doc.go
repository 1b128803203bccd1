// Package sql is Millrace's Spark SQL front end. It parses Spark SQL
// expression text (what Spark's expr and selectExpr take) into plan
// expressions, ParseExpr, and queries into an AST, ParseQuery:
//
//	SELECT [DISTINCT] item, … FROM view-or-(query) [[AS] alias]
//	  [WHERE e] [GROUP BY e, …] [HAVING e]
//	[UNION ALL …]
//
// where an item is * or an expression with an optional alias. The AST
// (Select, Union, Table, Subquery) keeps the byte offset of its parts, so
// that the planner (millrace.Session.SQL, which maps it onto the builder
// API) positions its errors with ErrorAt and suggests names with Suggest.
// Joins, ORDER BY, LIMIT, WITH, UNION without ALL and DDL are refused at
// their position; DDL and INSERT INTO are to come (issue 13).
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
// with a string literal pattern (a computed one is refused; NULL gives
// NULL). The escape is \ by default, as in Spark; RLIKE patterns are Go
// RE2 syntax, which lacks Java's backreferences, lookaround and possessive
// quantifiers. An invalid pattern is an error at its position.
//
// Syntax that Spark accepts but plan cannot express yet (LIKE ANY/ALL,
// string functions …) parses as far as needed to
// name it, and is refused with an Error at its position; nothing is
// silently approximated, except that Spark's decimal literals (1.5) become
// doubles, plan having no decimal type.
package sql
