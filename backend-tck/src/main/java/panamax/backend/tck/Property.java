package panamax.backend.tck;

import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.quicktheories.QuickTheory;
import org.quicktheories.api.QuadConsumer;
import org.quicktheories.api.TriConsumer;
import org.quicktheories.core.Gen;

/**
 * A QuickTheories property run once per pass of {@link PropertySeeds#passes()} (by default this
 * JVM's drawn seed, then the fixed one), {@code examples} cases each (scaled by
 * {@code -Dpanamax.qt.examplesPercent}). A failure's message starts
 * with the pass's seed and the flag that replays it, then QuickTheories' report (smallest falsifying
 * values). Written as QuickTheories is: {@code Property.examples(60).forAll(gens...).checkAssert(...)}.
 */
public final class Property {
    private final int examples;

    private Property(int examples) {
        if (examples < 1) throw new IllegalArgumentException("a property needs at least one example, found " + examples);
        this.examples = examples;
    }

    /** A property of {@code examples} cases per pass. */
    public static Property examples(int examples) {
        return new Property(examples);
    }

    public <A> One<A> forAll(Gen<A> a) {
        return check -> run(qt -> qt.forAll(a).checkAssert(check));
    }

    public <A, B> Two<A, B> forAll(Gen<A> a, Gen<B> b) {
        return check -> run(qt -> qt.forAll(a, b).checkAssert(check));
    }

    public <A, B, C> Three<A, B, C> forAll(Gen<A> a, Gen<B> b, Gen<C> c) {
        return check -> run(qt -> qt.forAll(a, b, c).checkAssert(check));
    }

    public <A, B, C, D> Four<A, B, C, D> forAll(Gen<A> a, Gen<B> b, Gen<C> c, Gen<D> d) {
        return check -> run(qt -> qt.forAll(a, b, c, d).checkAssert(check));
    }

    private void run(Consumer<QuickTheory> theory) {
        for (PropertySeeds.Pass pass : PropertySeeds.passes()) {
            try {
                theory.accept(QuickTheory.qt().withExamples(PropertySeeds.examples(examples)).withShrinkCycles(200)
                        .withFixedSeed(pass.seed()));
            } catch (AssertionError e) {
                AssertionError named = new AssertionError("property failed with the " + pass.describe() + ":\n" + e.getMessage(), e.getCause());
                named.setStackTrace(e.getStackTrace());
                throw named;
            }
        }
    }

    /** A property of one generated value. */
    @FunctionalInterface
    public interface One<A> {
        void checkAssert(Consumer<A> property);
    }

    /** A property of two generated values. */
    @FunctionalInterface
    public interface Two<A, B> {
        void checkAssert(BiConsumer<A, B> property);
    }

    /** A property of three generated values. */
    @FunctionalInterface
    public interface Three<A, B, C> {
        void checkAssert(TriConsumer<A, B, C> property);
    }

    /** A property of four generated values. */
    @FunctionalInterface
    public interface Four<A, B, C, D> {
        void checkAssert(QuadConsumer<A, B, C, D> property);
    }
}
