package panamax.api.model;

/** A loaded model: its spec and graph. Owns its weights; closing it releases them. */
public interface RuntimeModel extends AutoCloseable {
    ModelSpec spec();

    AutoregressiveGraph graph();

    @Override
    void close();
}
