package ccsfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"github.com/prooflane/prooflane/internal/solve"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consensys/gnark/constraint"
)

// mutation is one edit of a file.
type mutation struct {
	what string
	edit func([]byte) []byte
}

// byteFlips are n random byte flips of a file of size bytes, spread over
// its sections (the headers, levels, instructions, calldata, CBOR body
// and coefficients) evenly, so that the small sections get their share.
func byteFlips(file []byte, n int, r *rand.Rand) []mutation {
	sections := sectionBounds(file)
	var ms []mutation
	for range n {
		s := sections[r.IntN(len(sections))]
		at, x := s[0]+r.IntN(s[1]-s[0]), byte(1+r.IntN(255))
		ms = append(ms, mutation{fmt.Sprintf("byte %d ^= %#x", at, x), func(b []byte) []byte { b[at] ^= x; return b }})
	}
	return ms
}

// sectionBounds returns the [start, end) of each non-empty section of a
// file gnark wrote.
func sectionBounds(file []byte) [][2]int {
	at := FileHeader + SystemHeader
	bounds := [][2]int{{0, at}}
	for i := range 4 {
		n := int(binary.LittleEndian.Uint64(file[FileHeader+8*i:]))
		if n > 0 {
			bounds = append(bounds, [2]int{at, at + n})
		}
		at += n
	}
	return append(bounds, [2]int{at, len(file)})
}

// lengthEdits set every length and count the file's layout declares
// (its total, the section lengths, the counts of levels, calldata and
// coefficients, and the length of every compressed stream) to values
// the bytes do not hold, or hold differently.
func lengthEdits(file []byte) []mutation {
	at := []int{0, FileHeader, FileHeader + 8, FileHeader + 16, FileHeader + 24}
	levels := FileHeader + SystemHeader
	instructions := levels + int(binary.LittleEndian.Uint64(file[FileHeader:]))
	calldata := instructions + int(binary.LittleEndian.Uint64(file[FileHeader+8:]))
	body := calldata + int(binary.LittleEndian.Uint64(file[FileHeader+16:]))
	coeffs := body + int(binary.LittleEndian.Uint64(file[FileHeader+24:]))
	at = append(at, levels, calldata, coeffs)
	// The streams: the first levels' (at most eight: a file has as many
	// as its circuit is deep), then the instructions' four.
	p := levels + 8
	for range min(binary.LittleEndian.Uint64(file[levels:]), 8) {
		at = append(at, p)
		p += 8 + 4*int(binary.LittleEndian.Uint64(file[p:]))
	}
	p = instructions
	for i := range 4 {
		at = append(at, p)
		word := 4
		if i == 3 {
			word = 8
		}
		p += 8 + word*int(binary.LittleEndian.Uint64(file[p:]))
	}
	var ms []mutation
	for _, a := range at {
		orig := binary.LittleEndian.Uint64(file[a:])
		for _, v := range []uint64{0, 1, 7, orig - 1, orig + 1, orig * 2, 1 << 31, 1 << 40, math.MaxUint64 / 4, math.MaxUint64} {
			ms = append(ms, mutation{fmt.Sprintf("the length at %d = %d (was %d)", a, v, orig), func(b []byte) []byte {
				binary.LittleEndian.PutUint64(b[a:], v)
				return b
			}})
		}
	}
	return ms
}

// systemEdits change the decoded system and write it again: a calldata
// word, a level's instruction, an instruction's fields, the wire
// counts, a lookup table's entry. What gnark's encoder writes is well
// formed, so these reach the checks after decoding.
func systemEdits(t testing.TB, file []byte, kind Kind, n int, r *rand.Rand) []mutation {
	sys, err := decode(file, bls12_381, kind)
	if err != nil {
		t.Fatal(err)
	}
	s := system(sys)
	small := func(v uint32) uint32 {
		switch r.IntN(4) {
		case 0:
			return v + 1
		case 1:
			return v - 1
		case 2:
			return uint32(r.IntN(64))
		}
		return r.Uint32()
	}
	var ms []mutation
	for range n {
		var what string
		var edit func(s *constraint.System)
		switch k := r.IntN(7); {
		case k <= 2 && len(s.CallData) > 0:
			i := r.IntN(len(s.CallData))
			v := small(s.CallData[i])
			what, edit = fmt.Sprintf("calldata word %d = %d", i, v), func(s *constraint.System) { s.CallData[i] = v }
		case k == 3 && len(s.Levels) > 1:
			l, m := r.IntN(len(s.Levels)), r.IntN(len(s.Levels))
			j, k := r.IntN(len(s.Levels[l])), r.IntN(len(s.Levels[m]))
			what, edit = fmt.Sprintf("swap level %d's entry %d and level %d's %d", l, j, m, k), func(s *constraint.System) {
				s.Levels[l][j], s.Levels[m][k] = s.Levels[m][k], s.Levels[l][j]
			}
		case k == 4 && len(s.Instructions) > 0:
			i, f := r.IntN(len(s.Instructions)), r.IntN(4)
			what, edit = fmt.Sprintf("instruction %d's field %d", i, f), func(s *constraint.System) {
				pi := &s.Instructions[i]
				switch f {
				case 0:
					pi.BlueprintID = constraint.BlueprintID(small(uint32(pi.BlueprintID)))
				case 1:
					pi.ConstraintOffset = small(pi.ConstraintOffset)
				case 2:
					pi.WireOffset = small(pi.WireOffset)
				default:
					pi.StartCallData = uint64(small(uint32(pi.StartCallData)))
				}
			}
		case k == 5:
			d := r.IntN(5) - 2
			what, edit = fmt.Sprintf("internal wires %+d", d), func(s *constraint.System) { s.NbInternalVariables += d }
		default:
			var tables []*constraint.BlueprintLookupHint[constraint.U64]
			for _, b := range s.Blueprints {
				if t, ok := b.(*constraint.BlueprintLookupHint[constraint.U64]); ok && len(t.EntriesCalldata) > 0 {
					tables = append(tables, t)
				}
			}
			if len(tables) == 0 {
				continue
			}
			ti := r.IntN(len(tables))
			i := r.IntN(len(tables[ti].EntriesCalldata))
			v := small(tables[ti].EntriesCalldata[i])
			what, edit = fmt.Sprintf("lookup table %d's word %d = %d", ti, i, v), func(s *constraint.System) {
				for _, b := range s.Blueprints {
					if t, ok := b.(*constraint.BlueprintLookupHint[constraint.U64]); ok && len(t.EntriesCalldata) > 0 {
						if ti == 0 {
							t.EntriesCalldata[i] = v
							return
						}
						ti--
					}
				}
			}
		}
		ms = append(ms, mutation{what, func([]byte) []byte {
			sys, err := decode(file, bls12_381, kind)
			if err != nil {
				panic(err)
			}
			edit(system(sys))
			var b bytes.Buffer
			if _, err := sys.WriteTo(&b); err != nil {
				panic(err)
			}
			return b.Bytes()
		}})
	}
	return ms
}

// system returns sys's field-independent part.
func system(sys constraint.ConstraintSystem) *constraint.System {
	_, s, err := fieldOf(sys)
	if err != nil {
		panic(err)
	}
	return s
}

// A file edited anywhere (bytes flipped across every section, every
// length and count set to what its bytes do not hold, the decoded
// system's calldata, levels, instructions, wire counts and lookup
// tables changed) is refused with an error or read into a system that
// gnark's solver solves (under solve.RecoverHints), with the circuit's witness
// and with random ones, without a panic (in the solver's goroutines, a panic would end
// the test binary) and without a hang. Before the checks, gnark's
// decoder and solver panicked in goroutines of their own on most such
// files. The circuits are the test circuits but sha2's (150 000
// constraints and more: too slow to read a thousand times).
func TestAnEditedFileIsRefusedOrSolvesWithoutAPanic(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	flips, systemN := 500, 300
	if testing.Short() {
		flips, systemN = 80, 30
	}
	var progress atomic.Value
	done := make(chan struct{})
	defer close(done)
	go watchdog(&progress, done, 5*time.Minute)
	total, read := 0, 0
	for _, tc := range testCircuits(t) {
		if len(tc.file) > 1<<20 {
			continue
		}
		ms := append(byteFlips(tc.file, flips, r), lengthEdits(tc.file)...)
		ms = append(ms, systemEdits(t, tc.file, tc.kind, systemN, r)...)
		valid := tc.validWitness(t)
		passed := 0
		for _, m := range ms {
			progress.Store(tc.name + ": " + m.what)
			b := m.edit(bytes.Clone(tc.file))
			sys, err := parse(b, bls12_381, tc.kind)
			if err != nil {
				if err.Error() == "" {
					t.Fatalf("%s: %s: an empty error", tc.name, m.what)
				}
				continue
			}
			passed++
			// An error or not; no panic.
			sys.Solve(valid, solve.RecoverHints())
			sys.Solve(randomWitness(t, sys, r), solve.RecoverHints())
		}
		t.Logf("%s: %d edits, %d read and solved (or failed to) without a panic", tc.name, len(ms), passed)
		total, read = total+len(ms), read+passed
	}
	t.Logf("%d edits, %d read", total, read)
}

// watchdog ends the process naming the mutation in progress when one
// takes longer than limit: a hang in a goroutine of gnark's cannot be
// stopped, only reported.
func watchdog(progress *atomic.Value, done chan struct{}, limit time.Duration) {
	last, since := any(nil), time.Now()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		if p := progress.Load(); p != last {
			last, since = p, time.Now()
		} else if time.Since(since) > limit {
			panic(fmt.Sprintf("no progress for %v on %v", limit, p))
		}
	}
}
