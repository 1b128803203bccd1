package sparkdiff

// IssueCases are hand-written cases for the semantic differences issue 10
// lists (items 1-4b), each the issue's own example, and minimal reproducers
// of the differences this check found beyond them ("new-…"), so that the
// golden test shows when a fix lands. Times are seconds after base.
func IssueCases() []*Case {
	s := func(sec float64) any { return base + int64(sec*1e6) }
	return []*Case{
		{ // item 1: an event exactly one gap after the previous extends the session
			Name: "issue10-item1/session-gap-boundary", Op: OpSession, Mode: "append", KeyType: "long",
			Watermark: true, DelayMs: 0, GapMs: 5000,
			Triggers: []Trigger{
				{Left: [][]any{{int64(0), s(0), int64(1)}, {int64(0), s(5), int64(2)}}},
				{Left: [][]any{{int64(1), s(30), int64(3)}}},
			},
		},
		{ // item 2: dropDuplicatesWithinWatermark treats a null event time as 0
			Name: "issue10-item2/dedup-within-null-time", Op: OpDedupWithin, Mode: "append", KeyType: "long",
			Watermark: true, DelayMs: 0,
			Triggers: []Trigger{
				{Left: [][]any{{int64(0), nil, int64(1)}}},
				{Left: [][]any{{int64(0), s(30), int64(2)}}},
				{Left: [][]any{{int64(0), s(60), int64(3)}}},
				{Left: [][]any{{int64(1), s(90), int64(4)}}},
			},
		},
		{ // item 3: an input with no data yet holds the watermark at 0
			Name: "issue10-item3/watermark-input-without-data", Op: OpJoin, Mode: "append", Join: "inner", KeyType: "long",
			Watermark: true, DelayMs: 0, RightDelayMs: 0, LowerMs: 0, UpperMs: 5000,
			Triggers: []Trigger{
				{Left: [][]any{{int64(1), s(20), int64(1)}}},
				{Left: [][]any{{int64(1), s(5), int64(2)}}, Right: [][]any{{int64(1), s(6), int64(3)}}},
			},
		},
		{ // item 4: left outer join: null key emitted once the watermark passes it, null time never
			Name: "issue10-item4/left-outer-null-key-time", Op: OpJoin, Mode: "append", Join: "left_outer", KeyType: "long",
			Watermark: true, DelayMs: 0, RightDelayMs: 0, LowerMs: 0, UpperMs: 5000,
			Triggers: []Trigger{
				{Left: [][]any{{nil, s(10), int64(1)}, {int64(1), nil, int64(2)}}, Right: [][]any{{int64(2), s(10), int64(3)}}},
				{Left: [][]any{{int64(3), s(12), int64(4)}}, Right: [][]any{{int64(3), s(13), int64(5)}}},
				{Left: [][]any{{int64(3), s(40), int64(6)}}, Right: [][]any{{int64(3), s(41), int64(7)}}},
			},
		},
		{ // item 4: full outer join matches a null key with a null key
			Name: "issue10-item4/full-outer-null-keys", Op: OpJoin, Mode: "append", Join: "full_outer", KeyType: "long",
			Watermark: true, DelayMs: 0, RightDelayMs: 0, LowerMs: 0, UpperMs: 5000,
			Triggers: []Trigger{
				{Left: [][]any{{nil, s(1), int64(1)}}, Right: [][]any{{nil, s(2), int64(2)}}},
				{Left: [][]any{{int64(1), s(40), int64(3)}}, Right: [][]any{{int64(1), s(41), int64(4)}}},
			},
		},
		{ // item 4b: null-key rows of the side that cannot be emitted unmatched do not move the watermark
			Name: "issue10-item4b/null-key-watermark", Op: OpJoin, Mode: "append", Join: "right_outer", KeyType: "long",
			Watermark: true, DelayMs: 5000, RightDelayMs: 5000, LowerMs: -5000, UpperMs: 5000,
			Triggers: []Trigger{
				{Left: [][]any{{int64(1), s(10), int64(1)}}, Right: [][]any{{int64(2), s(12), int64(2)}}},
				{Left: [][]any{{nil, s(30), int64(3)}}, Right: [][]any{{int64(3), s(40), int64(4)}}},
			},
		},
		{ // new: dropDuplicates without the event time among its keys still drops rows at or behind the watermark
			Name: "new-dedup-key-drops-late-rows", Op: OpDedupKey, Mode: "append", KeyType: "long",
			Watermark: true, DelayMs: 0,
			Triggers: []Trigger{
				{Left: [][]any{{int64(1), s(10), int64(1)}}},
				{Left: [][]any{{int64(2), s(5), int64(2)}, {int64(3), s(10), int64(3)}, {int64(4), nil, int64(4)}}},
				{Left: [][]any{{int64(2), s(20), int64(5)}, {int64(3), s(20), int64(6)}, {int64(4), s(20), int64(7)}}},
			},
		},
		{ // new: a window aggregation after a stream-stream join closes windows by the join's output watermark
			Name: "new-join-window-watermark-propagation", Op: OpJoinWindow, Mode: "append", Join: "inner", KeyType: "long",
			Watermark: true, DelayMs: 0, RightDelayMs: 0, LowerMs: 0, UpperMs: 5000, SizeMs: 10000,
			Triggers: []Trigger{
				{Left: [][]any{{int64(1), s(9), int64(1)}}, Right: [][]any{{int64(1), s(10), int64(1)}}},
				{Left: [][]any{{int64(2), s(12), int64(2)}}, Right: [][]any{{int64(2), s(12), int64(2)}}},
				{Left: [][]any{}, Right: [][]any{{int64(1), s(13), int64(3)}}},
				{Left: [][]any{{int64(3), s(40), int64(4)}}, Right: [][]any{{int64(3), s(40), int64(4)}}},
			},
		},
		{ // new: an unmatched outer-join row whose last possible match is exactly the watermark
			Name: "new-outer-join-eviction-boundary", Op: OpJoin, Mode: "append", Join: "full_outer", KeyType: "long",
			Watermark: true, DelayMs: 0, RightDelayMs: 0, LowerMs: 0, UpperMs: 3000,
			Triggers: []Trigger{
				{Left: [][]any{{int64(2), s(10), int64(1)}, {int64(1), s(13), int64(2)}}, Right: [][]any{{int64(3), s(13), int64(3)}, {int64(1), s(13), int64(4)}}},
				{Left: [][]any{{int64(1), s(30), int64(5)}}, Right: [][]any{{int64(1), s(30), int64(6)}}},
			},
		},
	}
}
