package ${package};

import panamax.api.kv.KvCodecProvider;
import panamax.codec.tck.CodecTck;

/**
 * The codec against panamax's codec conformance kit: its declared bound on generated vectors, its
 * planes and bytes, attention, encoding in pieces, hosting by every layout, and no leaked tensors.
 */
class Bf16CodecTckTest extends CodecTck {
    @Override
    protected KvCodecProvider provider() {
        return new Bf16CodecProvider();
    }
}
