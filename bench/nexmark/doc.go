// Package nexmark is the Nexmark benchmark of Millrace: a deterministic,
// columnar generator of the Nexmark auction events exposed as Millrace
// sources, the queries written with the public Go API, and a naive oracle
// that evaluates the same queries row by row without the engine.
//
// # Events and offsets
//
// The generator follows the reference rules (nexmark/nexmark, Flink
// flavour; see ../../../shared/NEXMARK.md): event n's type comes from n % 50
// (0 person, 1–3 auction, 4–49 bid); ids, hot auctions, bidders and sellers,
// log-uniform prices, auction expiry, strings, channels and URLs as there.
// The event at position p (p = 0, 1, 2, …) is event number
// e = (p/G)*G + (p*953)%G for an out-of-order group size G (G = 1: in
// order), and every field of it, its event time base + e·1e6/Rate µs
// included, is a pure function of (Seed, BaseTime, Rate, e). Randomness is a
// counter-based hash, splitmix64 of (seed, e, field), so any event can be
// generated alone: a batch replays identically and partitions generate in
// parallel.
//
// A Millrace stream has one schema, so one Config gives three sources,
// NewSource(cfg, Bids), NewSource(cfg, Auctions) and NewSource(cfg,
// Persons). They share one offset space, {"events": N} = the number of event
// positions covered, and each emits only the events of its kind among
// positions (start, end]: the three streams stay aligned in event time.
// Progress counts input rows of the kind; events/s figures count positions.
//
// # Departures from the reference
//
//   - Random strings (extra, names, descriptions, emails, URL parts) are
//     substrings of a per-seed pool of random characters at a random offset
//     and length, not character-by-character draws: the lengths follow the
//     reference, the content is random text, and a bid costs one copy
//     instead of ~70 random draws.
//   - Event times are microseconds (the reference uses milliseconds), so an
//     auction's expiry is computed in microseconds too.
//   - `extra` follows the reference's nextExtra with the reference's
//     currentSize: bids count 32 bytes and not channel and url, exactly as
//     the reference does, so bids average about 170 bytes rather than 100.
//
// # Oracle
//
// oracle.go regenerates the events one at a time as Go structs (events.go,
// a separate, simple code path) and evaluates each query naively; tests and
// the CLI compare the row count and the order-independent checksum of
// sinks/blackhole with the engine's output.
//
// # Queries
//
// Q0, Q1, Q2, Q11 and Q12 take a bid source and return a *millrace.Stream;
// Q3 takes a person and an auction source of the same Config and joins them
// (stream-stream inner join on auction.seller = person.id, state kept for
// the whole run). Queries lists them with their output mode, oracle and
// input kinds, and Run runs one to a blackhole sink. q1's euros are a double (price * 0.908): the reference
// computes a DECIMAL, which Millrace lacks.
//
// q11 (sessions) runs in Append mode with a watermark of dateTime − 4 s:
// its output is the sessions the final watermark closed, max(dateTime) −
// 4 s. At the default rate (10M events/s of event time) 10M events span
// 1 s, so no session closes and q11 writes nothing; run it with --rate
// 100000 (the reference's second harness) or lower to see sessions.
//
// q12 (processing-time windows) groups by a 10 s window of
// CurrentTimestamp() in Update mode: Spark's formulation, since a
// processing-time column has no watermark and Append is refused there. To
// make it checkable Run replaces the wall clock by a simulated one,
// trigger k at BaseTime + k·TriggerInterval (clock.go), and the oracle
// replays the same triggers.
//
// q5, q7 and q8 (queries_chain.go) chain stateful operators in Append
// mode, with a watermark of dateTime − 4 s on every read (the global
// watermark is the minimum over the query's sources): q7 joins raw bids
// carrying their 10 s tumbling window with the per-window maximum price
// of a second read of the bids, on (window, price); q8 joins persons
// grouped by (window, id, name) with auctions grouped by (window,
// seller), on window and id = seller; q5 joins bid counts per (10 s
// window sliding by 2 s, auction) with the per-window maximum of a
// same counts, on (window, count); q5 and q7 use the bid stream twice (one
// source, its batches fanned out to both uses). Their output is the windows the
// final watermark closed; their Query.Rate is ChainedRate (100,000
// events/s: 10M events span 100 s), applied by Query.Configure when the
// Config's Rate is 0 — the CLI passes its --rate (default 10M/s, at which
// 10M events span 1 s and no window closes), so run them with --rate
// 100000.
//
// q4 (average closing price per category, queries_q4.go) chains three
// stateful operators: auctions (watermarks on dateTime, renamed a_time,
// and on expires) joined with bids on id = auction and dateTime between
// a_time and a_time + Generator.MaxAuctionLength (the longest auction the
// generator makes at its rate: the join needs a constant range to evict
// its state), then dateTime ≤ expires as a filter; the maximum price per
// (id, category, expires) in Append mode, an auction's closing price
// written once the watermark passes its expiry (expires is an event-time
// key); and the average per category, the last stage, in Complete mode.
// Its output is the last Complete table, over the auctions the final
// watermark closed; Run keeps only the last Complete batch's rows and
// checksum (flatsink.go), since each batch rewrites the whole table.
// Query.Rate is ChainedRate like q5, q7 and q8 (the generator's auction
// lengths scale with the rate, so auctions close at any rate; ~93 % of
// them have a bid in their range).
//
// The suite's later queries (queries_extra.go, queries_enrich.go,
// queries_stats.go; not q18, q19, see queries_extra.go): q10, q14, q21
// and q22 are stateless maps of the bids with the function library; q13
// joins the bids with a static side input (Generator.SideInput, 10,000
// rows drawn from the seed; the SQL view side_input), a stream-static
// join; q20 joins the bids with the auctions of category 10, a
// stream-stream inner join without a time range (state for the whole
// run, as q3); q15, q16 and q17 are per-day statistics (counts per price
// rank, count distinct, min/max/avg/sum) over all bids, without a window,
// in Complete mode, whose last table Run reads.
//
// Window columns are structs, whose values sinks/blackhole does not read;
// Run's sink flattens them (flatsink.go) so that the checksum covers the
// windows' bounds.
//
// # Running
//
//	go test ./bench/nexmark                      # oracle checks at 100K events
//	go test ./bench/nexmark -run X -bench .      # generator alone, queries at 1M events
//	millrace bench nexmark --query q0,q1,q2 --events 10000000
//	millrace bench nexmark --query q0,q5 --source parquet --path DIR
//
// RunOptions.Inputs replaces the generator's sources by others holding
// the same events (inputs.go), e.g. the file source over the Parquet files
// bench/compare/export wrote from the same Config: the oracle still
// evaluates the generator's events, so the run is checked all the same
// (bench/compare's fair comparison reads the files this way).
//
// Read next: queries.go (the queries), queries_join.go (q3),
// queries_chain.go (q5, q7, q8), queries_q4.go (q4), queries_extra.go,
// queries_enrich.go and queries_stats.go (q10, q13–q17, q20–q22), sql.go
// (the SQL text), source.go (the Millrace source),
// generate.go (the columnar fill).
package nexmark
