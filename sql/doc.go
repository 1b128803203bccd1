// Package sql is Millrace's Spark SQL front end. Today it parses Spark SQL
// expression text (what Spark's expr and selectExpr take) into plan
// expressions: ParseExpr. Statements (SELECT, DDL, INSERT INTO) are to come
// (issue 13).
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
// Syntax that Spark accepts but plan cannot express yet (CASE, LIKE,
// string functions, struct field access …) parses as far as needed to
// name it, and is refused with an Error at its position; nothing is
// silently approximated, except that Spark's decimal literals (1.5) become
// doubles, plan having no decimal type.
package sql
