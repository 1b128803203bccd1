// Package catalog turns the table declarations of SQL DDL (CREATE TABLE
// name (cols) USING format OPTIONS (…) LOCATION '…') into sources and
// sinks. A format is registered by name (Register); the built-in ones,
// kafka, kinesis, delta, parquet, json, csv, jdbc (PostgreSQL), rate and socket, are registered by package
// catalog/builtin, which the millrace command imports, so that a program
// using SQL without them pulls in none of their connectors (blank-import it
// to get them, as database/sql drivers are).
//
// A format validates a declaration when it is opened (Open): unknown and
// missing options, a column list the format does not take, are errors then,
// as *OptionError naming the option, so that the SQL front end points at it
// in the text. Nothing is contacted before a query reads or writes the
// table: each read gets a new source (NewSource), each INSERT INTO a new
// sink (NewSink).
package catalog
