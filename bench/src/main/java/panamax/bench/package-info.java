/**
 * JMH benchmarks of the embedded Java backend and the report that compares them with the machine's
 * own read bandwidth and FMA peak. Each benchmark owns its backend, weights and results through a
 * per-trial session and closes every tensor it gets.
 *
 * {@snippet :
 * // java --add-modules jdk.incubator.vector -jar panamax-benchmarks.jar report --out table.md
 * PerformanceReport.main(new String[] {"--out", "table.md"});
 * }
 */
package panamax.bench;
