package millrace

// Conditional functions of the library SQL shares (package functions).
// The branches meet at Spark's wider type, a string where one is a string.

// Coalesce is the first non-null argument of each row.
func Coalesce(cols ...any) Column { return call("coalesce", cols...) }

// IfNull is a where it is not null, else b (Spark's ifnull and nvl).
func IfNull(a, b any) Column { return call("ifnull", a, b) }

// Nvl2 is b where a is not null, else c.
func Nvl2(a, b, c any) Column { return call("nvl2", a, b, c) }

// NullIf is null where a equals b, else a.
func NullIf(a, b any) Column { return call("nullif", a, b) }

// If is a where cond is true, b where it is false or null (Spark's if;
// When … Otherwise is its CASE form).
func If(cond Column, a, b any) Column { return call("if", cond, a, b) }

// NaNvl is a unless it is NaN, else b.
func NaNvl(a, b any) Column { return call("nanvl", a, b) }
