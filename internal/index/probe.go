package index

// The model probe: a remote embedder is a name ("openai:M", "ollama:M")
// for whatever model its server runs under that name, and the server's
// operator may replace the model without changing the name. A new model
// of another dimension is caught by the dimension checks (checkKept,
// embed.Misconfigured); one of the same dimension is not: the stored
// vectors and the new queries would be in two spaces, and a search would
// rank by meaningless cosines without an error.
//
// So a full index run with a remote embedder embeds ProbeText, beside the
// scan, and compares its vector with the one the project keeps (store's
// ModelProbe, saved with the embedder id it was made under). A cosine
// below probeSame, or another length, means another model answers under
// the same id: the project's vectors and fingerprints of that id are
// retired (store.RetireVectors, under store.RetiredID(id)), so searches
// pass them over and this run, as a change of embedder does, embeds every
// file again (run.switching: the run record is Mixed until none is left;
// collector.reusable reuses no retired vector, its fingerprint naming
// another id). The new probe is kept in the same transaction, so an
// interrupted run resumes where it stopped. Report.ModelChanged says so.
//
// A project without a probe (indexed before it was kept, a new project),
// or with the probe of another embedder id, gets this run's, silently. A
// run over given paths (--watch, a search's freshening) does not probe:
// the next full run does. A probe that fails leaves the check to the next
// run, unless the failure is one no file would fare better with
// (embed.Fatal) and the run has files to embed: that is the run's error,
// as its first batch's would be.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/coderag/coderag/internal/embed"
)

// ProbeText is the fixed text whose vector a project indexed with a remote
// embedder keeps, to tell a model replaced behind the same name (see
// above).
const ProbeText = "func main() { fmt.Println(\"coderag probe\") }"

// probeSame is the least cosine between the stored and the new vector of
// ProbeText that counts as the same model. A server is not bit-exact: the
// same text embedded in another batch (other padding, another kernel, a
// GPU's reduction order, fp16) differs in the last digits, a cosine of
// 0.9999 or so, never near 0.99; two different models, even two versions
// of one family at the same dimension, are far below it (vectors of
// unrelated spaces are near orthogonal).
const probeSame = 0.99

// defaultProbeTimeout is Options.ProbeTimeout's default.
const defaultProbeTimeout = 15 * time.Second

// errProbeTimeout is the probe's own bound ending its wait: not a failure
// of the embedder (embed.Fatal is false), only a check left for later.
var errProbeTimeout = errors.New("the model probe was not answered in time")

// probeRecord is the stored model probe (store.Store.ModelProbe's value).
type probeRecord struct {
	Embedder string    `json:"embedder"`
	Vector   []float32 `json:"vector"`
}

// probeResult is the outcome of embedding ProbeText.
type probeResult struct {
	vec []float32
	err error
}

// ModelChangedNote is the one line a front end prints for a run whose
// Report.ModelChanged is set.
func ModelChangedNote(embedder string) string {
	return fmt.Sprintf("the server's model behind %s answered the probe text differently than when the project was indexed: it was replaced, and every file is embedded again", embedder)
}

// startProbe begins embedding ProbeText with the run's embedder, when
// the run is a full one with a remote embedder on a writable index (else
// nil); checkModel
// reads the outcome.
func (r *run) startProbe(ctx context.Context) <-chan probeResult {
	if r.opts.Paths != nil || embed.IsInProcess(r.emb) || r.st.ReadOnly() {
		return nil
	}
	out := make(chan probeResult, 1)
	d := r.opts.ProbeTimeout
	if d <= 0 {
		d = defaultProbeTimeout
	}
	go func() {
		// bounded: a server that does not answer in time (a hanging one,
		// or a model still loading) leaves the check to the next run, and
		// the run's own requests wait as long as they always do
		pctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		vecs, err := r.emb.Embed(pctx, []string{ProbeText})
		if err != nil && ctx.Err() == nil && pctx.Err() != nil {
			err = fmt.Errorf("%w (%s)", errProbeTimeout, d)
		}
		if err == nil && (len(vecs) != 1 || len(vecs[0]) == 0) {
			err = fmt.Errorf("%d vectors for the probe text", len(vecs))
		}
		if err != nil {
			out <- probeResult{err: err}
			return
		}
		out <- probeResult{vec: vecs[0]}
	}()
	return out
}

// checkModel compares the probe's vector (pending, from startProbe) with
// the project's stored one, after diff: when another model answers under
// the embedder's id, it retires the project's vectors of that id, marks
// the run as switching (recordStart), reads the fingerprints again and
// diffs anew, so that every file is embedded again. A project without a
// probe of this id gets this one. See the comment above for errors.
func (r *run) checkModel(ctx context.Context, pending <-chan probeResult) error {
	if pending == nil {
		return nil
	}
	res := <-pending
	if res.err != nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		if embed.Fatal(res.err) && len(r.todo) > 0 {
			return fmt.Errorf("embed: %w; the files written before are kept: run again when the embedder answers", res.err)
		}
		return nil // the next run probes again
	}
	r.serverDim = len(res.vec)
	if cosine(res.vec, res.vec) == 0 {
		// a zero vector (a server's answer to a text it could not
		// embed) tells nothing of the model: compared, it would read as
		// another model at every run; kept, it would make the next
		// answer look like one
		return nil
	}
	id := r.emb.ID()
	b, err := json.Marshal(probeRecord{Embedder: id, Vector: res.vec})
	if err != nil {
		return err
	}
	value, ok, err := r.st.ModelProbe(ctx, r.root)
	if err != nil {
		return err
	}
	var prev probeRecord
	if ok && json.Unmarshal([]byte(value), &prev) == nil && prev.Embedder == id && len(prev.Vector) > 0 {
		if len(prev.Vector) == len(res.vec) && cosine(prev.Vector, res.vec) >= probeSame {
			return nil
		}
		if _, err := r.st.RetireVectors(ctx, r.root, id, string(b)); err != nil {
			return err
		}
		r.modelChanged, r.rep.ModelChanged = true, true
		fps, err := loadFingerprints(ctx, r.st, r.root, true)
		if err != nil {
			return fmt.Errorf("read fingerprints: %w", err)
		}
		r.fps, r.prevs = fps, fps.byPath()
		r.todo, r.rep.Unchanged = nil, 0
		r.diff()
		return nil
	}
	// no probe, an unreadable one, or another embedder's: this run's
	// vectors are of the model that answers now
	return r.st.PutModelProbe(ctx, r.root, string(b))
}

// cosine is the cosine of a and b (of one length), 0 when either is zero.
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
