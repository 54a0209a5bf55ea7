module panamax.bench {
    requires panamax.api;
}
