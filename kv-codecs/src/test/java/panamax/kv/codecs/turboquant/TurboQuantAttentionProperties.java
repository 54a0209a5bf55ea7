package panamax.kv.codecs.turboquant;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;
import static panamax.kv.codecs.JavaBackendFixture.leakChecked;

import java.util.Map;
import org.junit.jupiter.api.Test;
import panamax.api.kv.KvCodec;
import panamax.api.tensor.DType;
import panamax.kv.codecs.AttentionCase;
import panamax.kv.codecs.CodecFactory;

/** Attention in the rotated domain equals un-rotating (decoding) the cache and attending normally. */
class TurboQuantAttentionProperties {
    private static final int[] KEY_BITS = {1, 2, 3, 4, 8};
    private static final int[] HEAD_DIMS = {64, 80, 128};

    @Test
    void rotatedDomainAttentionEqualsDecodingThenTheBackendsAttention() {
        qt().withExamples(40).forAll(integers().between(0, 4), integers().between(1, 4), integers().between(0, 5), longs().all())
                .checkAssert((ki, valueBits, variant, seed) -> leakChecked(b -> {
                    AttentionCase c = AttentionCase.draw(seed);
                    int keyBits = KEY_BITS[ki];
                    boolean qjl = variant % 2 == 1 && keyBits != 8;
                    int headDim = HEAD_DIMS[variant / 2];
                    var params = Map.of("key_bits", "" + keyBits, "value_bits", "" + valueBits, "qjl", "" + qjl,
                            "seed", Long.toString(seed % 1000));
                    try (KvCodec codec = CodecFactory.create(new TurboQuantCodecProvider(), params, b, c.kvHeads(), headDim,
                            DType.F32)) {
                        double diff = c.maxDifference(b, codec, headDim, DType.F32);
                        assertTrue(diff < 2e-4, "max |attend − sdpa(decode)| = " + diff + " for " + c + ", " + params
                                + ", head dim " + headDim);
                    }
                }));
    }
}
