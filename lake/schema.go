package lake

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// sparkField is one field of a Spark StructType as Delta serialises it in
// metaData.schemaString.
type sparkField struct {
	Name     string          `json:"name"`
	Type     json.RawMessage `json:"type"`
	Nullable bool            `json:"nullable"`
	Metadata map[string]any  `json:"metadata"`
}

type sparkComplex struct {
	Type              string          `json:"type"`
	Fields            []sparkField    `json:"fields,omitempty"`
	ElementType       json.RawMessage `json:"elementType,omitempty"`
	ContainsNull      *bool           `json:"containsNull,omitempty"`
	KeyType           json.RawMessage `json:"keyType,omitempty"`
	ValueType         json.RawMessage `json:"valueType,omitempty"`
	ValueContainsNull *bool           `json:"valueContainsNull,omitempty"`
}

// SchemaString returns the Spark schema JSON of an Arrow schema, the value
// of metaData.schemaString. Timestamps of any unit map to Spark timestamp
// (microseconds, UTC); timestamps without a time zone map to timestamp_ntz.
func SchemaString(s *arrow.Schema) (string, error) {
	st, err := sparkStruct(s.Fields())
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(st)
	return string(b), err
}

func sparkStruct(fields []arrow.Field) (*sparkComplex, error) {
	st := &sparkComplex{Type: "struct", Fields: []sparkField{}}
	for _, f := range fields {
		t, err := sparkType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", f.Name, err)
		}
		st.Fields = append(st.Fields, sparkField{Name: f.Name, Type: t, Nullable: f.Nullable, Metadata: map[string]any{}})
	}
	return st, nil
}

func sparkType(t arrow.DataType) (json.RawMessage, error) {
	prim := func(s string) (json.RawMessage, error) { return json.RawMessage(strconv.Quote(s)), nil }
	switch tt := t.(type) {
	case *arrow.Int8Type:
		return prim("byte")
	case *arrow.Int16Type:
		return prim("short")
	case *arrow.Int32Type:
		return prim("integer")
	case *arrow.Int64Type:
		return prim("long")
	case *arrow.Float32Type:
		return prim("float")
	case *arrow.Float64Type:
		return prim("double")
	case *arrow.StringType, *arrow.LargeStringType:
		return prim("string")
	case *arrow.BinaryType, *arrow.LargeBinaryType:
		return prim("binary")
	case *arrow.BooleanType:
		return prim("boolean")
	case *arrow.Date32Type:
		return prim("date")
	case *arrow.TimestampType:
		if tt.TimeZone == "" {
			return prim("timestamp_ntz")
		}
		return prim("timestamp")
	case *arrow.Decimal128Type:
		return prim(fmt.Sprintf("decimal(%d,%d)", tt.Precision, tt.Scale))
	case *arrow.StructType:
		st, err := sparkStruct(tt.Fields())
		if err != nil {
			return nil, err
		}
		return json.Marshal(st)
	case *arrow.ListType:
		et, err := sparkType(tt.Elem())
		if err != nil {
			return nil, err
		}
		cn := tt.ElemField().Nullable
		return json.Marshal(&sparkComplex{Type: "array", ElementType: et, ContainsNull: &cn})
	case *arrow.MapType:
		kt, err := sparkType(tt.KeyType())
		if err != nil {
			return nil, err
		}
		vt, err := sparkType(tt.ItemType())
		if err != nil {
			return nil, err
		}
		vn := tt.ItemField().Nullable
		return json.Marshal(&sparkComplex{Type: "map", KeyType: kt, ValueType: vt, ValueContainsNull: &vn})
	}
	return nil, fmt.Errorf("lake: Arrow type %s has no Delta equivalent", t)
}

// ParseSchemaString returns the Arrow schema of a Spark schema JSON. Spark
// timestamps become timestamp[us, UTC], dates date32, decimals decimal128.
func ParseSchemaString(s string) (*arrow.Schema, error) {
	var st sparkComplex
	if err := json.Unmarshal([]byte(s), &st); err != nil {
		return nil, fmt.Errorf("lake: schemaString: %w", err)
	}
	if st.Type != "struct" {
		return nil, fmt.Errorf("lake: schemaString is a %q, not a struct", st.Type)
	}
	fields, err := arrowFields(st.Fields)
	if err != nil {
		return nil, err
	}
	return arrow.NewSchema(fields, nil), nil
}

func arrowFields(sf []sparkField) ([]arrow.Field, error) {
	out := make([]arrow.Field, 0, len(sf))
	for _, f := range sf {
		if _, ok := f.Metadata["delta.columnMapping.id"]; ok {
			return nil, fmt.Errorf("%w: column mapping (column %q)", ErrUnsupported, f.Name)
		}
		t, err := arrowType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("lake: column %q: %w", f.Name, err)
		}
		out = append(out, arrow.Field{Name: f.Name, Type: t, Nullable: f.Nullable})
	}
	return out, nil
}

var decimalRE = regexp.MustCompile(`^decimal\((\d+),\s*(\d+)\)$`)

func arrowType(raw json.RawMessage) (arrow.DataType, error) {
	var name string
	if err := json.Unmarshal(raw, &name); err == nil {
		switch name {
		case "byte":
			return arrow.PrimitiveTypes.Int8, nil
		case "short":
			return arrow.PrimitiveTypes.Int16, nil
		case "integer":
			return arrow.PrimitiveTypes.Int32, nil
		case "long":
			return arrow.PrimitiveTypes.Int64, nil
		case "float":
			return arrow.PrimitiveTypes.Float32, nil
		case "double":
			return arrow.PrimitiveTypes.Float64, nil
		case "string":
			return arrow.BinaryTypes.String, nil
		case "binary":
			return arrow.BinaryTypes.Binary, nil
		case "boolean":
			return arrow.FixedWidthTypes.Boolean, nil
		case "date":
			return arrow.FixedWidthTypes.Date32, nil
		case "timestamp":
			return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, nil
		case "timestamp_ntz":
			return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
		case "decimal":
			return &arrow.Decimal128Type{Precision: 10, Scale: 0}, nil
		}
		if m := decimalRE.FindStringSubmatch(name); m != nil {
			p, _ := strconv.Atoi(m[1])
			s, _ := strconv.Atoi(m[2])
			return &arrow.Decimal128Type{Precision: int32(p), Scale: int32(s)}, nil
		}
		return nil, fmt.Errorf("%w: Delta type %q", ErrUnsupported, name)
	}
	var c sparkComplex
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("lake: bad type %s: %w", raw, err)
	}
	switch c.Type {
	case "struct":
		fields, err := arrowFields(c.Fields)
		if err != nil {
			return nil, err
		}
		return arrow.StructOf(fields...), nil
	case "array":
		et, err := arrowType(c.ElementType)
		if err != nil {
			return nil, err
		}
		if c.ContainsNull != nil && !*c.ContainsNull {
			return arrow.ListOfNonNullable(et), nil
		}
		return arrow.ListOf(et), nil
	case "map":
		kt, err := arrowType(c.KeyType)
		if err != nil {
			return nil, err
		}
		vt, err := arrowType(c.ValueType)
		if err != nil {
			return nil, err
		}
		return arrow.MapOf(kt, vt), nil
	}
	return nil, fmt.Errorf("%w: Delta type %q", ErrUnsupported, c.Type)
}

// normalizeSchema returns the schema a table stores for s: timestamps in
// microseconds (Delta's unit), other types unchanged.
func normalizeSchema(s *arrow.Schema) *arrow.Schema {
	fields := make([]arrow.Field, s.NumFields())
	changed := false
	for i, f := range s.Fields() {
		fields[i] = f
		if nt := normalizeType(f.Type); nt != f.Type {
			fields[i].Type = nt
			changed = true
		}
	}
	if !changed {
		return s
	}
	md := s.Metadata()
	return arrow.NewSchema(fields, &md)
}

func normalizeType(t arrow.DataType) arrow.DataType {
	switch tt := t.(type) {
	case *arrow.TimestampType:
		if tt.Unit != arrow.Microsecond {
			return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: tt.TimeZone}
		}
	case *arrow.StructType:
		fs := tt.Fields()
		changed := false
		for i := range fs {
			if nt := normalizeType(fs[i].Type); nt != fs[i].Type {
				fs[i].Type = nt
				changed = true
			}
		}
		if changed {
			return arrow.StructOf(fs...)
		}
	}
	return t
}
