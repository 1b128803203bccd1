package columnar

// ReleaseAll releases every non-nil element of xs (arrays, records, batches:
// anything reference counted) and clears it, so that a deferred ReleaseAll
// after a partial hand-over releases only what is still held. It is the one
// copy of the loop every package wrote for itself.
func ReleaseAll[T interface{ Release() }](xs []T) {
	var zero T
	for i, x := range xs {
		if any(x) != nil {
			x.Release()
			xs[i] = zero
		}
	}
}
