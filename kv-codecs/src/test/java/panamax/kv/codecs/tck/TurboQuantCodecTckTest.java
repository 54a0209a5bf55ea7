package panamax.kv.codecs.tck;

import java.util.List;
import java.util.Map;
import panamax.api.kv.KvCodecProvider;
import panamax.codec.tck.CodecTck;
import panamax.kv.codecs.turboquant.TurboQuantCodecProvider;

/** TurboQuant with and without QJL keys, at low and high bits, against the codec TCK. */
class TurboQuantCodecTckTest extends CodecTck {
    @Override
    protected KvCodecProvider provider() {
        return new TurboQuantCodecProvider();
    }

    @Override
    protected List<Map<String, String>> parameterSets() {
        return List.of(
                Map.of("key_bits", "4", "value_bits", "3"),
                Map.of("key_bits", "2", "value_bits", "1"),
                Map.of("key_bits", "8", "value_bits", "4"),
                Map.of("key_bits", "3", "value_bits", "2", "qjl", "true"),
                Map.of("key_bits", "1", "value_bits", "4", "qjl", "true"));
    }
}
