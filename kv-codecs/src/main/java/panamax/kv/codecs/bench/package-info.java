/**
 * The codec benchmark behind {@code panamax bench codecs}; the only exported package of the module.
 *
 * {@snippet :
 * int status = CodecBench.run(List.of("--json", "--head-dims", "128"), new PrintWriter(System.out, true), new PrintWriter(System.err, true));
 * }
 */
package panamax.kv.codecs.bench;
