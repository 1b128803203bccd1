package millrace

// Spark's JSON functions for the Go API.

// GetJSONObject is the value at path ($.a.b, $.a[0], $['a'], $.a[*]) of a
// JSON document, as a string (Spark's get_json_object).
func GetJSONObject(c Column, path string) Column { return call("get_json_object", c, path) }
