package panamax.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@code scripts/serve-smoke.sh} against the real distribution: {@code panamax serve} in a
 * child process driven by curl (health, models, an API key refusal, a chat completion, a streamed
 * completion ending in {@code data: [DONE]}), then SIGTERM and exit code 0.
 */
class ServeSmokeIT {
    @Test
    void curlDrivesTheServedDemoModelAndSigtermExitsCleanly(@TempDir Path work) throws Exception {
        Assumptions.assumeTrue(onPath("curl"), "curl is not installed: the smoke script drives the server with it");
        Path script = Launcher.root().resolve("scripts/serve-smoke.sh");
        assertTrue(Files.isRegularFile(script), script + " is missing");
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Launcher.Result r = Launcher.run(script, work, Map.of(), Launcher.dist().resolve("bin/panamax").toString(), Integer.toString(port));
        assertEquals(0, r.exit(), "serve-smoke.sh failed:\n" + r.out() + "\n" + r.err());
        assertTrue(r.out().contains("OK: exit code 0 after SIGTERM"), r.out());
        assertTrue(r.out().contains("data: [DONE]"), r.out());
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) return true;
        }
        return false;
    }
}
