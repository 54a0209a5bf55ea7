/**
 * Serving many callers from one model: a continuous-batching {@link panamax.engine.serve.BatchScheduler}
 * (admission by projected KV memory, chunked prefill interleaved with decode, prefix reuse across
 * requests), the {@link panamax.engine.serve.ServingPlan} that says why it runs as it does, and the
 * events a caller receives. Knows no HTTP: the server and in-process integrations sit above it.
 *
 * {@snippet :
 * ServingPlan plan = ServingPlan.resolve(session.plan(1, 0), session::layoutCapabilities, ServingConfig.defaults());
 * try (BatchScheduler scheduler = BatchScheduler.start(session, plan, SchedulerObserver.NONE)) {
 *     scheduler.submit(new ServeRequest(request, -1, new RowEvents() {
 *         public void onToken(TokenEvent token) { System.out.print(token.text()); }
 *         public void onFinish(Completion completion) { System.out.println(); }
 *         public void onError(RuntimeException error) { System.err.println(error.getMessage()); }
 *     }));
 * }
 * }
 */
package panamax.engine.serve;
