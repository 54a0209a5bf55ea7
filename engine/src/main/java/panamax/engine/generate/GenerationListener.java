package panamax.engine.generate;

/**
 * Receives a generation as it happens, on the generating thread; every method defaults to doing
 * nothing. Rows are numbered in request order.
 */
public interface GenerationListener {
    /** A listener that ignores everything. */
    GenerationListener NONE = new GenerationListener() {
    };

    /** {@code done} of {@code total} prompt columns have been prefilled. */
    default void onPrefill(int done, int total) {
    }

    /** Row {@code row} produced token {@code id}. */
    default void onToken(int row, int id) {
    }

    /** Row {@code row}'s text grew by {@code delta}: whole characters, never part of a stop string. */
    default void onText(int row, String delta) {
    }
}
