/**
 * The {@code full}, {@code rotating} and {@code delayed} row layouts. One engine ({@code BatchLayout})
 * serves all three: a shared position record says which logical position sits in which column of
 * which row, a retention rule says what may be evicted, and every row operation is one remap applied
 * to the record and to the codec planes alike. Not exported; reached through {@link panamax.api.kv.KvLayoutProvider}.
 *
 * {@snippet :
 * KvLayoutProvider rotating = ServiceLoader.load(KvLayoutProvider.class).stream()
 *         .map(ServiceLoader.Provider::get).filter(p -> p.id().equals("rotating")).findFirst().orElseThrow();
 * PluginParams params = PluginParams.of(Map.of("window", "512")).resolve("rotating", rotating.capabilities().params());
 * try (KvLayout layout = rotating.create(params, new LayoutContext(backend, 0, 1, codec, null))) {
 *     layout.append(keys, values);                  // [1, kvHeads, T, headDim]
 *     try (Tensor out = layout.attend(queries, scale)) { ... }
 * }
 * }
 */
package panamax.kv.layouts;
