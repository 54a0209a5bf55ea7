package panamax.engine.speculative;

import panamax.api.draft.Draft;
import panamax.engine.generate.RowState;
import panamax.engine.generate.Sampler;

/**
 * The acceptance rule of speculative decoding for one row, given the target's logits at the
 * drafted positions. Greedy rows keep the longest prefix of the draft that equals the target's
 * own choice, then take the target's choice. Sampling rows follow Leviathan et al. 2023 /
 * Chen et al. 2023: draft token d (drawn from q) is kept with probability min(1, p(d)/q(d)); at
 * the first rejection the token is drawn from max(0, p − q) renormalized; if every token is kept,
 * one more is drawn from p. So every produced token is distributed as the target's sampler would
 * draw it. A deterministic draft is a point mass (q(d) = 1). Stateless.
 */
final class DraftVerification {
    private DraftVerification() {
    }

    /**
     * Produces the row's tokens for one verified step: the accepted drafts and one more (a
     * correction or a bonus token), stopping early when the row finishes.
     *
     * @param logits {@code [draft.length() + 1, vocab]} target logits of this row starting at {@code from}:
     *               position i scores the token after the row's newest token and the first i drafts
     * @return how many drafted tokens were accepted
     */
    static int verify(SpeculativeRow row, Draft draft, float[] logits, int from, int vocab) {
        RowState state = row.state();
        Sampler sampler = state.sampler();
        int k = draft.length();
        for (int i = 0; i <= k; i++) {
            int at = from + i * vocab;
            int chosen;
            boolean accepted;
            if (sampler.params().isGreedy()) {
                chosen = sampler.next(logits, at, vocab, state.history(), state.historyLength());
                accepted = i < k && chosen == draft.tokens()[i];
            } else {
                double[] p = sampler.distribution(logits, at, vocab, state.history(), state.historyLength());
                if (i == k) {
                    chosen = Sampler.draw(p, sampler.uniform());
                    accepted = false;
                } else {
                    int d = draft.tokens()[i];
                    double q = draft.probabilities() == null ? 1 : draft.probabilities()[i][d];
                    // keep d with probability min(1, p(d) / q(d)); q(d) > 0 because d was drawn from q
                    accepted = sampler.uniform() * q < p[d];
                    chosen = accepted ? d : Sampler.draw(residual(p, draft.probabilities() == null ? null : draft.probabilities()[i], d),
                            sampler.uniform());
                }
            }
            row.accept(chosen, logits, at, vocab);
            if (!accepted || state.finished()) return accepted ? i + 1 : i;
        }
        return k; // unreachable: position k never accepts
    }

    /** max(0, p − q) renormalized; q null is a point mass on {@code drafted}. Falls back to p when p ≤ q everywhere. */
    static double[] residual(double[] p, float[] q, int drafted) {
        double[] r = new double[p.length];
        double total = 0;
        for (int j = 0; j < p.length; j++) {
            double qj = q == null ? (j == drafted ? 1 : 0) : q[j];
            r[j] = Math.max(0, p[j] - qj);
            total += r[j];
        }
        if (!(total > 0)) return p;
        for (int j = 0; j < r.length; j++) r[j] /= total;
        return r;
    }
}
