/** The JIT's activity, which the benchmarks wait on before they time anything. */
package panamax.bench.jit;
