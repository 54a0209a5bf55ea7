package panamax.app.cli;

import java.io.Console;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * When {@code generate} and {@code chat} draw progress bars on standard error: {@code auto} only
 * when standard error is a terminal (so logs and pipes get no carriage-return noise), or always, or
 * never. Standard output never carries them.
 */
enum ProgressMode {
    AUTO, ALWAYS, NEVER;

    /** Whether bars are drawn in this process. */
    boolean enabled() {
        return switch (this) {
            case ALWAYS -> true;
            case NEVER -> false;
            case AUTO -> stderrIsTerminal();
        };
    }

    /**
     * On Linux, whether file descriptor 2 is a terminal device; elsewhere (no {@code /proc}) the
     * best the JDK can tell, whether the process has an interactive console.
     */
    static boolean stderrIsTerminal() {
        Path fd2 = Path.of("/proc/self/fd/2");
        try {
            String target = Files.readSymbolicLink(fd2).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            Console console = System.console();
            return console != null && console.isTerminal();
        }
    }
}
