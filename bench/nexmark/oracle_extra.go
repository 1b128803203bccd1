package nexmark

import (
	"regexp"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/millrace/millrace/columnar"
)

var (
	q10Schema = arrow.NewSchema([]arrow.Field{
		{Name: "auction", Type: arrow.PrimitiveTypes.Int64},
		{Name: "bidder", Type: arrow.PrimitiveTypes.Int64},
		{Name: "price", Type: arrow.PrimitiveTypes.Int64},
		{Name: "dateTime", Type: columnar.Timestamp},
		{Name: "extra", Type: arrow.BinaryTypes.String},
		{Name: "dt", Type: arrow.BinaryTypes.String},
		{Name: "hm", Type: arrow.BinaryTypes.String},
	}, nil)
	q14Schema = arrow.NewSchema([]arrow.Field{
		{Name: "auction", Type: arrow.PrimitiveTypes.Int64},
		{Name: "bidder", Type: arrow.PrimitiveTypes.Int64},
		{Name: "price", Type: arrow.PrimitiveTypes.Float64},
		{Name: "bidTimeType", Type: arrow.BinaryTypes.String},
		{Name: "dateTime", Type: columnar.Timestamp},
		{Name: "extra", Type: arrow.BinaryTypes.String},
		{Name: "c_counts", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	q21Schema = arrow.NewSchema([]arrow.Field{
		{Name: "auction", Type: arrow.PrimitiveTypes.Int64},
		{Name: "bidder", Type: arrow.PrimitiveTypes.Int64},
		{Name: "price", Type: arrow.PrimitiveTypes.Int64},
		{Name: "channel", Type: arrow.BinaryTypes.String},
		{Name: "channel_id", Type: arrow.BinaryTypes.String},
	}, nil)
	q22Schema = arrow.NewSchema([]arrow.Field{
		{Name: "auction", Type: arrow.PrimitiveTypes.Int64},
		{Name: "bidder", Type: arrow.PrimitiveTypes.Int64},
		{Name: "price", Type: arrow.PrimitiveTypes.Int64},
		{Name: "channel", Type: arrow.BinaryTypes.String},
		{Name: "dir1", Type: arrow.BinaryTypes.String},
		{Name: "dir2", Type: arrow.BinaryTypes.String},
		{Name: "dir3", Type: arrow.BinaryTypes.String},
	}, nil)
)

// OracleQ10 evaluates q10 naively over events [0, events).
func OracleQ10(g *Generator, events int64) Result {
	return overBids(g, events, q10Schema, func(b Bid, out *array.RecordBuilder) bool {
		t := time.UnixMicro(b.DateTime).UTC()
		out.Field(0).(*array.Int64Builder).Append(b.Auction)
		out.Field(1).(*array.Int64Builder).Append(b.Bidder)
		out.Field(2).(*array.Int64Builder).Append(b.Price)
		out.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(b.DateTime))
		out.Field(4).(*array.StringBuilder).Append(b.Extra)
		out.Field(5).(*array.StringBuilder).Append(t.Format("2006-01-02"))
		out.Field(6).(*array.StringBuilder).Append(t.Format("15:04"))
		return true
	})
}

// OracleQ14 evaluates q14 naively over events [0, events).
func OracleQ14(g *Generator, events int64) Result {
	return overBids(g, events, q14Schema, func(b Bid, out *array.RecordBuilder) bool {
		euros := float64(b.Price) * EurosPerDollar
		if !(euros > 1_000_000 && euros < 50_000_000) {
			return false
		}
		kind := "otherTime"
		switch h := time.UnixMicro(b.DateTime).UTC().Hour(); {
		case h >= 8 && h <= 18:
			kind = "dayTime"
		case h <= 6 || h >= 20:
			kind = "nightTime"
		}
		out.Field(0).(*array.Int64Builder).Append(b.Auction)
		out.Field(1).(*array.Int64Builder).Append(b.Bidder)
		out.Field(2).(*array.Float64Builder).Append(euros)
		out.Field(3).(*array.StringBuilder).Append(kind)
		out.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(b.DateTime))
		out.Field(5).(*array.StringBuilder).Append(b.Extra)
		out.Field(6).(*array.Int32Builder).Append(int32(strings.Count(b.Extra, "c")))
		return true
	})
}

var channelIDRe = regexp.MustCompile(channelIDPattern)

// OracleQ21 evaluates q21 naively over events [0, events).
func OracleQ21(g *Generator, events int64) Result {
	ids := map[string]string{"apple": "0", "google": "1", "facebook": "2", "baidu": "3"}
	return overBids(g, events, q21Schema, func(b Bid, out *array.RecordBuilder) bool {
		id, hot := ids[strings.ToLower(b.Channel)]
		if !hot {
			if m := channelIDRe.FindStringSubmatch(b.URL); m != nil {
				id = m[2]
			}
		}
		out.Field(0).(*array.Int64Builder).Append(b.Auction)
		out.Field(1).(*array.Int64Builder).Append(b.Bidder)
		out.Field(2).(*array.Int64Builder).Append(b.Price)
		out.Field(3).(*array.StringBuilder).Append(b.Channel)
		out.Field(4).(*array.StringBuilder).Append(id)
		return true
	})
}

// OracleQ22 evaluates q22 naively over events [0, events).
func OracleQ22(g *Generator, events int64) Result {
	return overBids(g, events, q22Schema, func(b Bid, out *array.RecordBuilder) bool {
		parts := strings.Split(b.URL, "/")
		part := func(i int) string { // split_part's 1-based index
			if i > len(parts) {
				return ""
			}
			return parts[i-1]
		}
		out.Field(0).(*array.Int64Builder).Append(b.Auction)
		out.Field(1).(*array.Int64Builder).Append(b.Bidder)
		out.Field(2).(*array.Int64Builder).Append(b.Price)
		out.Field(3).(*array.StringBuilder).Append(b.Channel)
		out.Field(4).(*array.StringBuilder).Append(part(4))
		out.Field(5).(*array.StringBuilder).Append(part(5))
		out.Field(6).(*array.StringBuilder).Append(part(6))
		return true
	})
}
