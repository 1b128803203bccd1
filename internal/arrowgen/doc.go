// Package arrowgen generates random Arrow arrays of every type a source can
// produce — flat, nested (lists, large lists, fixed-size lists, structs,
// maps), dictionaries and an extension type — with nulls at every level and
// non-zero offsets at every level, and renders a row of any such array as
// text by walking it value by value. The rendering is the naive oracle of
// the kernels that move rows (kernels.Take, kernels.Compact,
// kernels.TakeChunks and the joins' gather): a moved row must render as the
// row it came from. It is imported only by tests.
package arrowgen
