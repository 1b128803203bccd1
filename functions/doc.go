// Package functions is the library of scalar functions that the Go API
// (millrace.Lower, millrace.CallFunction …) and SQL (lower(s)) share: one
// registry of Spark's functions by name, each bound once per query to its
// argument types and then run over whole Arrow arrays.
//
// A function is a Func: Bind checks the argument types (and the values of
// literal arguments, such as a regular expression, which it compiles once)
// and returns a Bound, its result type and a vectorized Eval. plan.Call
// names a function; plan.TypeOf binds it to type the expression, and exec
// binds it again to evaluate it. Nothing here knows about plans, operators
// or queries: the package sits beside kernels, below plan.
//
// Semantics are Spark's (non-ANSI mode, spark.sql.ansi.enabled=false): a
// null argument gives null unless the function says otherwise (coalesce,
// concat_ws, nvl …); arguments are implicitly cast as Spark casts them
// (a number where a string is wanted is formatted as Spark's CAST does).
// Each function is checked against Spark's results over the same inputs
// (testdata/cases/NAME.golden.json, recorded by testdata/record_spark.py).
//
// # Dates, times, math and conditionals
//
// datetime.go (year … second), datetime_funcs.go (to_timestamp, to_date,
// from_unixtime, unix_timestamp, date_format, date_trunc, trunc, date_add,
// date_sub, datediff, current_date), datetime_extra.go (add_months,
// last_day, make_date, unix_*/timestamp_* conversions), datetime_zone.go
// (from_utc_timestamp, to_utc_timestamp) and datefmt.go (Spark's datetime
// patterns, compiled once per query) compute on int64 microseconds (UTC, the
// session time zone) and date32 days with integer calendar arithmetic, no
// time.Time per row. math_funcs.go, math_round.go, math_ops.go (round/bround
// round the decimal Spark makes of a double; floor/ceil give bigints;
// greatest/least/mod/pmod) and conditional.go (coalesce, ifnull/nvl, nvl2,
// if, nullif, nanvl) meet their arguments at Spark's wider type (coerce.go).
//
// Where Millrace departs from Spark on purpose (these cases are left out of
// the golden files):
//   - A datetime pattern, a date_trunc/trunc unit, a time zone and a round
//     scale must be literals: Spark also takes a column for a pattern, a
//     unit or a zone, which would mean compiling per row; Millrace refuses
//     it when the query is bound. Zone rules come from the system's tz
//     database (Spark's from the JVM's).
//   - Parsing with the zone-name letters G, z, V and O is refused (X, x and Z
//     offsets parse). Spark's INCONSISTENT_BEHAVIOR_CROSS_VERSION errors
//     (raised where Spark 2's parser would have read a string that the
//     current one does not) are not reproduced: such a string is null.
//   - CAST of a string to a timestamp does not read zone region names
//     ('… Europe/Paris') or a time without a date ('10:20:30', which Spark
//     puts on today's date): both are null.
//   - A parsed year has at most 9 digits and lies within ±290000 years.
//   - current_date() and unix_timestamp() read the clock once per batch.
//   - A date does not cast to a number (Spark's non-ANSI CAST gives null).
//
// # Strings, regular expressions, hashing and JSON
//
// Files by family: strings*.go (lengths, cuts, pads, trims, searches,
// concat, chr, elt, levenshtein, base64, parse_url, url_encode, overlay,
// soundex …), charset.go (encode, decode), format_string.go
// (format_string/printf), regexp.go
// (regexp_extract, regexp_replace, split), regexp_more.go
// (regexp_extract_all, regexp_count, regexp_substr, regexp_instr), like.go
// (like/ilike/rlike as functions, sharing kernels.Matcher with the
// operators), hash.go (hash and xxhash64 over kernels/sparkhash.go, md5,
// sha1, sha2, crc32), json.go (get_json_object, json_array_length,
// json_object_keys), fromjson.go (from_json); args.go holds the row-wise
// scaffolding (literal arguments are held once, not copied into every
// row).
//
// Where these functions deliberately differ from Spark (these cases are
// kept out of the golden files):
//
//   - Regular expressions are RE2 (Go's regexp), not Java's: no
//     backreferences, lookaround, possessive quantifiers or atomic groups
//     (a pattern using them is an error when the query is bound); \b, \w
//     and (?i) follow RE2.
//   - Matches are found as Java's Matcher.find finds them (an empty match
//     right after a match counts: regexp_replace('abc123', '[0-9]*', 'N')
//     is "NaNbNcNN"), except for a pattern with ^, \A, \b or \B, whose
//     matches are RE2's (no empty match right after a match).
//   - Positions count code points; Spark's regexp functions count UTF-16
//     units, so a character outside the BMP (an emoji) is one character
//     here and two in Spark's regexp_replace (its pos argument, an empty
//     pattern).
//   - regexp_extract with a group index the pattern lacks, and a
//     regexp_replace replacement Java would reject ('$$'), are errors when
//     the query is bound if pattern and index/replacement are literals;
//     Spark fails only when a row matches.
//   - parse_url parses with Go's net/url after refusing what Java's URI
//     refuses outright (spaces, "<>\^`{|}, bad % escapes); exotic URLs
//     that only one of the two parsers accepts may differ.
//   - format_string supports %s %d %x %o %f %e %b %c %% %n (flags, width,
//     precision, n$ and <); %g, %a, %h and the %t date conversions are
//     an error when the query is bound.
//   - from_json takes a schema of top-level INT, BIGINT, DOUBLE, BOOLEAN
//     and STRING fields only (no nested types, dates or options).
package functions
