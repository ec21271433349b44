package tracefile

// For the external tests, which generate traces with tracegen (an
// importer of this package).
var (
	SpansOfLine = spansOfLine
	SpansOf     = spansOf
)
