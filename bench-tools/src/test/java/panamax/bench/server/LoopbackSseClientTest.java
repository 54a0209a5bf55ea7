package panamax.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The benchmark's socket client against a scripted HTTP/1.1 peer: lines come out whole whatever the chunk
 * boundaries (a chunk ending mid-line or mid-character, chunk extensions, trailers), plain bodies by length or
 * until close, a non-2xx answer fails with its status and body, and connections are reused only when that is safe.
 */
class LoopbackSseClientTest {

    /** Reads one request (head and body) from {@code in}; null when the client closed the connection instead. */
    private static String readRequest(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) return null;
            head.append((char) c);
        }
        int length = 0;
        for (String line : head.toString().split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) length = Integer.parseInt(line.substring(15).trim());
        }
        return head + new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }

    private static final String EVENT = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\ndata:1\r\n0\r\n\r\n";

    /**
     * A peer that accepts connections one after another and answers each request on a connection with {@link #EVENT};
     * after {@code requestsPerConnection} answers it closes that connection. Returns the requests it saw, by connection.
     */
    private static List<List<String>> keepAlivePeer(ServerSocket server, int connections, int requestsPerConnection) {
        List<List<String>> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        Thread.ofPlatform().start(() -> {
            for (int n = 0; n < connections; n++) {
                try (Socket s = server.accept()) {
                    List<String> mine = new ArrayList<>();
                    seen.add(mine);
                    for (int r = 0; r < requestsPerConnection; r++) {
                        String request = readRequest(s.getInputStream());
                        if (request == null) break;
                        mine.add(request);
                        s.getOutputStream().write(ascii(EVENT));
                        s.getOutputStream().flush();
                    }
                } catch (IOException e) {
                    return;
                }
            }
        });
        return seen;
    }

    @Test
    void aConnectionIsKeptAliveAcrossRequests() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
             LoopbackSseClient client = new LoopbackSseClient("127.0.0.1", server.getLocalPort())) {
            List<List<String>> seen = keepAlivePeer(server, 1, 3);
            for (int r = 0; r < 3; r++) {
                List<String> lines = new ArrayList<>();
                client.post("/v1/completions", "{}", lines::add);
                assertEquals(List.of("data:1"), lines);
            }
            assertEquals(1, client.connectionsOpened());
            assertEquals(3, seen.get(0).size());
            assertTrue(seen.get(0).stream().noneMatch(q -> q.contains("Connection: close")), seen.toString());
        }
    }

    @Test
    void aPooledConnectionTheServerClosedIsReplacedOnce() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
             LoopbackSseClient client = new LoopbackSseClient("127.0.0.1", server.getLocalPort())) {
            List<List<String>> seen = keepAlivePeer(server, 2, 1); // closes each connection after one answer
            for (int r = 0; r < 2; r++) {
                List<String> lines = new ArrayList<>();
                client.post("/v1/completions", "{}", lines::add);
                assertEquals(List.of("data:1"), lines);
            }
            assertEquals(2, client.connectionsOpened());
            assertEquals(2, seen.size());
        }
    }

    @Test
    void anAnswerMarkedCloseOrEndingAtCloseIsNotReused() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
             LoopbackSseClient client = new LoopbackSseClient("127.0.0.1", server.getLocalPort())) {
            Thread peer = Thread.ofPlatform().start(() -> {
                String[] answers = {"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\na\n",
                        "HTTP/1.1 200 OK\r\n\r\nb\n"};
                for (String answer : answers) {
                    try (Socket s = server.accept()) {
                        readRequest(s.getInputStream());
                        s.getOutputStream().write(ascii(answer));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            List<String> lines = new ArrayList<>();
            client.post("/v1/completions", "{}", lines::add);
            client.post("/v1/completions", "{}", lines::add);
            peer.join();
            assertEquals(List.of("a", "b"), lines);
            assertEquals(2, client.connectionsOpened());
        }
    }

    /** Serves one connection: reads the request head and body, then writes {@code answer}'s byte pieces flushing each. */
    private static List<String> serve(List<byte[]> answer, AtomicReference<String> request) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread peer = Thread.ofPlatform().start(() -> {
                try (Socket s = server.accept()) {
                    InputStream in = s.getInputStream();
                    StringBuilder head = new StringBuilder();
                    while (!head.toString().endsWith("\r\n\r\n")) head.append((char) in.read());
                    int length = 0;
                    for (String line : head.toString().split("\r\n")) {
                        if (line.toLowerCase().startsWith("content-length:")) length = Integer.parseInt(line.substring(15).trim());
                    }
                    request.set(head + new String(in.readNBytes(length), StandardCharsets.UTF_8));
                    OutputStream out = s.getOutputStream();
                    for (byte[] piece : answer) {
                        out.write(piece);
                        out.flush();
                    }
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            List<String> lines = new ArrayList<>();
            try {
                new LoopbackSseClient("127.0.0.1", server.getLocalPort(), true).post("/v1/completions", "{\"prompt\":\"é\"}", lines::add);
            } finally {
                peer.join();
            }
            return lines;
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void chunkedEventsSplitAnywhereComeOutAsWholeLines() throws Exception {
        byte[] text = ascii("data: {\"text\":\"héllo\"}\n\ndata: [DONE]\n\n");
        // cut inside the two-byte é and inside the first line; one chunk with an extension; a trailer at the end
        int cut1 = 17, cut2 = 24;
        List<byte[]> answer = List.of(
                ascii("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"),
                ascii(Integer.toHexString(cut1) + "\r\n"), java.util.Arrays.copyOfRange(text, 0, cut1), ascii("\r\n"),
                ascii(Integer.toHexString(cut2 - cut1) + ";ext=1\r\n"), java.util.Arrays.copyOfRange(text, cut1, cut2), ascii("\r\n"),
                ascii(Integer.toHexString(text.length - cut2) + "\r\n"), java.util.Arrays.copyOfRange(text, cut2, text.length), ascii("\r\n"),
                ascii("0\r\nX-Trailer: yes\r\n\r\n"));
        AtomicReference<String> request = new AtomicReference<>();
        List<String> lines = serve(answer, request);
        assertEquals(List.of("data: {\"text\":\"héllo\"}", "", "data: [DONE]", ""), lines);
        assertTrue(request.get().startsWith("POST /v1/completions HTTP/1.1\r\n"), request.get());
        assertTrue(request.get().contains("Content-Length: 15\r\n"), request.get()); // {"prompt":"é"}: é is two bytes
        assertTrue(request.get().endsWith("{\"prompt\":\"é\"}"), request.get());
    }

    @Test
    void plainBodiesEndAtTheirLengthOrAtClose() throws Exception {
        AtomicReference<String> request = new AtomicReference<>();
        assertEquals(List.of("a", "b"), serve(List.of(ascii("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\na\r\nb")), request));
        assertEquals(List.of("a", "b"), serve(List.of(ascii("HTTP/1.1 200 OK\r\n\r\na\nb\n")), request));
    }

    @Test
    void aRefusalFailsWithItsStatusAndBody() {
        String body = "{\"error\":{\"message\":\"max_tokens: expected a positive integer\"}}";
        LoopbackSseClient.HttpStatusException e = assertThrows(LoopbackSseClient.HttpStatusException.class, () ->
                serve(List.of(ascii("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)),
                        new AtomicReference<>()));
        assertEquals("HTTP 400: " + body, e.getMessage());
    }

    @Test
    void aBodyCutInsideAChunkIsAnError() {
        IOException e = assertThrows(IOException.class, () -> serve(List.of(
                ascii("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nshort")), new AtomicReference<>()));
        assertTrue(e.getMessage().contains("inside a chunk"), e.getMessage());
    }
}
