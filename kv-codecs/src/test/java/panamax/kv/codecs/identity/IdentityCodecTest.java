package panamax.kv.codecs.identity;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static panamax.kv.codecs.JavaBackendFixture.leakChecked;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.kv.codecs.AttentionCase;
import panamax.kv.codecs.CodecFactory;
import panamax.kv.codecs.JavaBackendFixture;

/** The identity codec stores exactly what it is given, in the dtype it was asked for. */
class IdentityCodecTest {

    @Test
    void bf16KeysRoundTripBitForBit() {
        leakChecked(b -> {
            try (KvCodec codec = CodecFactory.create(new IdentityCodecProvider(), Map.of(), b, 2, 64, DType.BF16);
                 Tensor x = b.fromFloats(JavaBackendFixture.gaussians(1, 2 * 2 * 5 * 64), Shape.of(2, 2, 5, 64), DType.BF16)) {
                List<Tensor> planes = codec.encode(KvRole.KEY, x);
                try (Tensor back = codec.decode(KvRole.KEY, planes)) {
                    assertEquals(DType.BF16, planes.getFirst().dtype());
                    assertEquals(x.shape(), planes.getFirst().shape());
                    assertArrayEquals(b.toFloats(x), b.toFloats(back));
                } finally {
                    planes.forEach(Tensor::close);
                }
            }
        });
    }

    @Test
    void f32StorageKeepsF32AndDecodesToTheActivationDtype() {
        leakChecked(b -> {
            try (KvCodec codec = CodecFactory.create(new IdentityCodecProvider(), Map.of("dtype", "f32"), b, 1, 32, DType.BF16);
                 Tensor x = b.fromFloats(JavaBackendFixture.gaussians(2, 3 * 32), Shape.of(1, 1, 3, 32), DType.BF16)) {
                List<Tensor> planes = codec.encode(KvRole.VALUE, x);
                try (Tensor back = codec.decode(KvRole.VALUE, planes)) {
                    assertEquals(DType.F32, planes.getFirst().dtype());
                    assertEquals(DType.BF16, back.dtype());
                    assertArrayEquals(b.toFloats(x), b.toFloats(back));
                } finally {
                    planes.forEach(Tensor::close);
                }
            }
        });
    }

    @Test
    void attentionOnTheStoredPlanesEqualsTheBackendsAttention() {
        for (long seed = 1; seed <= 12; seed++) {
            long s = seed;
            leakChecked(b -> {
                AttentionCase c = AttentionCase.draw(s);
                try (KvCodec codec = CodecFactory.create(new IdentityCodecProvider(), Map.of("dtype", "f32"), b, c.kvHeads(), 64,
                        DType.F32)) {
                    assertEquals(0.0, c.maxDifference(b, codec, 64, DType.F32), 0.0, c.toString());
                }
            });
        }
    }

    @Test
    void f32StorageUnderBf16ActivationsAttendsExactlyLikeTheBf16Cache() {
        for (long seed = 20; seed <= 25; seed++) {
            long s = seed;
            leakChecked(b -> {
                AttentionCase c = AttentionCase.draw(s);
                try (KvCodec codec = CodecFactory.create(new IdentityCodecProvider(), Map.of("dtype", "f32"), b, c.kvHeads(), 64,
                        DType.BF16)) {
                    assertEquals(0.0, c.maxDifference(b, codec, 64, DType.BF16), 0.0, c.toString());
                }
            });
        }
    }
}
