package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.Ops;

/** Each test on a Java backend of its own (default options), closed after; a test must leave no tensor storage held. */
abstract class FreshBackendTest {
    protected Backend backend;
    protected Ops ops;

    @BeforeEach
    void start() {
        backend = new JavaBackendProvider().create(BackendOptions.defaults());
        ops = backend.ops();
    }

    @AfterEach
    void stop() {
        assertEquals(0, backend.memoryStats().activeBytes(), "a test leaked tensor storage");
        backend.close();
    }
}
