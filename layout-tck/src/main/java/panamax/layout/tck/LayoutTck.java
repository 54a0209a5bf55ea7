package panamax.layout.tck;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import panamax.api.kv.KvLayout;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.LayoutCapabilities;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;

/**
 * The layout conformance suite. A subclass names its provider and the parameter sets to run, each
 * with the reference rule it follows ({@link LayoutCase}); the suite then drives the layout and a
 * plain list model through generated operation sequences — appends, prefill cohorts merged into the
 * batch, filters, extracts, trims, speculative rounds committed or rolled back per row, row
 * re-alignment — and after every step checks offsets, padding, every stored token (exact, or within
 * the stored codec's bound), the mask as the positions each query sees, attention against a
 * float64 softmax, and the bytes the layout holds; after every sequence the backend must be back at
 * its baseline. Operations are generated only when the provider's {@link LayoutCapabilities}
 * declare them; each capability also has its own test, which reports an undeclared capability as a
 * JUnit assumption naming it. The codecs stored are the TCK's own ({@link TestCodecs}).
 *
 * <p>Runs on the {@code java} backend unless {@code -Dpanamax.test.backend=ID} names another.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class LayoutTck {
    private Backend backend;

    /** The layout under test. */
    protected abstract KvLayoutProvider provider();

    /** The parameter sets to run, each with the reference rule it must follow. */
    protected abstract Gen<LayoutCase> cases();

    /** Sequences the main property runs (at least 500 for a layout that claims conformance). */
    protected int sequences() {
        return 500;
    }

    /**
     * An extra check after every step on the main batch, for what only the layout's own tests can
     * see (e.g. its allocated capacity); {@code heldBytes} is what the backend reports the layout holds.
     */
    protected void checkStorage(KvLayout layout, long heldBytes) {
    }

    /** The codecs the main property stores: exact, lossy, and one with rotated values when the layout hosts them. */
    protected List<StoredCodec> codecs() {
        List<StoredCodec> codecs = new ArrayList<>(List.of(TestCodecs.EXACT, TestCodecs.LOSSY));
        if (provider().capabilities().hostsRotatedValues()) codecs.add(TestCodecs.ROTATED);
        return codecs;
    }

    @BeforeAll
    void startBackend() {
        backend = testBackend();
    }

    @AfterAll
    void stopBackend() {
        if (backend != null) backend.close();
    }

    /**
     * The backend the kits run on, owned by the caller: {@code java} on two threads unless
     * {@code -Dpanamax.test.backend=ID} names another (e.g. {@code mlx}).
     */
    public static Backend testBackend() {
        String id = System.getProperty("panamax.test.backend", "");
        String wanted = id.isBlank() ? "java" : id;
        List<String> found = new ArrayList<>();
        for (BackendProvider p : ServiceLoader.load(BackendProvider.class)) {
            found.add(p.id());
            if (!p.id().equals(wanted)) continue;
            p.unavailableReason().ifPresent(reason -> {
                throw new AssertionError("backend " + wanted + " unavailable: " + reason);
            });
            return p.create(new BackendOptions(2, Optional.empty(), Map.of()));
        }
        throw new AssertionError("no backend " + wanted + " on the class path; found " + found);
    }

    private LayoutCapabilities caps() {
        return provider().capabilities();
    }

    private void run(List<Sequences.Kind> kinds, Gen<StoredCodec> codecs, Gen<LayoutCase> cases, int examples) {
        KvLayoutProvider provider = provider();
        Gen<LayoutSetup> setups = cases.zip(codecs, Generate.range(1, 3), (c, codec, rows) -> new LayoutSetup(c, codec, rows, 32));
        TckSeed.qt().withExamples(examples).forAll(setups, Sequences.sequences(kinds, 16)).checkAssert((setup, ops) ->
                new LayoutHarness(backend, provider, setup, this::checkStorage).runAndClose(ops));
    }

    private void runOnly(int examples, Sequences.Kind... kinds) {
        run(List.of(kinds), Generate.pick(codecs()), cases(), examples);
    }

    @Test
    void everyDeclaredOperationSequenceKeepsTheLayoutEqualToTheReference() {
        run(Sequences.Kind.declaredBy(caps()), Generate.pick(codecs()), cases(), sequences());
    }

    @Test
    void speculativeRoundsCommitOrRollBackPerRow() {
        runOnly(40, Sequences.Kind.APPEND, Sequences.Kind.ROUND);
    }

    @Test
    void prefillCohortsFiltersAndExtractsFollowTheReference() {
        assumeTrue(caps().batchable(), "layout " + provider().id() + " does not declare batchable: prefill cohorts, filter, merge and extract not tested");
        runOnly(40, Sequences.Kind.APPEND, Sequences.Kind.PREFILL, Sequences.Kind.FILTER, Sequences.Kind.EXTRACT);
    }

    @Test
    void trimRemovesTheLastTokensWhileTrimmable() {
        assumeTrue(caps().trimmable(), "layout " + provider().id() + " does not declare trimmable: trim not tested");
        runOnly(40, Sequences.Kind.APPEND, Sequences.Kind.TRIM, Sequences.Kind.ROUND);
    }

    @Test
    void alignRowsReLaysEveryRowAtItsPadding() {
        assumeTrue(caps().alignsRows(), "layout " + provider().id() + " does not declare alignsRows: alignRows not tested");
        runOnly(40, Sequences.Kind.APPEND, Sequences.Kind.ALIGN, Sequences.Kind.ROUND);
    }

    @Test
    void captureShowsEveryStoredTokenAtItsPosition() {
        assumeTrue(caps().capturable(), "layout " + provider().id()
                + " does not declare capturable: stored tokens, positions and masks are not checked, only attention with exact codecs");
        runOnly(40, Sequences.Kind.APPEND, Sequences.Kind.ROUND);
    }

    @Test
    void aCodecWithRotatedValuesAttendsThroughTheLayout() {
        assumeTrue(caps().hostsRotatedValues(), "layout " + provider().id() + " does not declare hostsRotatedValues: rotated-value codecs not tested");
        run(Sequences.Kind.declaredBy(caps()), Generate.constant(TestCodecs.ROTATED), cases(), 40);
    }

    @Test
    void rowsMoveIntoTheCodecAtTheirConversionOffset() {
        assumeTrue(caps().convertsCodec(), "layout " + provider().id() + " does not declare convertsCodec: conversion not tested");
        Gen<LayoutCase> all = cases();
        Gen<LayoutCase> converting = random -> {
            for (int tries = 0; tries < 1000; tries++) {
                LayoutCase c = all.generate(random);
                if (c.convertAt() > 0) return c;
            }
            throw new AssertionError("layout " + provider().id() + " declares convertsCodec but cases() gave no case with convertAt > 0 in 1000 draws");
        };
        run(Sequences.Kind.declaredBy(caps()), Generate.constant(TestCodecs.LOSSY), converting, 40);
    }
}
