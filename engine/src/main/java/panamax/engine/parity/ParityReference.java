package panamax.engine.parity;

import java.nio.file.Path;
import panamax.api.error.BadModelFileException;

/**
 * Reference outputs of a model, as in {@code fixtures/<model>/reference.safetensors}: one prompt's
 * logits at every position and its greedy decode, and a left-padded batch's last logits and decode.
 *
 * @param singleIds        [T] the prompt
 * @param singleLogits     [T, V] logits at every prompt position
 * @param singleGreedy     [N] greedy continuation; element 0 is the argmax of the last prompt logits
 * @param singleStepLogits [N, V] logits after feeding each greedy id
 * @param batchIds         [B, T] left-padded prompts
 * @param batchMask        [B, T] 1 for real tokens
 * @param batchLastLogits  [B, V] logits at the last column
 * @param batchGreedy      [B, N] greedy continuation of each row
 * @param batchStepLogits  [B, N, V] logits of each batched step
 * @param vocab            V
 */
public record ParityReference(int[] singleIds, float[] singleLogits, int[] singleGreedy, float[] singleStepLogits,
                              int[][] batchIds, int[][] batchMask, float[] batchLastLogits, int[][] batchGreedy,
                              float[] batchStepLogits, int vocab) {

    /**
     * Reads a reference file.
     *
     * @throws BadModelFileException naming the file and tensor that is missing or inconsistent
     */
    public static ParityReference read(Path file) {
        ReferenceTensors r = ReferenceTensors.read(file);
        var ids = r.get("single.ids", 2, false);
        var logits = r.get("single.logits", 3, true);
        var greedy = r.get("single.greedy", 2, false);
        var steps = r.get("single.step_logits", 3, true);
        var bIds = r.get("batch.ids", 2, false);
        var bMask = r.get("batch.mask", 2, false);
        var bLast = r.get("batch.last_logits", 2, true);
        var bGreedy = r.get("batch.greedy", 2, false);
        var bSteps = r.get("batch.step_logits", 3, true);
        int vocab = logits.dims()[2];
        int t = ids.dims()[1], n = greedy.dims()[1], b = bIds.dims()[0], bt = bIds.dims()[1], bn = bGreedy.dims()[1];
        check(file, "single.ids", ids.dims()[0] == 1, "one row");
        check(file, "single.logits", logits.dims()[1] == t, "[1, " + t + ", V]");
        check(file, "single.step_logits", steps.dims()[1] == n && steps.dims()[2] == vocab, "[1, " + n + ", " + vocab + "]");
        check(file, "batch.mask", bMask.dims()[0] == b && bMask.dims()[1] == bt, "[" + b + ", " + bt + "]");
        check(file, "batch.last_logits", bLast.dims()[0] == b && bLast.dims()[1] == vocab, "[" + b + ", " + vocab + "]");
        check(file, "batch.step_logits", bSteps.dims()[0] == b && bSteps.dims()[1] == bn && bSteps.dims()[2] == vocab,
                "[" + b + ", " + bn + ", " + vocab + "]");
        return new ParityReference(ids.ints(), logits.floats(), greedy.ints(), steps.floats(), rows(bIds.ints(), b),
                rows(bMask.ints(), b), bLast.floats(), rows(bGreedy.ints(), b), bSteps.floats(), vocab);
    }

    private static void check(Path file, String tensor, boolean ok, String expected) {
        if (!ok) throw new BadModelFileException(file, "tensor " + tensor + " shape", expected, "another shape");
    }

    private static int[][] rows(int[] flat, int b) {
        int w = flat.length / b;
        int[][] out = new int[b][];
        for (int r = 0; r < b; r++) out[r] = java.util.Arrays.copyOfRange(flat, r * w, (r + 1) * w);
        return out;
    }
}
