package panamax.kv.codecs.tck;

import java.util.List;
import java.util.Map;
import panamax.api.kv.KvCodecProvider;
import panamax.codec.tck.CodecTck;
import panamax.kv.codecs.affine.AffineCodecProvider;

/** The affine codec at its smallest, usual and largest bits and every group size against the codec TCK. */
class AffineCodecTckTest extends CodecTck {
    @Override
    protected KvCodecProvider provider() {
        return new AffineCodecProvider();
    }

    @Override
    protected List<Map<String, String>> parameterSets() {
        return List.of(
                Map.of("bits", "2", "group_size", "32"),
                Map.of("bits", "4", "group_size", "64"),
                Map.of("bits", "4", "group_size", "32"),
                Map.of("bits", "8", "group_size", "128"));
    }
}
