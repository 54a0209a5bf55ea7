/**
 * The codec benchmark behind {@code panamax bench codecs}, published as the JDK tool
 * {@code panamax-bench-codecs}; it finds the codecs through {@link panamax.api.kv.KvCodecProvider}.
 *
 * {@snippet :
 * int status = CodecBench.run(List.of("--json", "--head-dims", "128"), new PrintWriter(System.out, true), new PrintWriter(System.err, true));
 * }
 */
package panamax.bench.codecs;
