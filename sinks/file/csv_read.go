package file

import (
	"encoding/csv"
	"fmt"
	"io"
)

// readCSV appends the rows of a CSV data file: fields as strings, an empty
// field as nil. encoding/csv does not tell a quoted "" from an empty field,
// so an empty string reads back as nil too (JSON lines keep the
// difference).
func readCSV(rows []map[string]any, r io.Reader, path string) ([]map[string]any, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err == io.EOF {
		return rows, nil
	}
	if err != nil {
		return rows, fmt.Errorf("%s: header: %w", path, err)
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, fmt.Errorf("%s: %w", path, err)
		}
		if len(rec) != len(header) {
			return rows, fmt.Errorf("%s: row has %d fields, header %d", path, len(rec), len(header))
		}
		m := make(map[string]any, len(rec))
		for i, v := range rec {
			if v == "" {
				m[header[i]] = nil
			} else {
				m[header[i]] = v
			}
		}
		rows = append(rows, m)
	}
}
