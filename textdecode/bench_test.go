package textdecode

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	gojson "github.com/goccy/go-json"
)

var benchSchema = arrow.NewSchema([]arrow.Field{
	{Name: "campaign_id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "user_id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "event_time", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "url", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "price", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}, nil)

func benchDocs(n int) [][]byte {
	docs := make([][]byte, n)
	for i := range docs {
		docs[i] = []byte(fmt.Sprintf(`{"campaign_id":%d,"user_id":%d,"event_time":"2026-01-01T00:%02d:%02d.%06dZ","url":"https://example.com/p/%d?ref=ad","price":%d.%02d,"extra":{"a":[1,2,3]}}`,
			i%100, i*7919%100000, i/60%60, i%60, i%1000000, i%5000, i%1000, i%100))
	}
	return docs
}

type benchRow struct {
	CampaignID int64   `json:"campaign_id"`
	UserID     int64   `json:"user_id"`
	EventTime  string  `json:"event_time"`
	URL        string  `json:"url"`
	Price      float64 `json:"price"`
}

// BenchmarkJSONDecode compares decoding JSON documents into columns with
// this package's tokenizer against decoding into Go structs with
// goccy/go-json and encoding/json (which would still have to be copied
// into Arrow builders). One core; rows/s and bytes/s.
func BenchmarkJSONDecode(b *testing.B) {
	docs := benchDocs(8192)
	var bytes int64
	for _, d := range docs {
		bytes += int64(len(d))
	}
	report := func(b *testing.B) {
		b.SetBytes(bytes)
		b.ReportMetric(float64(len(docs)*b.N)/b.Elapsed().Seconds(), "rows/s")
	}
	b.Run("textdecode-to-arrow", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			rows := NewRows(memory.DefaultAllocator, benchSchema, len(docs))
			dec := NewJSON(rows)
			for _, d := range docs {
				if _, err := dec.Parse(d); err != nil {
					b.Fatal(err)
				}
				rows.CommitRow()
			}
			rec := rows.Flush()
			rec.Release()
			rows.Release()
		}
		report(b)
	})
	b.Run("goccy-go-json-to-struct", func(b *testing.B) {
		var r benchRow
		for i := 0; i < b.N; i++ {
			for _, d := range docs {
				if err := gojson.Unmarshal(d, &r); err != nil {
					b.Fatal(err)
				}
			}
		}
		report(b)
	})
	b.Run("encoding-json-to-struct", func(b *testing.B) {
		var r benchRow
		for i := 0; i < b.N; i++ {
			for _, d := range docs {
				if err := json.Unmarshal(d, &r); err != nil {
					b.Fatal(err)
				}
			}
		}
		report(b)
	})
}
