package panamax.kv.layouts;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import panamax.api.kv.KvLayout;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.LayoutCapabilities;
import panamax.api.kv.LayoutContext;
import panamax.api.kv.PluginParams;
import panamax.api.tensor.Backend;
import panamax.layout.tck.LayoutCase;
import panamax.layout.tck.LayoutHarness;
import panamax.layout.tck.LayoutOp;
import panamax.layout.tck.LayoutSetup;
import panamax.layout.tck.TestCodecs;

/**
 * The layout TCK's harness fails a layout that breaks the contract in one small way: the {@code full}
 * layout behind a proxy that changes one method, driven through a short fixed sequence.
 */
class LayoutTckCatchesBrokenLayoutsTest {
    private static Backend backend;

    @BeforeAll
    static void start() {
        backend = Plugins.backend();
    }

    @AfterAll
    static void stop() {
        backend.close();
    }

    /** What the broken layout does instead of {@code method}; null to delegate. */
    private interface Breakage {
        Object apply(KvLayout real, String method, Object[] args);
    }

    private static KvLayoutProvider broken(Breakage breakage) {
        KvLayoutProvider full = new FullLayoutProvider();
        return new KvLayoutProvider() {
            public String id() {
                return "broken-full";
            }

            public LayoutCapabilities capabilities() {
                return full.capabilities();
            }

            public KvLayout create(PluginParams params, LayoutContext context) {
                KvLayout real = full.create(params, context);
                return (KvLayout) Proxy.newProxyInstance(KvLayout.class.getClassLoader(), new Class<?>[] {KvLayout.class}, (p, m, args) -> {
                    Object replaced = breakage.apply(real, m.getName(), args);
                    if (replaced != null) return replaced;
                    try {
                        return m.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
            }
        };
    }

    private static void assertCaught(Breakage breakage, LayoutOp... ops) {
        LayoutSetup setup = new LayoutSetup(LayoutCase.keepingAll(Map.of()), TestCodecs.EXACT, 2, 32);
        assertThrows(AssertionError.class, () -> new LayoutHarness(backend, broken(breakage), setup, (l, held) -> { })
                .runAndClose(List.of(ops)));
        // the real layout passes the same sequence
        new LayoutHarness(backend, new FullLayoutProvider(), setup, (l, held) -> { }).runAndClose(List.of(ops));
    }

    @Test
    void keysAndValuesSwappedOnAppendAreCaught() {
        assertCaught((real, m, args) -> {
            if (!m.equals("append")) return null;
            real.append((panamax.api.tensor.Tensor) args[1], (panamax.api.tensor.Tensor) args[0]);
            return Boolean.TRUE; // any non-null: handled
        }, new LayoutOp.Append(1));
    }

    @Test
    void aTrimThatRemovesOneTokenFewerThanItReportsIsCaught() {
        assertCaught((real, m, args) -> {
            if (!m.equals("trim")) return null;
            int n = (int) args[0];
            real.trim(n - 1);
            return Math.min(n, real.offsets()[0] + 1);
        }, new LayoutOp.Append(4), new LayoutOp.Trim(1));
    }

    @Test
    void aRollbackThatKeepsTheWholeRoundIsCaught() {
        int seed = 0;
        while (new Random(seed * 31L).nextInt(4) == 3) seed++; // row 0 keeps fewer than the 3 appended
        assertCaught((real, m, args) -> {
            if (!m.equals("rollback")) return null;
            real.commitRound();
            return Boolean.TRUE;
        }, new LayoutOp.Append(2), new LayoutOp.Round(2, false, seed, false));
    }

    @Test
    void ropeOffsetsOneAheadAreCaught() {
        assertCaught((real, m, args) -> {
            if (!m.equals("ropeOffsets")) return null;
            return java.util.Arrays.stream(real.offsets()).map(o -> o + 1).toArray();
        }, new LayoutOp.Append(1));
    }

    @Test
    void aLayoutThatKeepsItsPlanesAfterCloseIsCaught() {
        List<KvLayout> leaked = new java.util.ArrayList<>();
        try {
            assertCaught((real, m, args) -> {
                if (!m.equals("close")) return null;
                leaked.add(real);
                return Boolean.TRUE;
            }, new LayoutOp.Append(2));
        } finally {
            leaked.forEach(KvLayout::close);
        }
    }
}
