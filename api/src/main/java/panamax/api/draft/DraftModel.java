package panamax.api.draft;

import java.nio.file.Path;
import panamax.api.model.AutoregressiveGraph;
import panamax.api.model.Tokenizer;
import panamax.api.tensor.Backend;

/**
 * A loaded draft model, lent to a drafter by its owner: a graph on a backend, its tokenizer, and
 * KV caches of its own planned layout. Not thread-safe.
 */
public interface DraftModel {
    /** Where it was loaded from, for messages. */
    Path directory();

    AutoregressiveGraph graph();

    Backend backend();

    Tokenizer tokenizer();

    /** Rows of its logits. */
    int vocabSize();

    /** New, empty caches of {@code rows} rows under the draft model's own KV plan; owned by the caller. */
    RowCaches openCaches(int rows);
}
