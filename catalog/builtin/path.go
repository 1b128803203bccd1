package builtin

import (
	"github.com/millrace/millrace/catalog"
)

// path is the table's directory: LOCATION, or the path option as Spark
// also takes it.
func path(d catalog.Decl, o *catalog.Options) (string, error) {
	p, ok := o.String("path")
	switch {
	case ok && d.Location != "" && p != d.Location:
		return "", &catalog.OptionError{Key: "path", Msg: "both LOCATION and OPTIONS (path …) are given, with different paths: keep one"}
	case d.Location != "":
		return d.Location, nil
	case ok && p != "":
		return p, nil
	}
	return "", &catalog.OptionError{Key: "path", Missing: true, Msg: d.Format + " tables need a LOCATION 'path' (or OPTIONS (path '…'))"}
}
