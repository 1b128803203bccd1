package millrace

// Spark's JSON functions for the Go API.

// GetJSONObject is the value at path ($.a.b, $.a[0], $['a'], $.a[*]) of a
// JSON document, as a string (Spark's get_json_object).
func GetJSONObject(c Column, path string) Column { return call("get_json_object", c, path) }

// FromJSON is Spark's from_json(c, schema) as a column: a struct of the
// fields of the JSON object in c, schema a DDL string ('a INT, b STRING';
// INT, BIGINT, DOUBLE, BOOLEAN and STRING fields), in Spark's PERMISSIVE
// mode (a value that does not fit is null; a malformed document gives a
// struct of nulls). Stream.FromJSON decodes a column into top-level
// columns instead, with more types and dead-lettering of bad records.
func FromJSON(c Column, schema string) Column { return call("from_json", c, schema) }

// JSONArrayLength is the number of elements of a JSON array, null when c
// is not one (Spark's json_array_length).
func JSONArrayLength(c Column) Column { return call("json_array_length", c) }

// JSONObjectKeys is the keys of a JSON object as an array of strings, null
// when c is not one (Spark's json_object_keys).
func JSONObjectKeys(c Column) Column { return call("json_object_keys", c) }
