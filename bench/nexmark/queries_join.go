package nexmark

import (
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sources"
)

// Join queries: q3 (local item suggestion), a stream-stream inner join of
// persons and auctions.

// Q3Category is the auction category q3 keeps.
const Q3Category = 10

// Q3States are the seller states q3 keeps.
var Q3States = []string{"OR", "ID", "CA"}

// Q3 returns the name, city and state of the sellers in OR, ID or CA with
// the id of each of their auctions in category 10: the reference's
//
//	SELECT P.name, P.city, P.state, A.id
//	FROM auction A INNER JOIN person P ON A.seller = P.id
//	WHERE A.category = 10 AND P.state IN ('OR', 'ID', 'CA')
//
// as a stream-stream inner join without a time range (both sides' rows
// are kept as join state for the life of the query, as Spark does for an
// inner join without a watermark). Both sides are filtered and projected
// before the join; the person's id is renamed person_id so that column
// names are unique across the sides. Output columns: name, city, state,
// id (the auction's id).
func Q3(persons, auctions sources.Source) *millrace.Stream {
	var inState millrace.Column
	for i, s := range Q3States {
		if i == 0 {
			inState = millrace.Col("state").Eq(s)
		} else {
			inState = inState.Or(millrace.Col("state").Eq(s))
		}
	}
	p := millrace.ReadStream(persons).
		Filter(inState).
		Select(millrace.Col("id").As("person_id"), millrace.Col("name"), millrace.Col("city"), millrace.Col("state"))
	a := millrace.ReadStream(auctions).
		Filter(millrace.Col("category").Eq(int64(Q3Category))).
		SelectCols("id", "seller")
	return a.Join(p, millrace.Col("seller").Eq(millrace.Col("person_id")), millrace.Inner).
		SelectCols("name", "city", "state", "id")
}
