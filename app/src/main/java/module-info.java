/** The panamax command line ({@code panamax plugins}, {@code panamax plan}) and its launcher entry point. */
module panamax.app {
    requires panamax.engine;
    requires info.picocli;
    requires com.fasterxml.jackson.databind;

    // picocli reflects on the annotated command classes.
    opens panamax.app.cli to info.picocli;
}
