package nexmark

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sinks/blackhole"
)

// collectRecords generates kind k over [lo, hi) and returns the records.
func collectRecords(t *testing.T, mem memory.Allocator, g *Generator, k Kind, lo, hi int64) []arrow.RecordBatch {
	t.Helper()
	var recs []arrow.RecordBatch
	if err := g.Generate(mem, k, lo, hi, func(r arrow.RecordBatch) error {
		if err := r.Schema().Equal(k.Schema()); !err {
			t.Fatalf("%s: schema %s", k, r.Schema())
		}
		recs = append(recs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return recs
}

func str(a arrow.Array, i int) string { return a.(*array.String).Value(i) }
func i64(a arrow.Array, i int) int64 {
	switch a := a.(type) {
	case *array.Int64:
		return a.Value(i)
	case *array.Timestamp:
		return int64(a.Value(i))
	}
	panic("not an int64 column")
}

// TestColumnarMatchesRows compares every value of the columnar generator
// with the row generator of the oracle, in order and out of order.
func TestColumnarMatchesRows(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, cfg := range []Config{{Seed: 1}, {Seed: 2, OutOfOrderGroup: 7, Rate: 1000}, {Seed: 3, OutOfOrderGroup: 50}} {
		g := NewGenerator(cfg)
		const lo, hi = 12_345, 60_000
		var want [3][]int64
		for p := int64(lo); p < hi; p++ {
			e := g.EventNumber(p)
			want[KindOf(e)] = append(want[KindOf(e)], e)
		}
		for _, k := range []Kind{Bids, Auctions, Persons} {
			recs := collectRecords(t, mem, g, k, lo, hi)
			i := 0
			for _, r := range recs {
				c := r.Columns()
				for row := 0; row < int(r.NumRows()); row++ {
					e := want[k][i]
					i++
					var got, exp []any
					switch k {
					case Bids:
						b := g.BidAt(e)
						exp = []any{b.Auction, b.Bidder, b.Price, b.Channel, b.URL, b.DateTime, b.Extra}
						got = []any{i64(c[0], row), i64(c[1], row), i64(c[2], row), str(c[3], row), str(c[4], row), i64(c[5], row), str(c[6], row)}
					case Auctions:
						a := g.AuctionAt(e)
						exp = []any{a.ID, a.ItemName, a.Description, a.InitialBid, a.Reserve, a.DateTime, a.Expires, a.Seller, a.Category, a.Extra}
						got = []any{i64(c[0], row), str(c[1], row), str(c[2], row), i64(c[3], row), i64(c[4], row), i64(c[5], row), i64(c[6], row), i64(c[7], row), i64(c[8], row), str(c[9], row)}
					case Persons:
						p := g.PersonAt(e)
						exp = []any{p.ID, p.Name, p.EmailAddress, p.CreditCard, p.City, p.State, p.DateTime, p.Extra}
						got = []any{i64(c[0], row), str(c[1], row), str(c[2], row), str(c[3], row), str(c[4], row), str(c[5], row), i64(c[6], row), str(c[7], row)}
					}
					for f := range exp {
						if got[f] != exp[f] {
							t.Fatalf("%+v %s event %d field %s: columnar %v, rows %v", cfg, k, e, k.Schema().Field(f).Name, got[f], exp[f])
						}
					}
				}
			}
			if i != len(want[k]) {
				t.Fatalf("%+v %s: %d rows, want %d", cfg, k, i, len(want[k]))
			}
			columnar.ReleaseAll(recs)
		}
	}
}

func checksum(t *testing.T, mem memory.Allocator, g *Generator, k Kind, lo, hi int64) (rows int64, sum uint64) {
	recs := collectRecords(t, mem, g, k, lo, hi)
	defer columnar.ReleaseAll(recs)
	for _, r := range recs {
		rows += r.NumRows()
		sum += blackhole.RecordChecksum(r)
	}
	return rows, sum
}

// TestDeterministicAndSplittable: the same seed gives the same events
// however the range is split; another seed or base time does not.
func TestDeterministicAndSplittable(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, k := range []Kind{Bids, Auctions, Persons} {
		g := NewGenerator(Config{Seed: 9, OutOfOrderGroup: 10})
		n, whole := checksum(t, mem, g, k, 0, 50_000)
		var parts uint64
		var rows int64
		for _, cut := range [][2]int64{{0, 1}, {1, 77}, {77, 33_333}, {33_333, 50_000}} {
			r, s := checksum(t, mem, NewGenerator(Config{Seed: 9, OutOfOrderGroup: 10}), k, cut[0], cut[1])
			rows += r
			parts += s
		}
		if rows != n || parts != whole {
			t.Fatalf("%s: split gives %d rows %x, whole %d rows %x", k, rows, parts, n, whole)
		}
		if _, s := checksum(t, mem, NewGenerator(Config{Seed: 10, OutOfOrderGroup: 10}), k, 0, 50_000); s == whole {
			t.Fatalf("%s: seeds 9 and 10 give the same events", k)
		}
	}
}

// TestReferenceRules checks the facts of the reference generator.
func TestReferenceRules(t *testing.T) {
	g := NewGenerator(Config{Seed: 4, Rate: 1000})
	const n = 500_000
	var counts [3]int64
	var hotAuc, hotBid, hotSell, bids, aucs int64
	var personBytes, auctionBytes, bidBytes float64
	nextPerson, nextAuction := int64(FirstPersonID), int64(FirstAuctionID)
	for e := int64(0); e < n; e++ {
		k := KindOf(e)
		counts[k]++
		switch k {
		case Persons:
			p := g.PersonAt(e)
			if p.ID != nextPerson {
				t.Fatalf("event %d: person id %d, want %d", e, p.ID, nextPerson)
			}
			nextPerson++
			if len(p.CreditCard) != 19 {
				t.Fatalf("credit card %q", p.CreditCard)
			}
			personBytes += float64(8 + len(p.Name) + len(p.EmailAddress) + len(p.CreditCard) + len(p.City) + len(p.State) + 8 + len(p.Extra))
		case Auctions:
			a := g.AuctionAt(e)
			if a.ID != nextAuction {
				t.Fatalf("event %d: auction id %d, want %d", e, a.ID, nextAuction)
			}
			nextAuction++
			if a.Category < FirstCategoryID || a.Category >= FirstCategoryID+NumCategories {
				t.Fatalf("category %d", a.Category)
			}
			if a.Expires <= a.DateTime || a.Reserve <= a.InitialBid || len(a.ItemName) > 20 || len(a.Description) > 100 {
				t.Fatalf("bad auction %+v", a)
			}
			if a.Seller-FirstPersonID == hotSeller(e) {
				hotSell++
			}
			aucs++
			auctionBytes += float64(8 + len(a.ItemName) + len(a.Description) + 8*6 + len(a.Extra))
		case Bids:
			b := g.BidAt(e)
			if b.Price < 100 || b.Price > 100_000_000 {
				t.Fatalf("price %d", b.Price)
			}
			if b.Auction >= nextAuction+auctionIDLead || b.Bidder >= nextPerson+personIDLead || b.Auction < FirstAuctionID || b.Bidder < FirstPersonID {
				t.Fatalf("event %d: bid %+v refers past the leads (next auction %d, person %d)", e, b, nextAuction, nextPerson)
			}
			if b.Auction-FirstAuctionID == hotAuction(e) {
				hotAuc++
			}
			if b.Bidder-FirstPersonID == hotBidder(e) {
				hotBid++
			}
			if l := len(b.Extra); l < 54 || l >= 82 {
				t.Fatalf("bid extra of %d bytes", l)
			}
			if b.DateTime != g.baseUs+e*1000 {
				t.Fatalf("event %d at %d", e, b.DateTime)
			}
			bids++
			bidBytes += float64(8*4 + len(b.Channel) + len(b.URL) + len(b.Extra))
		}
	}
	if counts[Persons]*50 != n || counts[Auctions]*50 != 3*n || counts[Bids]*50 != 46*n {
		t.Fatalf("kinds %v", counts)
	}
	within := func(name string, got, lo, hi float64) {
		if got < lo || got > hi {
			t.Errorf("%s = %.3f, want in [%.3f, %.3f]", name, got, lo, hi)
		}
	}
	// A uniform draw can land on the hot id too: fractions a little above.
	within("hot auction share", float64(hotAuc)/float64(bids), 0.49, 0.53)
	within("hot bidder share", float64(hotBid)/float64(bids), 0.74, 0.77)
	within("hot seller share", float64(hotSell)/float64(aucs), 0.73, 0.77)
	within("person mean bytes", personBytes/float64(counts[Persons]), 200*0.8, 200*1.2)
	within("auction mean bytes", auctionBytes/float64(counts[Auctions]), 500*0.8, 500*1.2)
	t.Logf("mean bytes: person %.0f, auction %.0f, bid %.0f (reference sizing: bid extra ignores channel and url)",
		personBytes/float64(counts[Persons]), auctionBytes/float64(counts[Auctions]), bidBytes/float64(bids))
}

func TestPriceIsLogUniform(t *testing.T) {
	g := NewGenerator(Config{Seed: 5})
	var decades [7]int
	for e := int64(0); e < 200_000; e++ {
		p := price(g.draw(e, 1))
		decades[int(math.Log10(float64(p)))-2]++
	}
	for d := 0; d < 6; d++ {
		if f := float64(decades[d]) / 200_000; f < 0.15 || f > 0.185 {
			t.Fatalf("decade %d holds %.3f of prices", d, f)
		}
	}
}

func TestOutOfOrderIsAPermutationOfGroups(t *testing.T) {
	for _, gs := range []int64{1, 2, 7, 50, 100} {
		seen := map[int64]bool{}
		for p := int64(0); p < 10*gs; p++ {
			e := eventAt(p, gs)
			if e/gs != p/gs || seen[e] {
				t.Fatalf("G=%d: position %d → event %d", gs, p, e)
			}
			seen[e] = true
		}
	}
}

func TestCount(t *testing.T) {
	for _, gs := range []int64{1, 7, 50, 64} {
		g := NewGenerator(Config{OutOfOrderGroup: gs})
		var c [3]int64
		for p := int64(0); p < 5_000; p++ {
			c[KindOf(g.EventNumber(p))]++
			for _, k := range []Kind{Bids, Auctions, Persons} {
				if got := g.Count(k, p+1); got != c[k] {
					t.Fatalf("G=%d: Count(%s, %d) = %d, want %d", gs, k, p+1, got, c[k])
				}
			}
		}
	}
}

func TestPriceRounding(t *testing.T) {
	g := NewGenerator(Config{Seed: 6})
	for e := int64(0); e < 100_000; e++ {
		h := g.draw(e, 1)
		k := h >> 11
		b := float64(k&(1<<41-1)) * (0x1p-53 * 6 * math.Ln10)
		x := priceTable[k>>41] * (1 + b*(1+b*(1.0/2+b*(1.0/6+b*(1.0/24+b*(1.0/120))))))
		if got, want := price(h), int64(math.Round(x)); got != want {
			t.Fatalf("price %d, math.Round %d", got, want)
		}
		if exact := math.Exp(unit(h)*6*math.Ln10) * 100; math.Abs(float64(price(h))-exact) > 0.5+exact*1e-13 {
			t.Fatalf("price %d, exp gives %f", price(h), exact)
		}
	}
}
