package panamax.api.plan;

/** How tokens are produced. */
public enum Method {
    AUTOREGRESSIVE, SPECULATIVE
}
