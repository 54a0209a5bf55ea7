/**
 * The bundled demo model: a small Llama-architecture decoder the project trained itself
 * ({@code tools/demo-model}, {@code docs/demo-model.md}), shipped as resources so that
 * {@code panamax generate} runs with no download. Depends on nothing.
 */
module panamax.demo {
    exports panamax.demo;
}
