/**
 * The execution planner: requirements in, an immutable plan out, with every refusal explained;
 * and its text and JSON renderings.
 *
 * {@snippet :
 * ExecutionPlanner planner = Wiring.planner(PluginRegistry.discover(Optional.of(Path.of("plugins"))));
 * ResolvedExecution plan = planner.resolve(requirements);
 * System.out.print(PlanText.render(plan, "built-in preset '1b'"));
 * }
 */
package panamax.engine.plan;
