package panamax.server;

import java.time.Duration;

/**
 * Where and how the HTTP server listens.
 *
 * @param host          the address to bind (loopback unless told otherwise)
 * @param port          the port; 0 picks a free one
 * @param apiKey        the key every {@code /v1} call must present as {@code Authorization: Bearer KEY}, or null for none
 * @param maxBodyBytes  the largest request body accepted; larger ones get 413
 * @param drainTimeout  how long running streams may take to finish on shutdown
 * @param keepAlive     how often a stream with nothing to send writes an SSE comment (to notice a client that went away)
 */
public record ServerOptions(String host, int port, String apiKey, int maxBodyBytes, Duration drainTimeout, Duration keepAlive) {
    /** 4 MiB. */
    public static final int DEFAULT_MAX_BODY_BYTES = 4 << 20;

    public ServerOptions {
        if (host == null || host.isBlank()) throw new IllegalArgumentException("host: expected an address, found '" + host + "'");
        if (port < 0 || port > 65535) throw new IllegalArgumentException("port: expected 0 to 65535, found " + port);
        if (apiKey != null && apiKey.isBlank()) throw new IllegalArgumentException("api key: must not be blank");
        if (maxBodyBytes < 1024) throw new IllegalArgumentException("max body: expected at least 1024 bytes, found " + maxBodyBytes);
    }

    /** Loopback, port 8080, no key, 4 MiB bodies, 30 s to drain, a keep-alive comment each second. */
    public static ServerOptions defaults() {
        return new ServerOptions("127.0.0.1", 8080, null, DEFAULT_MAX_BODY_BYTES, Duration.ofSeconds(30), Duration.ofSeconds(1));
    }

    public ServerOptions withHost(String h) {
        return new ServerOptions(h, port, apiKey, maxBodyBytes, drainTimeout, keepAlive);
    }

    public ServerOptions withPort(int p) {
        return new ServerOptions(host, p, apiKey, maxBodyBytes, drainTimeout, keepAlive);
    }

    public ServerOptions withApiKey(String key) {
        return new ServerOptions(host, port, key, maxBodyBytes, drainTimeout, keepAlive);
    }

    public ServerOptions withMaxBodyBytes(int bytes) {
        return new ServerOptions(host, port, apiKey, bytes, drainTimeout, keepAlive);
    }

    public ServerOptions withDrainTimeout(Duration d) {
        return new ServerOptions(host, port, apiKey, maxBodyBytes, d, keepAlive);
    }
}
