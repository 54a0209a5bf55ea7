package panamax.codec.tck;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import panamax.api.kv.CodecContext;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvCodecCapabilities;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.PluginParams;
import panamax.api.kv.ReconstructionBound;
import panamax.api.tensor.DType;
import panamax.layout.tck.TestCodecs;

/** The kit catches what it claims to: a bound tighter than the codec's real error, and a missing bound. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CodecTckSelfTest {
    /** The layout TCK's lossy codec (errors up to 1/16 per element), declaring {@code bound}. */
    private static KvCodecProvider lossyDeclaring(Optional<ReconstructionBound> bound) {
        KvCodecProvider lossy = TestCodecs.LOSSY.provider();
        return new KvCodecProvider() {
            public String id() {
                return "lossy-declaring-" + bound.map(Object::toString).orElse("nothing");
            }

            public KvCodecCapabilities capabilities() {
                return lossy.capabilities();
            }

            public CodecShape shape(PluginParams params, int headDim) {
                return lossy.shape(params, headDim);
            }

            public Optional<ReconstructionBound> reconstructionBound(PluginParams params, int headDim, DType activation) {
                return bound;
            }

            public KvCodec create(PluginParams params, CodecContext context) {
                return lossy.create(params, context);
            }
        };
    }

    private static CodecTck kitFor(KvCodecProvider provider) {
        return new CodecTck() {
            protected KvCodecProvider provider() {
                return provider;
            }
        };
    }

    private final CodecTck tooTight = kitFor(lossyDeclaring(Optional.of(ReconstructionBound.exact())));
    private final CodecTck silent = kitFor(lossyDeclaring(Optional.empty()));
    private final CodecTck honest = kitFor(lossyDeclaring(Optional.of(new ReconstructionBound(1e-6, 1e-6, 1 / 16.0))));

    @BeforeAll
    void start() {
        for (CodecTck kit : List.of(tooTight, silent, honest)) kit.startBackend();
    }

    @AfterAll
    void stop() {
        for (CodecTck kit : List.of(tooTight, silent, honest)) kit.stopBackend();
    }

    private static CodecConfig config() {
        return new CodecConfig(Map.of(), PluginParams.empty(), 64, DType.F32);
    }

    @Test
    void aBoundTighterThanTheCodecsErrorFails() {
        AssertionError e = assertThrows(AssertionError.class, () -> tooTight.roundTrip(config(), Vectors.Kind.GAUSSIAN, 5));
        assertTrue(e.getMessage().contains("above the declared"), e.getMessage());
        honest.roundTrip(config(), Vectors.Kind.GAUSSIAN, 5);
        honest.roundTrip(config(), Vectors.Kind.OUTLIER, 6);
    }

    @Test
    void aCodecThatDeclaresNoBoundIsAskedForOne() {
        AssertionError e = assertThrows(AssertionError.class, silent::everyConfigurationDeclaresItsReconstructionBound);
        assertTrue(e.getMessage().startsWith("declare your bound"), e.getMessage());
    }
}
