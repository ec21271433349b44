// Package suggest finds the closest known word to a misspelt one, for
// "did you mean" hints in error messages.
package suggest

// Closest returns the candidate nearest to word by edit distance, or "" when
// none is near enough to be a plausible typo.
func Closest(word string, candidates []string) string {
	best, bestD := "", len(word)/2+2
	for _, c := range candidates {
		if d := distance(word, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the Damerau-Levenshtein distance (adjacent transpositions
// count once), which catches the common "lokcs" for "locks".
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
