package panamax.example.gpt2;

import java.util.ArrayList;
import java.util.List;
import panamax.api.tensor.Backend;
import panamax.api.tensor.Tensor;

/**
 * GPT-2's weights by Hugging Face name (with or without the {@code transformer.} prefix). Conv1D
 * weights stay as stored, {@code [in, out]}, so {@code x·W} needs no transpose. Owns every tensor.
 */
final class Gpt2Weights implements AutoCloseable {
    /** One block: {@code (weight, bias)} pairs. */
    record Block(Tensor ln1W, Tensor ln1B, Tensor attnW, Tensor attnB, Tensor projW, Tensor projB,
                 Tensor ln2W, Tensor ln2B, Tensor fcW, Tensor fcB, Tensor outW, Tensor outB) {
        List<Tensor> all() {
            return List.of(ln1W, ln1B, attnW, attnB, projW, projB, ln2W, ln2B, fcW, fcB, outW, outB);
        }
    }

    final Tensor wte;   // (vocab, hidden), also the tied output projection
    final Tensor wpe;   // (positions, hidden)
    final List<Block> blocks;
    final Tensor lnFW;  // (hidden)
    final Tensor lnFB;  // (hidden)
    private final List<Tensor> owned;

    private Gpt2Weights(Tensor wte, Tensor wpe, List<Block> blocks, Tensor lnFW, Tensor lnFB, List<Tensor> owned) {
        this.wte = wte;
        this.wpe = wpe;
        this.blocks = blocks;
        this.lnFW = lnFW;
        this.lnFB = lnFB;
        this.owned = owned;
    }

    static Gpt2Weights load(Gpt2Config c, SafetensorsFile f, Backend backend) {
        // either embedding names the prefix, so that a missing one is reported by its full name
        String p = f.has("transformer.wte.weight") || f.has("transformer.wpe.weight") ? "transformer." : "";
        List<Tensor> owned = new ArrayList<>();
        try {
            Tensor wte = track(owned, f.load(p + "wte.weight", backend, c.vocab(), c.hidden()));
            Tensor wpe = track(owned, f.load(p + "wpe.weight", backend, c.positions(), c.hidden()));
            List<Block> blocks = new ArrayList<>();
            int h = c.hidden();
            for (int i = 0; i < c.layers(); i++) {
                String b = p + "h." + i + ".";
                blocks.add(new Block(
                        track(owned, f.load(b + "ln_1.weight", backend, h)), track(owned, f.load(b + "ln_1.bias", backend, h)),
                        track(owned, f.load(b + "attn.c_attn.weight", backend, h, 3 * h)), track(owned, f.load(b + "attn.c_attn.bias", backend, 3 * h)),
                        track(owned, f.load(b + "attn.c_proj.weight", backend, h, h)), track(owned, f.load(b + "attn.c_proj.bias", backend, h)),
                        track(owned, f.load(b + "ln_2.weight", backend, h)), track(owned, f.load(b + "ln_2.bias", backend, h)),
                        track(owned, f.load(b + "mlp.c_fc.weight", backend, h, c.inner())), track(owned, f.load(b + "mlp.c_fc.bias", backend, c.inner())),
                        track(owned, f.load(b + "mlp.c_proj.weight", backend, c.inner(), h)), track(owned, f.load(b + "mlp.c_proj.bias", backend, h))));
            }
            Tensor lnFW = track(owned, f.load(p + "ln_f.weight", backend, h));
            Tensor lnFB = track(owned, f.load(p + "ln_f.bias", backend, h));
            return new Gpt2Weights(wte, wpe, blocks, lnFW, lnFB, owned);
        } catch (RuntimeException e) {
            owned.forEach(Tensor::close);
            throw e;
        }
    }

    private static Tensor track(List<Tensor> owned, Tensor t) {
        owned.add(t);
        return t;
    }

    @Override
    public void close() {
        owned.forEach(Tensor::close);
    }
}
