package storage

import (
	"context"
	"sort"
)

// AfterLister is a Store that lists from a key on: S3's ListObjectsV2
// with StartAfter, so that a reader of a long, ordered series of objects
// (a Delta log of many thousand commits) pages only through the newest
// instead of all of them.
type AfterLister interface {
	// ListAfter is List of the objects whose names start with prefix and
	// sort after startAfter.
	ListAfter(ctx context.Context, prefix, startAfter string) ([]ObjectInfo, error)
}

// ListAfter returns the objects of st whose names start with prefix and
// sort after startAfter, sorted by name: with the store's own ListAfter
// when it has one, else by filtering List.
func ListAfter(ctx context.Context, st Store, prefix, startAfter string) ([]ObjectInfo, error) {
	if al, ok := st.(AfterLister); ok {
		return al.ListAfter(ctx, prefix, startAfter)
	}
	all, err := st.List(ctx, prefix)
	if err != nil {
		return nil, err
	}
	i := sort.Search(len(all), func(i int) bool { return all[i].Name > startAfter })
	return all[i:], nil
}
