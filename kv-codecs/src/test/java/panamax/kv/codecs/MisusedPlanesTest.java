package panamax.kv.codecs;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static panamax.kv.codecs.JavaBackendFixture.leakChecked;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.kv.codecs.affine.AffineCodecProvider;
import panamax.kv.codecs.turboquant.TurboQuantCodecProvider;

/** Inputs of the wrong shape are refused with messages that name the expected and found shapes. */
class MisusedPlanesTest {

    @Test
    void wrongHeadDimsAndPlaneListsAreRefusedByName() {
        leakChecked(b -> {
            try (KvCodec affine = CodecFactory.create(new AffineCodecProvider(), Map.of(), b, 2, 64, DType.F32);
                 KvCodec tq = CodecFactory.create(new TurboQuantCodecProvider(), Map.of(), b, 2, 64, DType.F32);
                 Tensor wide = b.ops().zeros(Shape.of(1, 2, 3, 128), DType.F32);
                 Tensor x = b.ops().zeros(Shape.of(1, 2, 3, 64), DType.F32);
                 Tensor flatQuery = b.ops().zeros(Shape.of(2, 64), DType.F32)) {
                var e1 = assertThrows(IllegalArgumentException.class, () -> affine.encode(KvRole.KEY, wide));
                assertTrue(e1.getMessage().contains("[rows, heads, tokens, 64]") && e1.getMessage().contains("[1, 2, 3, 128]"), e1.getMessage());
                var e2 = assertThrows(IllegalArgumentException.class, () -> tq.encode(KvRole.VALUE, wide));
                assertTrue(e2.getMessage().contains("64]") && e2.getMessage().contains("[1, 2, 3, 128]"), e2.getMessage());
                List<Tensor> planes = tq.encode(KvRole.KEY, x);
                try {
                    var e3 = assertThrows(IllegalArgumentException.class, () -> tq.decode(KvRole.KEY, planes.subList(0, 1)));
                    assertTrue(e3.getMessage().contains("[codes, norm]"), e3.getMessage());
                    var e4 = assertThrows(IllegalArgumentException.class, () -> affine.decode(KvRole.KEY, planes));
                    assertTrue(e4.getMessage().contains("3 planes (packed, scales, biases)"), e4.getMessage());
                    var e5 = assertThrows(IllegalArgumentException.class,
                            () -> tq.attend(flatQuery, planes, planes, 0.125, AttentionMask.NONE));
                    assertTrue(e5.getMessage().contains("[B, Hq, Tq, D]"), e5.getMessage());
                } finally {
                    planes.forEach(Tensor::close);
                }
            }
        });
    }
}
