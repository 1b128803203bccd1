package lake

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Schema changes under a streaming source, as Spark's Delta source rules
// them (DeltaSource.checkReadIncompatibleSchemaChanges with
// SchemaUtils.isReadCompatible, forbidTightenNullability): the source reads
// every file with the schema it was opened with, so a metaData action in a
// streamed commit is fine when data written under that metadata's schema
// reads correctly with the source's schema:
//   - no column of the commit's schema is missing from the source's
//     (columns the source has and the commit lacks read as nulls);
//   - a column in both has the same name, the same type (recursively, with
//     the same rules for struct fields, list elements and map values) and
//     is nullable in the source if it is in the commit.
// Table creation (version 0), property changes and added columns before
// the source opened pass. A column added after the source opened fails the
// stream; a restart opens the source with the newer schema and passes the
// same commit. Unlike Spark, a change of partition columns also fails: a
// file's partition values would be read against the wrong columns.

// checkSourceSchema returns why the source, reading with schema read and
// partition columns parts, cannot read data written under md at version v
// of root, or nil. opened is the version the source's schema is from.
func checkSourceSchema(root string, read *arrow.Schema, parts []string, opened, v int64, md *Metadata) error {
	have, err := ParseSchemaString(md.SchemaString)
	if err != nil {
		return fmt.Errorf("lake: version %d of %s: %w", v, root, err)
	}
	if !sameColumns(parts, md.PartitionColumns) {
		return fmt.Errorf("%w: version %d of %s changes the partition columns from %v to %v; start a new query (new checkpoint) to read the table from there",
			ErrUnsupported, v, root, parts, md.PartitionColumns)
	}
	why := readCompatible(have.Fields(), read.Fields(), "")
	if why == "" {
		return nil
	}
	// A later schema the source could have opened with: restarting helps.
	if v > opened && readCompatible(read.Fields(), have.Fields(), "") == "" {
		return fmt.Errorf("%w: version %d of %s changes the schema (%s) after this source opened it at version %d; restart the query to read with the new schema",
			ErrUnsupported, v, root, why, opened)
	}
	return fmt.Errorf("%w: version %d of %s has a schema this source cannot read its data with (%s); start a new query (new checkpoint) or a startingVersion after it",
		ErrUnsupported, v, root, why)
}

// readCompatible returns "" if data of the fields have reads correctly as
// the fields read, else the first reason it does not.
func readCompatible(have, read []arrow.Field, prefix string) string {
	byName := map[string]arrow.Field{}
	for _, f := range read {
		byName[strings.ToLower(f.Name)] = f
	}
	for _, h := range have {
		r, ok := byName[strings.ToLower(h.Name)]
		switch {
		case !ok:
			return fmt.Sprintf("column %s%s is not in the source's schema", prefix, h.Name)
		case r.Name != h.Name:
			return fmt.Sprintf("column %s%s is %s%s in the source's schema", prefix, h.Name, prefix, r.Name)
		case h.Nullable && !r.Nullable:
			return fmt.Sprintf("column %s%s is nullable, the source's is not", prefix, h.Name)
		}
		if why := typeReadCompatible(h.Type, r.Type, prefix+h.Name); why != "" {
			return why
		}
	}
	return ""
}

func typeReadCompatible(have, read arrow.DataType, name string) string {
	switch h := have.(type) {
	case *arrow.StructType:
		if r, ok := read.(*arrow.StructType); ok {
			return readCompatible(h.Fields(), r.Fields(), name+".")
		}
	case *arrow.ListType:
		if r, ok := read.(*arrow.ListType); ok {
			if h.ElemField().Nullable && !r.ElemField().Nullable {
				return fmt.Sprintf("elements of %s may be null, the source's may not", name)
			}
			return typeReadCompatible(h.Elem(), r.Elem(), name+"[]")
		}
	case *arrow.MapType:
		if r, ok := read.(*arrow.MapType); ok {
			if h.ItemField().Nullable && !r.ItemField().Nullable {
				return fmt.Sprintf("values of %s may be null, the source's may not", name)
			}
			if why := typeReadCompatible(h.KeyType(), r.KeyType(), name+"[key]"); why != "" {
				return why
			}
			return typeReadCompatible(h.ItemType(), r.ItemType(), name+"[value]")
		}
	default:
		if arrow.TypeEqual(have, read) {
			return ""
		}
	}
	return fmt.Sprintf("column %s has type %s, the source's %s", name, have, read)
}

func sameColumns(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i], b[i]) {
			return false
		}
	}
	return true
}
