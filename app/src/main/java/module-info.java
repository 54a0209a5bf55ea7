/** The panamax CLI and launcher. */
module panamax.app {
    requires panamax.engine;
}
