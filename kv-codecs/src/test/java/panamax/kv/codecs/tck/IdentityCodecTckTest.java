package panamax.kv.codecs.tck;

import java.util.List;
import java.util.Map;
import panamax.api.kv.KvCodecProvider;
import panamax.codec.tck.CodecTck;
import panamax.kv.codecs.identity.IdentityCodecProvider;

/** The identity codec in every storage dtype against the codec TCK. */
class IdentityCodecTckTest extends CodecTck {
    @Override
    protected KvCodecProvider provider() {
        return new IdentityCodecProvider();
    }

    @Override
    protected List<Map<String, String>> parameterSets() {
        return List.of(Map.of("dtype", "bf16"), Map.of("dtype", "f16"), Map.of("dtype", "f32"));
    }
}
