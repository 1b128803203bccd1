package nexmark

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
)

// BatchRows is the largest record the generator emits.
const BatchRows = 8192

// scratch holds the per-record working slices of one Generate call.
type scratch struct {
	evs        []int64
	skip       []bool // by column: a column no query reads, emitted as nulls
	starts     [3][]int32
	lens       [3][]int32
	emailBytes []byte
}

func newScratch() *scratch {
	s := &scratch{evs: make([]int64, 0, BatchRows)}
	for i := range s.starts {
		s.starts[i] = make([]int32, BatchRows)
		s.lens[i] = make([]int32, BatchRows)
	}
	return s
}

// Generate emits the events of kind k among positions [lo, hi) as records
// of at most BatchRows rows, in position order. emit takes over each
// record; Generate stops at the first error emit returns.
func (g *Generator) Generate(mem memory.Allocator, k Kind, lo, hi int64, emit func(arrow.RecordBatch) error) error {
	return g.GenerateColumns(mem, k, lo, hi, nil, emit)
}

// GenerateColumns is Generate with the string columns marked in skip (by
// column index) emitted as nulls instead of generated: a query that never
// reads them (sources.ColumnPruner) saves their copying.
func (g *Generator) GenerateColumns(mem memory.Allocator, k Kind, lo, hi int64, skip []bool, emit func(arrow.RecordBatch) error) error {
	s := newScratch()
	s.skip = skip
	for p := lo; p < hi; {
		s.evs, p = g.collect(k, s.evs[:0], p, hi)
		if len(s.evs) == 0 {
			break
		}
		var rec arrow.RecordBatch
		switch k {
		case Auctions:
			rec = g.buildAuctions(mem, s)
		case Persons:
			rec = g.buildPersons(mem, s)
		default:
			rec = g.buildBids(mem, s)
		}
		if err := emit(rec); err != nil {
			return err
		}
	}
	return nil
}

// strs gathers string column col, or returns n nulls when it is skipped.
func (s *scratch) strs(mem memory.Allocator, col int, src []byte, starts, lens []int32, total, chunk int) arrow.Array {
	if col < len(s.skip) && s.skip[col] {
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.AppendNulls(len(starts))
		return b.NewArray()
	}
	return gather(mem, src, starts, lens, total, chunk)
}

// collect appends the event numbers of kind k at positions [p, hi) until
// evs holds BatchRows, and returns the next position.
func (g *Generator) collect(k Kind, evs []int64, p, hi int64) ([]int64, int64) {
	gs := g.cfg.OutOfOrderGroup
	if gs == 1 && k == Bids {
		for ; p < hi && len(evs) < BatchRows; p++ {
			if p%ProportionDenominator >= personProportion+auctionProportion {
				evs = append(evs, p)
			}
		}
		return evs, p
	}
	for ; p < hi && len(evs) < BatchRows; p++ {
		if e := eventAt(p, gs); kindOf(e) == k {
			evs = append(evs, e)
		}
	}
	return evs, p
}

func newBuf(mem memory.Allocator, size int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(size)
	return b
}

// fixedArray wraps a filled buffer of n values (and releases the buffer).
func fixedArray(typ arrow.DataType, buf *memory.Buffer, n int) arrow.Array {
	d := array.NewData(typ, n, []*memory.Buffer{nil, buf}, nil, 0, 0)
	a := array.MakeFromData(d)
	d.Release()
	buf.Release()
	return a
}

// gather builds a string array whose row i is src[starts[i]:starts[i]+lens[i]].
// When chunk > 0, every string is at most chunk bytes and src has chunk
// bytes of slack after any start: each row is copied as one fixed-size
// block (inline vector moves instead of a memmove call per row), and the
// next row overwrites the excess.
func gather(mem memory.Allocator, src []byte, starts, lens []int32, total, chunk int) arrow.Array {
	n := len(starts)
	lens = lens[:n]
	offs := newBuf(mem, (n+1)*4)
	data := memory.NewResizableBuffer(mem)
	data.Reserve(total + chunk)
	data.ResizeNoShrink(total)
	o := arrow.Int32Traits.CastFromBytes(offs.Bytes())[: n+1 : n+1]
	d := data.Buf()
	pos := int32(0)
	o[0] = 0
	if chunk > 0 && (total+chunk > len(d) || !startsFit(starts, len(src)-chunk)) {
		chunk = 0 // cannot happen with the generator's tables; stay safe
	}
	dp, sp := unsafe.Pointer(unsafe.SliceData(d)), unsafe.Pointer(unsafe.SliceData(src))
	switch chunk {
	case 16:
		for i, st := range starts {
			copyBlock16(unsafe.Add(dp, pos), unsafe.Add(sp, st))
			pos += lens[i]
			o[i+1] = pos
		}
	case 96:
		for i, st := range starts {
			copyBlock96(unsafe.Add(dp, pos), unsafe.Add(sp, st))
			pos += lens[i]
			o[i+1] = pos
		}
	default:
		for i, st := range starts {
			l := lens[i]
			copy(d[pos:pos+l], src[st:st+l])
			pos += l
			o[i+1] = pos
		}
	}
	dt := array.NewData(arrow.BinaryTypes.String, n, []*memory.Buffer{nil, offs, data}, nil, 0, 0)
	a := array.MakeFromData(dt)
	dt.Release()
	offs.Release()
	data.Release()
	return a
}

// startsFit reports whether every start is at most limit.
func startsFit(starts []int32, limit int) bool {
	for _, st := range starts {
		if int(st) > limit || st < 0 {
			return false
		}
	}
	return true
}

// copyBlock16 copies 16 bytes (one vector move on amd64 and arm64, which
// tolerate unaligned access).
func copyBlock16(d, s unsafe.Pointer) { *(*[16]byte)(d) = *(*[16]byte)(s) }

// copyBlock96 copies 96 bytes as six 16-byte moves (a [96]byte assignment
// would call memmove).
func copyBlock96(d, s unsafe.Pointer) {
	*(*[16]byte)(d) = *(*[16]byte)(s)
	*(*[16]byte)(unsafe.Add(d, 16)) = *(*[16]byte)(unsafe.Add(s, 16))
	*(*[16]byte)(unsafe.Add(d, 32)) = *(*[16]byte)(unsafe.Add(s, 32))
	*(*[16]byte)(unsafe.Add(d, 48)) = *(*[16]byte)(unsafe.Add(s, 48))
	*(*[16]byte)(unsafe.Add(d, 64)) = *(*[16]byte)(unsafe.Add(s, 64))
	*(*[16]byte)(unsafe.Add(d, 80)) = *(*[16]byte)(unsafe.Add(s, 80))
}

func newRecord(schema *arrow.Schema, cols []arrow.Array, n int) arrow.RecordBatch {
	rec := array.NewRecordBatch(schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// buildBids builds the record of the bids s.evs.
func (g *Generator) buildBids(mem memory.Allocator, s *scratch) arrow.RecordBatch {
	t := g.tab()
	evs := s.evs
	n := len(evs)
	aucB, bidB, prB, tsB := newBuf(mem, n*8), newBuf(mem, n*8), newBuf(mem, n*8), newBuf(mem, n*8)
	auc := arrow.Int64Traits.CastFromBytes(aucB.Bytes())[:n:n]
	bidder := arrow.Int64Traits.CastFromBytes(bidB.Bytes())[:n:n]
	pr := arrow.Int64Traits.CastFromBytes(prB.Bytes())[:n:n]
	ts := arrow.Int64Traits.CastFromBytes(tsB.Bytes())[:n:n]
	chS, chL := s.starts[0][:n:n], s.lens[0][:n:n]
	urlS, urlL := s.starts[1][:n:n], s.lens[1][:n:n]
	exS, exL := s.starts[2][:n:n], s.lens[2][:n:n]
	chanOff, urlOff := t.chanOff, t.urlOff
	var chTot, urlTot, exTot int
	for i, e := range evs {
		h0, h1, h2, h3 := g.draw(e, 0), g.draw(e, 1), g.draw(e, 2), g.draw(e, 3)
		var a, b int64
		if h1&1 == 1 {
			a = hotAuction(e)
		} else {
			a = nextBase0AuctionID(e, lo32(h0))
		}
		if (h1>>1)&3 != 0 {
			b = hotBidder(e)
		} else {
			b = nextBase0PersonID(e, hi32(h0))
		}
		auc[i] = a + FirstAuctionID
		bidder[i] = b + FirstPersonID
		pr[i] = price(h1)
		ts[i] = g.timestamp(e)
		c := chooseChannel(h1>>3, lo32(h2))
		chS[i], chL[i] = chanOff[c], chanOff[c+1]-chanOff[c]
		urlS[i], urlL[i] = urlOff[c], urlOff[c+1]-urlOff[c]
		exS[i], exL[i] = int32(below(hi32(h2), poolBase)), int32(extraLen(32, avgBidByteSize, lo32(h3)))
		chTot += int(chL[i])
		urlTot += int(urlL[i])
		exTot += int(exL[i])
	}
	cols := []arrow.Array{
		fixedArray(arrow.PrimitiveTypes.Int64, aucB, n),
		fixedArray(arrow.PrimitiveTypes.Int64, bidB, n),
		fixedArray(arrow.PrimitiveTypes.Int64, prB, n),
		s.strs(mem, 3, t.chanData, chS, chL, chTot, 16),
		s.strs(mem, 4, t.urlData, urlS, urlL, urlTot, 96),
		fixedArray(columnar.Timestamp, tsB, n),
		s.strs(mem, 6, t.letters, exS, exL, exTot, 96),
	}
	return newRecord(BidSchema, cols, n)
}

// buildAuctions builds the record of the auctions s.evs.
func (g *Generator) buildAuctions(mem memory.Allocator, s *scratch) arrow.RecordBatch {
	t := g.tab()
	evs := s.evs
	n := len(evs)
	bufs := make([]*memory.Buffer, 7)
	vals := make([][]int64, 7)
	for i := range bufs {
		bufs[i] = newBuf(mem, n*8)
		vals[i] = arrow.Int64Traits.CastFromBytes(bufs[i].Bytes())[:n:n]
	}
	id, initial, reserve, ts, exp, seller, cat := vals[0], vals[1], vals[2], vals[3], vals[4], vals[5], vals[6]
	nmS, nmL := s.starts[0][:n:n], s.lens[0][:n:n]
	dsS, dsL := s.starts[1][:n:n], s.lens[1][:n:n]
	exS, exL := s.starts[2][:n:n], s.lens[2][:n:n]
	var nmTot, dsTot, exTot int
	for i, e := range evs {
		h0, h1, h2, h3 := g.draw(e, 0), g.draw(e, 1), g.draw(e, 2), g.draw(e, 3)
		h4, h5, h6 := g.draw(e, 4), g.draw(e, 5), g.draw(e, 6)
		id[i] = lastBase0AuctionID(e) + FirstAuctionID
		var sl int64
		if h1&3 != 0 {
			sl = hotSeller(e)
		} else {
			sl = nextBase0PersonID(e, lo32(h0))
		}
		seller[i] = sl + FirstPersonID
		cat[i] = FirstCategoryID + below(hi32(h0), NumCategories)
		initial[i] = price(h1)
		ts[i] = g.timestamp(e)
		exp[i] = ts[i] + g.auctionLength(e, h3)
		nmS[i], nmL[i] = t.nextString(h4, 20)
		dsS[i], dsL[i] = t.nextString(h5, 100)
		reserve[i] = initial[i] + price(h2)
		cur := 8 + int(nmL[i]) + int(dsL[i]) + 8*5
		exS[i], exL[i] = int32(below(hi32(h6), poolBase)), int32(extraLen(cur, avgAuctionByteSize, lo32(h6)))
		nmTot += int(nmL[i])
		dsTot += int(dsL[i])
		exTot += int(exL[i])
	}
	i64 := arrow.PrimitiveTypes.Int64
	cols := []arrow.Array{
		fixedArray(i64, bufs[0], n),
		s.strs(mem, 1, t.text, nmS, nmL, nmTot, 0),
		s.strs(mem, 2, t.text, dsS, dsL, dsTot, 0),
		fixedArray(i64, bufs[1], n),
		fixedArray(i64, bufs[2], n),
		fixedArray(columnar.Timestamp, bufs[3], n),
		fixedArray(columnar.Timestamp, bufs[4], n),
		fixedArray(i64, bufs[5], n),
		fixedArray(i64, bufs[6], n),
		s.strs(mem, 9, t.letters, exS, exL, exTot, 0),
	}
	return newRecord(AuctionSchema, cols, n)
}

// buildPersons builds the record of the persons s.evs. Persons are 2 % of
// events, so it uses Arrow builders for the composed strings.
func (g *Generator) buildPersons(mem memory.Allocator, s *scratch) arrow.RecordBatch {
	t := g.tab()
	evs := s.evs
	n := len(evs)
	idB, tsB := newBuf(mem, n*8), newBuf(mem, n*8)
	id := arrow.Int64Traits.CastFromBytes(idB.Bytes())[:n:n]
	ts := arrow.Int64Traits.CastFromBytes(tsB.Bytes())[:n:n]
	names := array.NewStringBuilder(mem)
	emails := array.NewStringBuilder(mem)
	cards := array.NewStringBuilder(mem)
	cities := array.NewStringBuilder(mem)
	states := array.NewStringBuilder(mem)
	defer names.Release()
	defer emails.Release()
	defer cards.Release()
	defer cities.Release()
	defer states.Release()
	names.Reserve(n)
	names.ReserveData(n * 14)
	emails.Reserve(n)
	emails.ReserveData(n * 16)
	cards.Reserve(n)
	cards.ReserveData(n * 19)
	cities.Reserve(n)
	cities.ReserveData(n * 10)
	states.Reserve(n)
	states.ReserveData(n * 2)
	exS, exL := s.starts[2][:n:n], s.lens[2][:n:n]
	exTot := 0
	buf := s.emailBytes[:0]
	for i, e := range evs {
		h0, h1, h2, h3 := g.draw(e, 0), g.draw(e, 1), g.draw(e, 2), g.draw(e, 3)
		h4, h5, h6 := g.draw(e, 4), g.draw(e, 5), g.draw(e, 6)
		id[i] = lastBase0PersonID(e) + FirstPersonID
		ts[i] = g.timestamp(e)
		first, last := firstNames[below(lo32(h0), int64(len(firstNames)))], lastNames[below(hi32(h0), int64(len(lastNames)))]
		buf = append(append(append(buf[:0], first...), ' '), last...)
		names.BinaryBuilder.Append(buf)
		size := 8 + len(buf)
		uo, un := t.nextString(h1, 7)
		do, dn := t.nextString(h2, 5)
		buf = append(buf[:0], t.text[uo:uo+un]...)
		buf = append(buf, '@')
		buf = append(buf, t.text[do:do+dn]...)
		buf = append(buf, ".com"...)
		emails.BinaryBuilder.Append(buf)
		size += len(buf)
		buf = appendCard(buf[:0], below(lo32(h3), 10000), below(hi32(h3), 10000), below(lo32(h4), 10000), below(hi32(h4), 10000))
		cards.BinaryBuilder.Append(buf)
		size += len(buf)
		city, state := usCities[below(lo32(h5), int64(len(usCities)))], usStates[below(hi32(h5), int64(len(usStates)))]
		cities.Append(city)
		states.Append(state)
		size += len(city) + len(state)
		exS[i], exL[i] = int32(below(hi32(h6), poolBase)), int32(extraLen(size, avgPersonByteSize, lo32(h6)))
		exTot += int(exL[i])
	}
	s.emailBytes = buf
	cols := []arrow.Array{
		fixedArray(arrow.PrimitiveTypes.Int64, idB, n),
		names.NewArray(), emails.NewArray(), cards.NewArray(), cities.NewArray(), states.NewArray(),
		fixedArray(columnar.Timestamp, tsB, n),
		s.strs(mem, 7, t.letters, exS, exL, exTot, 0),
	}
	return newRecord(PersonSchema, cols, n)
}

// appendCard appends four groups of four digits separated by spaces.
func appendCard(b []byte, groups ...int64) []byte {
	for i, v := range groups {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
	}
	return b
}
