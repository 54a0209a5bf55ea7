package panamax.bench.codecs;

import java.util.Locale;

/**
 * What the codec benchmark measured for one {@link BenchCase}. Throughputs are GB/s (10⁹ bytes)
 * of bf16-equivalent K/V: {@code tokens · heads · headDim · 2} bytes per role.
 *
 * @param mse                 mean of ‖x − x̂‖² / ‖x‖² over random unit keys
 * @param innerProductError   mean of (⟨y, x⟩ − ⟨y, x̂⟩)² for an independent random unit y per key
 * @param innerProductBias    mean of ⟨x, x̂⟩ / ‖x‖² − 1: the multiplicative bias of inner products (0 = unbiased)
 * @param encode              encode throughput, GB/s
 * @param decode              decode throughput, GB/s
 * @param attention           one decode step (1 query token, GQA 32/8) over the long cache, ms
 * @param attentionVsIdentity identity's attention time divided by this codec's, medians of calls timed in alternation (above 1 = faster)
 * @param copyGbps            the backend's large-copy bandwidth measured in the same run (source bytes/s)
 * @param ownJvm              whether the case ran in a JVM of its own (the default) rather than after every other case in one
 */
record Measurement(BenchCase c, double bitsPerElement, long bytesPerTokenPerHead, double mse, double innerProductError,
                   double innerProductBias, Timing encode, Timing decode, Timing attention,
                   double attentionVsIdentity, int attentionTokens, double copyGbps, boolean ownJvm) {

    /** A timed quantity over the repetitions: the median, and the best (highest GB/s, lowest ms). */
    record Timing(double median, double best) {
        /** GB/s of {@code bytes} from {median, best} seconds. */
        static Timing gbps(double bytes, double[] seconds) {
            return new Timing(bytes / seconds[0] / 1e9, bytes / seconds[1] / 1e9);
        }
    }

    String json() {
        return String.format(Locale.ROOT,
                "{\"codec\":\"%s\",\"key_bits\":%d,\"value_bits\":%d,\"group_size\":%s,\"qjl\":%s,\"head_dim\":%d,"
                        + "\"mse\":%.6g,\"ip_distortion\":%.6g,\"ip_bias\":%.4g,\"bits_per_element\":%.4f,"
                        + "\"bytes_per_token_per_head\":%d,\"encode_gbps\":%.3f,\"decode_gbps\":%.3f,"
                        + "\"encode_gbps_best\":%.3f,\"decode_gbps_best\":%.3f,"
                        + "\"attention_tokens\":%d,\"attention_ms\":%.3f,\"attention_ms_best\":%.3f,"
                        + "\"attention_vs_identity\":%.3f,\"copy_gbps\":%.3f,\"jvm\":\"%s\"}",
                c.codec(), c.keyBits(), c.valueBits(), c.groupSize() == 0 ? "null" : Integer.toString(c.groupSize()), c.qjl(),
                c.headDim(), mse, innerProductError, innerProductBias, bitsPerElement, bytesPerTokenPerHead, encode.median(),
                decode.median(), encode.best(), decode.best(), attentionTokens, attention.median(), attention.best(),
                attentionVsIdentity, copyGbps, ownJvm ? "own" : "shared");
    }

    static String header() {
        return String.format(Locale.ROOT, "%-10s %4s %4s %5s %4s %5s %10s %10s %8s %6s %7s %13s %13s %15s %6s %6s",
                "codec", "kb", "vb", "group", "qjl", "d", "mse", "ip_dist", "ip_bias", "bits", "B/tok/h", "enc med/best",
                "dec med/best", "attn_ms med/best", "x_id", "copy");
    }

    String row() {
        return String.format(Locale.ROOT, "%-10s %4d %4d %5s %4s %5d %10.5f %10.3g %8.4f %6.3f %7d %6.2f/%6.2f %6.2f/%6.2f %7.2f/%7.2f %6.2f %6.2f",
                c.codec(), c.keyBits(), c.valueBits(), c.groupSize() == 0 ? "-" : Integer.toString(c.groupSize()),
                c.qjl() ? "yes" : "no", c.headDim(), mse, innerProductError, innerProductBias, bitsPerElement,
                bytesPerTokenPerHead, encode.median(), encode.best(), decode.median(), decode.best(), attention.median(),
                attention.best(), attentionVsIdentity, copyGbps);
    }
}
