/** The backend conformance suite (TCK). */
module panamax.backend.tck {
    requires panamax.api;
}
