package nexmark

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Oracles of the statistics reports q15–q17: Go maps over all the bids,
// without the engine. Complete mode's last table holds every group's
// final aggregates, whatever the triggers and the event order.

// rankOf is the price rank (0, 1, 2 for the suite's rank 1, 2, 3).
func rankOf(price int64) int {
	switch {
	case price < Rank2Price:
		return 0
	case price < Rank3Price:
		return 1
	}
	return 2
}

// dayOf is date_format(dateTime, 'yyyy-MM-dd') in UTC.
func dayOf(us int64) string { return time.UnixMicro(us).UTC().Format("2006-01-02") }

// rankStats are the counts of q15 and q16 for one group.
type rankStats struct {
	bids     [4]int64 // total, rank 1, 2, 3
	bidders  [4]map[int64]bool
	auctions [4]map[int64]bool
}

func newRankStats() *rankStats {
	s := &rankStats{}
	for i := range 4 {
		s.bidders[i], s.auctions[i] = map[int64]bool{}, map[int64]bool{}
	}
	return s
}

func (s *rankStats) add(b Bid) {
	for _, i := range [2]int{0, 1 + rankOf(b.Price)} {
		s.bids[i]++
		s.bidders[i][b.Bidder] = true
		s.auctions[i][b.Auction] = true
	}
}

// append writes the 12 counts from field from on.
func (s *rankStats) append(out *array.RecordBuilder, from int) {
	for i := range 4 {
		out.Field(from + i).(*array.Int64Builder).Append(s.bids[i])
		out.Field(from + 4 + i).(*array.Int64Builder).Append(int64(len(s.bidders[i])))
		out.Field(from + 8 + i).(*array.Int64Builder).Append(int64(len(s.auctions[i])))
	}
}

// rankFields are the 12 count columns of q15 and q16.
func rankFields() []arrow.Field {
	var fs []arrow.Field
	for _, name := range []string{"bids", "bidders", "auctions"} {
		for _, r := range []string{"total_", "rank1_", "rank2_", "rank3_"} {
			fs = append(fs, arrow.Field{Name: r + name, Type: arrow.PrimitiveTypes.Int64})
		}
	}
	return fs
}

var (
	q15Schema = arrow.NewSchema(append([]arrow.Field{{Name: "day", Type: arrow.BinaryTypes.String}}, rankFields()...), nil)
	q16Schema = arrow.NewSchema(append([]arrow.Field{
		{Name: "channel", Type: arrow.BinaryTypes.String},
		{Name: "day", Type: arrow.BinaryTypes.String},
		{Name: "minute", Type: arrow.BinaryTypes.String},
	}, rankFields()...), nil)
	q17Schema = arrow.NewSchema([]arrow.Field{
		{Name: "auction", Type: arrow.PrimitiveTypes.Int64},
		{Name: "day", Type: arrow.BinaryTypes.String},
		{Name: "total_bids", Type: arrow.PrimitiveTypes.Int64},
		{Name: "rank1_bids", Type: arrow.PrimitiveTypes.Int64},
		{Name: "rank2_bids", Type: arrow.PrimitiveTypes.Int64},
		{Name: "rank3_bids", Type: arrow.PrimitiveTypes.Int64},
		{Name: "min_price", Type: arrow.PrimitiveTypes.Int64},
		{Name: "max_price", Type: arrow.PrimitiveTypes.Int64},
		{Name: "avg_price", Type: arrow.PrimitiveTypes.Float64},
		{Name: "sum_price", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
)

// eachBid calls fn for every bid among positions [0, events), in order.
func eachBid(g *Generator, events int64, fn func(b Bid)) {
	for pos := range events {
		if e := g.EventNumber(pos); KindOf(e) == Bids {
			fn(g.BidAt(e))
		}
	}
}

// OracleQ15 evaluates q15 naively over events [0, events).
func OracleQ15(g *Generator, events int64) Result {
	days := map[string]*rankStats{}
	eachBid(g, events, func(b Bid) {
		d := dayOf(b.DateTime)
		if days[d] == nil {
			days[d] = newRankStats()
		}
		days[d].add(b)
	})
	s := newRowSink(q15Schema)
	for d, st := range days {
		s.b.Field(0).(*array.StringBuilder).Append(d)
		st.append(s.b, 1)
		s.row()
	}
	return s.done()
}

// OracleQ16 evaluates q16 naively over events [0, events): the suite's
// max over the groups' 'HH:mm' strings.
func OracleQ16(g *Generator, events int64) Result {
	type key struct{ channel, day string }
	type group struct {
		*rankStats
		minute string
	}
	groups := map[key]*group{}
	eachBid(g, events, func(b Bid) {
		k := key{b.Channel, dayOf(b.DateTime)}
		gr := groups[k]
		if gr == nil {
			gr = &group{rankStats: newRankStats()}
			groups[k] = gr
		}
		gr.add(b)
		gr.minute = max(gr.minute, time.UnixMicro(b.DateTime).UTC().Format("15:04"))
	})
	s := newRowSink(q16Schema)
	for k, gr := range groups {
		s.b.Field(0).(*array.StringBuilder).Append(k.channel)
		s.b.Field(1).(*array.StringBuilder).Append(k.day)
		s.b.Field(2).(*array.StringBuilder).Append(gr.minute)
		gr.append(s.b, 3)
		s.row()
	}
	return s.done()
}

// OracleQ17 evaluates q17 naively over events [0, events). Sums of prices
// stay far below 2^53, so the engine's double sum for avg is exact and
// avg is sum / count whatever the order.
func OracleQ17(g *Generator, events int64) Result {
	type key struct {
		auction int64
		day     string
	}
	type stats struct {
		bids          [4]int64
		min, max, sum int64
	}
	groups := map[key]*stats{}
	eachBid(g, events, func(b Bid) {
		k := key{b.Auction, dayOf(b.DateTime)}
		st := groups[k]
		if st == nil {
			st = &stats{min: b.Price, max: b.Price}
			groups[k] = st
		}
		st.bids[0]++
		st.bids[1+rankOf(b.Price)]++
		st.min, st.max = min(st.min, b.Price), max(st.max, b.Price)
		st.sum += b.Price
	})
	s := newRowSink(q17Schema)
	for k, st := range groups {
		s.b.Field(0).(*array.Int64Builder).Append(k.auction)
		s.b.Field(1).(*array.StringBuilder).Append(k.day)
		for i := range 4 {
			s.b.Field(2 + i).(*array.Int64Builder).Append(st.bids[i])
		}
		s.b.Field(6).(*array.Int64Builder).Append(st.min)
		s.b.Field(7).(*array.Int64Builder).Append(st.max)
		s.b.Field(8).(*array.Float64Builder).Append(float64(st.sum) / float64(st.bids[0]))
		s.b.Field(9).(*array.Int64Builder).Append(st.sum)
		s.row()
	}
	return s.done()
}
