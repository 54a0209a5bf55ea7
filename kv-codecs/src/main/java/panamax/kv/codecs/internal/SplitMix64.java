package panamax.kv.codecs.internal;

/**
 * SplitMix64, the small reproducible generator the fixtures use, so that a codec's random
 * transforms depend on its seeds alone (never on the JDK's generator). Not thread-safe.
 */
public final class SplitMix64 {
    private long state;

    public SplitMix64(long seed) {
        this.state = seed;
    }

    /** A generator for a stream identified by several numbers (e.g. seed, layer, head). */
    public static SplitMix64 forStream(long... ids) {
        long h = 0x243F6A8885A308D3L;
        for (long id : ids) h = mix(h ^ mix(id + 0x9E3779B97F4A7C15L));
        return new SplitMix64(h);
    }

    public long nextLong() {
        state += 0x9E3779B97F4A7C15L;
        return mix(state);
    }

    /** Uniform in [0, 1) with 53 random bits. */
    public double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    /** A standard normal draw (Box–Muller; one of the pair is discarded for simplicity). */
    public double nextGaussian() {
        double u1 = 1.0 - nextDouble(); // in (0, 1]
        double u2 = nextDouble();
        return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }

    /** +1 or −1 with equal probability. */
    public float nextSign() {
        return (nextLong() & 1) == 0 ? 1f : -1f;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
