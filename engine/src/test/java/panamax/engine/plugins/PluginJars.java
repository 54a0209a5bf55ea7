package panamax.engine.plugins;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.spi.ToolProvider;
import panamax.api.kv.KvCodecProvider;

/** Builds small plugin module jars at test time with the JDK's javac and jar tools. */
final class PluginJars {
    private PluginJars() {
    }

    /** Where the panamax.api module was loaded from, for the plugins' module path. */
    static Path apiLocation() {
        return KvCodecProvider.class.getModule().getLayer().configuration().findModule("panamax.api")
                .flatMap(m -> m.reference().location()).map(Path::of)
                .orElseThrow(() -> new IllegalStateException("panamax.api has no location"));
    }

    /**
     * Compiles {@code sources} (relative path to text, module-info.java included) into a modular jar,
     * against panamax.api and {@code modulePath}.
     *
     * @return the jar
     */
    static Path build(Path work, String jarName, String version, Map<String, String> sources, Path... modulePath) {
        try {
            Path src = Files.createDirectories(work.resolve(jarName + "-src"));
            Path classes = Files.createDirectories(work.resolve(jarName + "-classes"));
            List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "--module-path",
                    String.join(java.io.File.pathSeparator, java.util.stream.Stream.concat(java.util.stream.Stream.of(apiLocation()),
                            java.util.Arrays.stream(modulePath)).map(Path::toString).toList()),
                    "--module-version", version, "-proc:none"));
            for (var e : sources.entrySet()) {
                Path file = src.resolve(e.getKey());
                Files.createDirectories(file.getParent());
                Files.writeString(file, e.getValue());
                args.add(file.toString());
            }
            run("javac", args);
            Path jar = work.resolve(jarName);
            run("jar", List.of("--create", "--file", jar.toString(), "-C", classes.toString(), "."));
            return jar;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void run(String tool, List<String> args) {
        ToolProvider provider = ToolProvider.findFirst(tool).orElseThrow(() -> new IllegalStateException("no " + tool + " tool in this JDK"));
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(log, true);
        int rc = provider.run(ps, ps, args.toArray(String[]::new));
        if (rc != 0) throw new IllegalStateException(tool + " failed (" + rc + "): " + log);
    }
}
