/**
 * What runs a plan: the KV caches built from a {@link panamax.api.plan.ResolvedExecution} and the
 * parity check of a model against reference logits.
 *
 * {@snippet :
 * try (LayerCaches caches = KvStateFactory.of(registry).create(plan, backend, rows)) {
 *     Tensor hidden = model.graph().forwardHidden(ids, caches);
 * }
 * }
 */
package panamax.engine.runtime;
