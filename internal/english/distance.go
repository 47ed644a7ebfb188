package english

// EditDistance is the optimal-string-alignment distance of a and b, in
// runes: the Levenshtein distance, with a swap of two neighbouring runes
// counted as one edit ("saerch" is 1 from "search"), the measure by which
// a mistyped command, flag, filter or name finds the one meant.
func EditDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j] is the distance of s[:i] and t[:j]
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
