package panamax.bench.engine;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import panamax.api.tensor.Backend;
import panamax.api.tensor.Ops;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.kernel.KernelFamily;

/**
 * A wall-clock breakdown of a forward pass by backend op: {@link #wrap} returns a backend whose
 * {@code ops()} and optional kernels time every call while {@link #recording} is on, keyed by the op's name and its
 * arguments' shapes and dtypes (so each weight matrix shape of a matmul is its own line). Valid for
 * eager backends, where an op's work is done when it returns (the Java backend). Borrows the backend
 * it wraps; not thread-safe (the model calls ops from one thread).
 */
final class OpTimer {
    /** Total nanoseconds and calls of one op key. */
    static final class Total {
        long nanos;
        long calls;
    }

    private final Map<String, Total> totals = new HashMap<>();
    boolean recording;

    /** A backend that delegates everything to {@code backend}, timing its ops and the kernels it hands out. */
    Backend wrap(Backend backend) {
        Ops timed = timed(Ops.class, backend.ops());
        Map<Class<?>, Optional<?>> kernels = new ConcurrentHashMap<>();
        InvocationHandler handler = (proxy, m, args) -> switch (m.getName()) {
            case "ops" -> timed;
            case "kernel" -> kernels.computeIfAbsent((Class<?>) args[0],
                    family -> backend.kernel(family.asSubclass(KernelFamily.class)).map(k -> timed(family, k)));
            default -> invoke(backend, m, args);
        };
        return (Backend) Proxy.newProxyInstance(Backend.class.getClassLoader(), new Class<?>[] {Backend.class}, handler);
    }

    /** {@code target} as a proxy of {@code type} that times its calls while {@link #recording} is on. */
    private <T> T timed(Class<T> type, Object target) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, m, args) -> {
            if (!recording || m.getDeclaringClass() == Object.class) return invoke(target, m, args);
            long start = System.nanoTime();
            Object result = invoke(target, m, args);
            Total t = totals.computeIfAbsent(key(m, args), k -> new Total());
            t.nanos += System.nanoTime() - start;
            t.calls++;
            return result;
        }));
    }

    private static Object invoke(Object target, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static String key(Method m, Object[] args) {
        StringBuilder k = new StringBuilder(m.getName());
        if (args == null) return k.toString();
        k.append('(');
        boolean first = true;
        // attention's keys and values grow by a token every step: one line for all lengths ("T")
        boolean growing = m.getName().equals("scaledDotProductAttention");
        int tensorArg = 0;
        for (Object a : args) {
            boolean kv = growing && a instanceof Tensor && tensorArg++ > 0;
            String s = switch (a) {
                case Tensor t when kv && t.rank() >= 2 -> t.dtype().name().toLowerCase(java.util.Locale.ROOT) + tokensAsT(t.shape().dims());
                case java.util.List<?> list -> describeAll(list); // matmuls, quantizedMatmuls: "16 × bf16[2048, 768]"
                case null, default -> describe(a);
            };
            if (s == null) continue;
            k.append(first ? "" : " ").append(s);
            first = false;
        }
        return k.append(')').toString();
    }

    private static String describe(Object a) {
        return switch (a) {
            case Tensor t -> t.dtype().name().toLowerCase(java.util.Locale.ROOT) + java.util.Arrays.toString(t.shape().dims());
            case QuantizedMatrix q -> "q" + q.bits() + "[" + q.rows() + ", " + q.cols() + "]";
            case null, default -> null;
        };
    }

    /** A list of operands as its distinct descriptions in first-seen order, each with its count: "bf16[2048, 4096] + 2 × bf16[2048, 512]". */
    private static String describeAll(java.util.List<?> list) {
        Map<String, Integer> counts = new java.util.LinkedHashMap<>();
        for (Object o : list) {
            String d = describe(o);
            if (d != null) counts.merge(d, 1, Integer::sum);
        }
        if (counts.isEmpty()) return null;
        StringBuilder b = new StringBuilder();
        counts.forEach((d, n) -> b.append(b.isEmpty() ? "" : " + ").append(n == 1 ? "" : n + " × ").append(d));
        return b.toString();
    }

    /** Dims with the token axis (second to last) written as T. */
    private static String tokensAsT(int[] dims) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < dims.length; i++) b.append(i == 0 ? "" : ", ").append(i == dims.length - 2 ? "T" : Integer.toString(dims[i]));
        return b.append(']').toString();
    }

    /** The recorded totals, largest first, and clears them. */
    List<Map.Entry<String, Total>> drain() {
        List<Map.Entry<String, Total>> out = new ArrayList<>(totals.entrySet());
        out.sort((a, b) -> Long.compare(b.getValue().nanos, a.getValue().nanos));
        totals.clear();
        return out;
    }
}
