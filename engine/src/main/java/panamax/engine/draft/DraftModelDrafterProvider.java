package panamax.engine.draft;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import panamax.api.draft.DraftContext;
import panamax.api.draft.DraftModel;
import panamax.api.draft.Drafter;
import panamax.api.draft.DrafterCapabilities;
import panamax.api.draft.DrafterProvider;
import panamax.api.error.UnsupportedCombinationException;
import panamax.api.kv.PluginParams;
import panamax.api.model.Tokenizer;

/**
 * The {@code draft-model} drafter: a smaller model with the same tokenizer drafts K tokens per row
 * autoregressively on KV caches of its own (mlx-lm's {@code --draft-model}). Checks that the two
 * tokenizers agree before anything runs.
 */
public final class DraftModelDrafterProvider implements DrafterProvider {
    /** Texts whose ids must agree between the two tokenizers. */
    private static final List<String> PROBES = List.of("Call me Ishmael. Some years ago - never mind how long precisely -",
            "def f(x):\n    return x * 2  # 3.14159, 42, 1000000", "Grüße, 東京, naïve café, emoji 🙂", "  leading spaces\ttabs\nnew lines\n\n");
    /** The most ids whose decoded text is compared (evenly spaced over the vocabulary). */
    private static final int DECODE_SAMPLE = 4096;

    @Override
    public String id() {
        return "draft-model";
    }

    @Override
    public DrafterCapabilities capabilities() {
        return new DrafterCapabilities("a smaller model with the same tokenizer drafts autoregressively on its own KV cache (--draft-model DIR)",
                List.of(), true, 3);
    }

    @Override
    public Drafter create(PluginParams params, DraftContext context) {
        DraftModel model = context.draftModel().orElseThrow(() -> new UnsupportedCombinationException(
                "drafter draft-model needs a draft model: give --draft-model DIR", List.of()));
        List<String> differences = differences(context.tokenizer(), context.vocabSize(), model);
        if (!differences.isEmpty()) {
            throw new UnsupportedCombinationException("the draft model " + model.directory() + " cannot draft for this model: speculative"
                    + " decoding needs both to use the same token ids, and they differ", differences);
        }
        return new DraftModelDrafter(model);
    }

    /** Every way the draft model's vocabulary differs from the target's, in words (empty when they agree). */
    static List<String> differences(Tokenizer target, int targetLogits, DraftModel draft) {
        Tokenizer other = draft.tokenizer();
        List<String> out = new ArrayList<>();
        if (target.vocabSize() != other.vocabSize()) {
            out.add("tokenizer vocabulary: the target's has " + target.vocabSize() + " ids, the draft model's " + other.vocabSize());
        }
        if (targetLogits != draft.vocabSize()) {
            out.add("logits: the target scores " + targetLogits + " ids, the draft model " + draft.vocabSize());
        }
        if (!target.eosIds().equals(other.eosIds())) {
            out.add("end-of-sequence ids: the target's " + target.eosIds() + ", the draft model's " + other.eosIds());
        }
        for (String probe : PROBES) {
            int[] a = target.encode(probe, false), b = other.encode(probe, false);
            if (!java.util.Arrays.equals(a, b)) {
                out.add("the text " + quote(probe) + " encodes to " + java.util.Arrays.toString(a) + " with the target's tokenizer and "
                        + java.util.Arrays.toString(b) + " with the draft model's");
                break;
            }
        }
        int vocab = Math.min(target.vocabSize(), other.vocabSize());
        int stride = Math.max(1, vocab / DECODE_SAMPLE);
        for (int id = 0; id < vocab; id += stride) {
            String a = target.decode(new int[] {id}, false), b = other.decode(new int[] {id}, false);
            if (!Objects.equals(a, b)) {
                out.add("id " + id + " decodes to " + quote(a) + " with the target's tokenizer and " + quote(b) + " with the draft model's");
                break;
            }
        }
        return out;
    }

    private static String quote(String s) {
        String t = s.length() > 40 ? s.substring(0, 40) + "..." : s;
        return "\"" + t.replace("\n", "\\n").replace("\t", "\\t") + "\"";
    }
}
