package attach

import (
	"cmp"
	"slices"
)

// share gives the text files room bytes of content between them, fairly:
// the smallest first, each at most an equal part of what is left, so that a
// short file is given whole and what it does not use goes to the longer
// ones, and one long file cannot crowd out the rest.
func share(files []file, room int) {
	var texts []int
	for i, f := range files {
		if f.kind == Text {
			texts = append(texts, i)
		}
	}
	slices.SortStableFunc(texts, func(a, b int) int { return cmp.Compare(files[a].Size, files[b].Size) })
	left := max(room, 0)
	for k, i := range texts {
		s := min(int(max(files[i].Size, 0)), left/(len(texts)-k))
		files[i].share = s
		left -= s
	}
}
