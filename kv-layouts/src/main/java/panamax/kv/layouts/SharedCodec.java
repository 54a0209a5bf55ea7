package panamax.kv.layouts;

import panamax.api.kv.KvCodec;

/**
 * A reference-counted handle on one codec instance, so layouts made by {@code merge} and
 * {@code extractRow} can use the codec of the layout they came from while each is closed
 * independently. The codec is closed when the last holder releases it. Not thread-safe.
 */
final class SharedCodec {
    private final KvCodec codec;
    private int holders = 1;

    /** Takes ownership of {@code codec}; the creator holds the first reference. */
    SharedCodec(KvCodec codec) {
        this.codec = codec;
    }

    /** The codec, borrowed for as long as the caller holds a reference. */
    KvCodec codec() {
        if (holders == 0) throw new IllegalStateException("codec already released");
        return codec;
    }

    /** Adds a holder; each retain needs one {@link #release}. */
    SharedCodec retain() {
        if (holders == 0) throw new IllegalStateException("codec already released");
        holders++;
        return this;
    }

    /** Drops a holder and closes the codec when none is left. */
    void release() {
        if (holders == 0) return;
        if (--holders == 0) codec.close();
    }
}
