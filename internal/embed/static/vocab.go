package static

import "hash/maphash"

// vocabIndex maps a vocabulary word to its row: an open-addressing table
// (linear probing, at most half full) of row+1 values, 0 for an empty slot,
// over the model's own Vocab strings. It replaces a map[string]int32,
// whose 80,000 inserts were most of a cold search's model load (23 ms a
// load in BenchmarkLoad); building this table hashes each word once and
// writes one int32. A word listed twice maps to its last row, as the map
// did.
type vocabIndex struct {
	vocab []string
	slots []int32
	mask  uint64
	seed  maphash.Seed
}

func newVocabIndex(vocab []string) *vocabIndex {
	n := uint64(1)
	for n < 2*uint64(len(vocab))+1 {
		n <<= 1
	}
	x := &vocabIndex{vocab: vocab, slots: make([]int32, n), mask: n - 1, seed: maphash.MakeSeed()}
	for i, w := range vocab {
		for h := maphash.String(x.seed, w) & x.mask; ; h = (h + 1) & x.mask {
			r := x.slots[h]
			if r == 0 || vocab[r-1] == w {
				x.slots[h] = int32(i) + 1
				break
			}
		}
	}
	return x
}

// lookup returns the row of word and whether it is in the vocabulary.
func (x *vocabIndex) lookup(word string) (int32, bool) {
	for h := maphash.String(x.seed, word) & x.mask; ; h = (h + 1) & x.mask {
		r := x.slots[h]
		if r == 0 {
			return 0, false
		}
		if x.vocab[r-1] == word {
			return r - 1, true
		}
	}
}
