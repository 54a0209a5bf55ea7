package panamax.bench.server;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The benchmark's HTTP/1.1 client: blocking sockets (TCP_NODELAY), the chunked SSE body read on the calling
 * thread and cut into lines as the bytes arrive. The clients share the server's two cores, so what they spend
 * per token is charged to the server: the JDK's {@code HttpClient} hands every chunk from its selector thread
 * through an executor and a queue to the reading thread (three thread hops per token, visible in a CPU profile as
 * much CPU as the responder's), where a blocking read costs one wake-up. curl, which {@code
 * scripts/serve-smoke.sh} drives, reads the same way.
 *
 * <p>Connections are kept alive between requests and reused, as the OpenAI SDK's connection pool does, unless
 * {@code reconnect} asks for a new connection per request ({@code Connection: close}). A connection is taken
 * back only after a whole, well-framed 2xx response the server did not mark {@code Connection: close}; a pooled
 * connection the server closed while it was idle is replaced once, transparently, before any byte of an answer.
 */
final class LoopbackSseClient implements AutoCloseable {
    /** Takes the response body's lines; may fail on one (the stream is abandoned). */
    @FunctionalInterface
    interface Lines {
        void accept(String line) throws IOException;
    }

    /** A non-2xx answer, with the body the server sent. */
    static final class HttpStatusException extends IOException {
        HttpStatusException(int status, String body) {
            super("HTTP " + status + ": " + body);
        }
    }

    /** A reused connection that ended before the answer's first byte: the server closed it while idle. */
    private static final class StaleConnectionException extends IOException {
        StaleConnectionException(String what) {
            super(what);
        }
    }

    private record Connection(Socket socket, InputStream in, OutputStream out) {
        void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing a connection we give up on: nothing left to save
            }
        }
    }

    private final String host;
    private final int port;
    private final boolean reconnect;
    private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
    private final AtomicInteger opened = new AtomicInteger();

    /** A client that keeps connections alive. */
    LoopbackSseClient(String host, int port) {
        this(host, port, false);
    }

    /** With {@code reconnect}, every request opens its own connection and asks the server to close it. */
    LoopbackSseClient(String host, int port, boolean reconnect) {
        this.host = host;
        this.port = port;
        this.reconnect = reconnect;
    }

    /** How many connections this client has opened so far. */
    int connectionsOpened() {
        return opened.get();
    }

    /**
     * POSTs {@code json} to {@code path} and hands every line of the response body (without its line
     * ending) to {@code lines} as soon as it is complete. Returns when the server ends the body.
     *
     * @throws HttpStatusException when the status is not 2xx
     */
    void post(String path, String json, Lines lines) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        Connection pooled = reconnect ? null : idle.pollFirst();
        if (pooled != null) {
            try {
                exchange(pooled, path, body, lines);
                return;
            } catch (StaleConnectionException e) {
                // the server dropped it while it sat in the pool; nothing of this request was answered
            }
        }
        exchange(open(), path, body, lines);
    }

    private Connection open() throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), 10_000);
            opened.incrementAndGet();
            return new Connection(socket, new BufferedInputStream(socket.getInputStream(), 16 * 1024), socket.getOutputStream());
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** One request and its whole answer on {@code c}; the connection goes back to the pool or is closed. */
    private void exchange(Connection c, String path, byte[] body, Lines lines) throws IOException {
        boolean reusable = false;
        try {
            String head = "POST " + path + " HTTP/1.1\r\nHost: " + host + ":" + port + "\r\nContent-Type: application/json\r\n"
                    + "Accept: text/event-stream\r\nContent-Length: " + body.length + "\r\n" + (reconnect ? "Connection: close\r\n" : "") + "\r\n";
            String status;
            try {
                c.out().write(head.getBytes(StandardCharsets.US_ASCII));
                c.out().write(body);
                c.out().flush();
                status = asciiLine(c.in());
            } catch (java.net.SocketException e) {
                throw new StaleConnectionException("the connection failed before an answer: " + e.getMessage());
            }
            if (status == null) throw new StaleConnectionException("the server closed the connection before answering");
            if (!status.startsWith("HTTP/1.")) throw new IOException("not an HTTP/1.x response: " + status);
            int code = Integer.parseInt(status.substring(9, 12));
            boolean chunked = false, close = !status.startsWith("HTTP/1.1");
            long length = -1;
            for (String h; (h = asciiLine(c.in())) != null && !h.isEmpty(); ) {
                int colon = h.indexOf(':');
                if (colon < 0) continue;
                String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT), value = h.substring(colon + 1).trim();
                if (name.equals("transfer-encoding")) chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                if (name.equals("content-length")) length = Long.parseLong(value);
                if (name.equals("connection") && value.toLowerCase(Locale.ROOT).contains("close")) close = true;
            }
            if (code / 100 != 2) {
                ByteArrayOutputStream error = new ByteArrayOutputStream();
                readBody(c.in(), chunked, length, error::write);
                throw new HttpStatusException(code, error.toString(StandardCharsets.UTF_8));
            }
            LineSplitter splitter = new LineSplitter(lines);
            readBody(c.in(), chunked, length, splitter::accept);
            splitter.finish();
            // a body that ran until the server closed cannot be followed by another answer
            reusable = !reconnect && !close && (chunked || length >= 0);
        } finally {
            if (reusable) idle.addFirst(c); else c.close();
        }
    }

    /** Closes the connections kept alive. */
    @Override
    public void close() {
        for (Connection c; (c = idle.pollFirst()) != null; ) c.close();
    }

    @FunctionalInterface
    private interface Bytes {
        void accept(byte[] b, int off, int len) throws IOException;
    }

    /** The body: chunks until the zero-size one, or {@code length} bytes, or (neither) until the server closes. */
    private static void readBody(InputStream in, boolean chunked, long length, Bytes sink) throws IOException {
        byte[] buf = new byte[8192];
        if (!chunked) {
            long left = length < 0 ? Long.MAX_VALUE : length;
            while (left > 0) {
                int n = in.read(buf, 0, (int) Math.min(buf.length, left));
                if (n < 0) break;
                sink.accept(buf, 0, n);
                left -= n;
            }
            return;
        }
        while (true) {
            String size = asciiLine(in);
            if (size == null) throw new IOException("the server closed the connection inside a chunked body");
            int semicolon = size.indexOf(';');
            long left = Long.parseLong((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
            if (left == 0) {
                while (true) { // trailers, up to the blank line
                    String trailer = asciiLine(in);
                    if (trailer == null || trailer.isEmpty()) return;
                }
            }
            while (left > 0) {
                int n = in.read(buf, 0, (int) Math.min(buf.length, left));
                if (n < 0) throw new IOException("the server closed the connection inside a chunk");
                sink.accept(buf, 0, n);
                left -= n;
            }
            String end = asciiLine(in);
            if (end == null || !end.isEmpty()) throw new IOException("a chunk did not end with CRLF");
        }
    }

    /** A header-section line without its CRLF, or null at the end of the stream. */
    private static String asciiLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder(64);
        for (int c; (c = in.read()) >= 0; ) {
            if (c == '\n') {
                int n = line.length();
                if (n > 0 && line.charAt(n - 1) == '\r') line.setLength(n - 1);
                return line.toString();
            }
            line.append((char) c);
        }
        return line.isEmpty() ? null : line.toString();
    }

    /** UTF-8 bytes to lines ending in LF (a CR before it dropped), whatever the chunk boundaries. */
    private static final class LineSplitter {
        private final Lines lines;
        private final ByteArrayOutputStream pending = new ByteArrayOutputStream(256);

        LineSplitter(Lines lines) {
            this.lines = lines;
        }

        void accept(byte[] b, int off, int len) throws IOException {
            int start = off;
            for (int i = off; i < off + len; i++) {
                if (b[i] != '\n') continue;
                pending.write(b, start, i - start);
                emit();
                start = i + 1;
            }
            pending.write(b, start, off + len - start);
        }

        void finish() throws IOException {
            if (pending.size() > 0) emit();
        }

        private void emit() throws IOException {
            byte[] bytes = pending.toByteArray();
            int n = bytes.length;
            if (n > 0 && bytes[n - 1] == '\r') n--;
            lines.accept(new String(bytes, 0, n, StandardCharsets.UTF_8));
            pending.reset();
        }
    }
}
