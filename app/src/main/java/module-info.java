/** The panamax command line ({@code panamax plugins}, {@code panamax plan}) and its launcher entry point. */
module panamax.app {
    requires panamax.engine;
    requires panamax.server;
    requires panamax.demo;
    requires info.picocli;
    requires com.fasterxml.jackson.databind;

    // `panamax bench NAME` runs the JDK tool panamax-bench-NAME that some module provides.
    uses java.util.spi.ToolProvider;

    // picocli reflects on the annotated command classes.
    opens panamax.app.cli to info.picocli;
}
