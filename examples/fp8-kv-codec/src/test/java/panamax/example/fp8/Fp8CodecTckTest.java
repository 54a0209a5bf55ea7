package panamax.example.fp8;

import panamax.api.kv.KvCodecProvider;
import panamax.codec.tck.CodecTck;

/** The fp8 codec against the codec TCK: its bound, planes, attention, pieces, and every layout hosting it. */
class Fp8CodecTckTest extends CodecTck {
    @Override
    protected KvCodecProvider provider() {
        return new Fp8CodecProvider();
    }
}
