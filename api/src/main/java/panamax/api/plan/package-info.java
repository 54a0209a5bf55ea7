/**
 * Execution plans: {@link panamax.api.plan.ExecutionRequirements} in, an immutable
 * {@link panamax.api.plan.ResolvedExecution} out, printed by {@code panamax plan}.
 *
 * {@snippet :
 * ResolvedExecution plan = planner.resolve(requirements);
 * plan.layers().forEach(l -> System.out.println(l.layer() + " " + l.layout() + " " + l.codec()));
 * }
 */
package panamax.api.plan;
