package panamax.demo;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * Where the bundled demo model's Hugging Face directory is on disk.
 *
 * <p>Run from the source tree (classes in a folder) the resources are that directory already. Run
 * from a jar, the files are extracted once into a cache folder keyed by the model's content, so
 * the weights can be memory-mapped: {@code $PANAMAX_CACHE}, else {@code $XDG_CACHE_HOME/panamax},
 * else {@code ~/.cache/panamax}, else the temporary directory. Extraction writes a private folder
 * and renames it into place, so a killed or concurrent run never leaves a half-written model.
 */
public final class DemoModel {
    /** The files of the directory, as a model loader reads them. */
    public static final List<String> FILES = List.of("config.json", "generation_config.json", "model.safetensors",
            "tokenizer.json", "tokenizer_config.json");
    /** A short name for messages. */
    public static final String NAME = "panamax-demo";
    private static final String RESOURCES = "model/";

    private DemoModel() {
    }

    /**
     * The model directory, extracting it first when it lives in a jar.
     *
     * @throws UncheckedIOException when the resources are missing or cannot be extracted
     */
    public static Path directory() {
        URL config = DemoModel.class.getResource(RESOURCES + "config.json");
        if (config == null) throw new UncheckedIOException(new IOException("the demo model's resources are missing from module panamax.demo"));
        if (config.getProtocol().equals("file")) {
            try {
                return Path.of(config.toURI()).getParent();
            } catch (URISyntaxException e) {
                throw new UncheckedIOException(new IOException("unreadable resource location " + config, e));
            }
        }
        return extractInto(cacheRoot());
    }

    /** Extracts (once per content) into a folder under {@code root} and returns it. */
    static Path extractInto(Path root) {
        Path target = root.resolve(NAME);
        try {
            target = root.resolve(NAME + "-" + contentKey());
            if (complete(target)) return target;
            deleteQuietly(target); // a folder someone emptied in part: replaced by a whole copy
            Files.createDirectories(target.getParent());
            Path staging = Files.createTempDirectory(target.getParent(), NAME + ".partial-");
            try {
                for (String file : FILES) {
                    try (InputStream in = open(file)) {
                        Files.copy(in, staging.resolve(file));
                    }
                }
                try {
                    Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
                } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException | java.nio.file.DirectoryNotEmptyException e) {
                    if (!complete(target)) throw e; // another process won the race with a whole copy: use it
                }
            } finally {
                deleteQuietly(staging);
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract the bundled demo model into " + target + " (" + e + ")", e);
        }
    }

    /** A key that changes whenever any bundled file changes: a hash of their bytes. */
    private static String contentKey() throws IOException {
        java.security.MessageDigest sha;
        try {
            sha = java.security.MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] buffer = new byte[1 << 16];
        for (String file : FILES) {
            try (InputStream in = open(file)) {
                for (int n; (n = in.read(buffer)) > 0; ) sha.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(sha.digest(), 0, 8);
    }

    private static boolean complete(Path dir) {
        return FILES.stream().allMatch(f -> Files.isRegularFile(dir.resolve(f)));
    }

    private static InputStream open(String file) throws IOException {
        InputStream in = DemoModel.class.getResourceAsStream(RESOURCES + file);
        if (in == null) throw new IOException("resource " + RESOURCES + file + " is missing from module panamax.demo");
        return in;
    }

    private static Path cacheRoot() {
        Optional<String> explicit = Optional.ofNullable(System.getenv("PANAMAX_CACHE")).filter(s -> !s.isBlank());
        if (explicit.isPresent()) return Path.of(explicit.get());
        Optional<String> xdg = Optional.ofNullable(System.getenv("XDG_CACHE_HOME")).filter(s -> !s.isBlank());
        if (xdg.isPresent()) return Path.of(xdg.get(), "panamax");
        String home = System.getProperty("user.home");
        if (home != null && !home.isBlank() && Files.isWritable(Path.of(home))) return Path.of(home, ".cache", "panamax");
        return Path.of(System.getProperty("java.io.tmpdir"), "panamax-cache");
    }

    private static void deleteQuietly(Path dir) {
        if (!Files.exists(dir)) return;
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) Files.deleteIfExists(f);
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // a stray staging folder is harmless: its name marks it partial and nothing reads it
        }
    }
}
