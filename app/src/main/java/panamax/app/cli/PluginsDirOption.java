package panamax.app.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code --plugins DIR} option shared by subcommands. Without it, the directory is the
 * {@code panamax.plugins} system property (the launchers set it) or {@code ./plugins}; a default
 * directory that does not exist simply holds no plugins, an explicit one must exist.
 */
public final class PluginsDirOption {
    /** System property the launchers use to pass the default plugins directory. */
    public static final String PROPERTY = "panamax.plugins";

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--plugins", paramLabel = "DIR",
            description = "folder of plugin jars to load besides the built-in modules (default: the launcher's plugins/ folder, else ./plugins)")
    Path directory;

    /** The directory to scan, or empty when the default one does not exist. */
    Optional<Path> resolve() {
        if (directory != null) {
            if (!Files.isDirectory(directory)) {
                throw new ParameterException(spec.commandLine(), "--plugins " + directory + ": expected a directory of plugin jars, found "
                        + (Files.exists(directory) ? "a file" : "nothing at that path"));
            }
            return Optional.of(directory);
        }
        Path fallback = Path.of(System.getProperty(PROPERTY, "plugins"));
        return Files.isDirectory(fallback) ? Optional.of(fallback) : Optional.empty();
    }
}
