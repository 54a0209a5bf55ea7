package panamax.backend.java.tck;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Set;
import panamax.api.tensor.Ops;

/**
 * An {@link Ops} that runs the interface's default methods for the named ops (what a backend that
 * does not override them computes) and forwards every other call to the real backend's ops.
 */
final class ComposedDefaults {
    private ComposedDefaults() {
    }

    static Ops of(Ops real, Set<String> composed) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.isDefault() && composed.contains(method.getName())) return InvocationHandler.invokeDefault(proxy, method, args);
            try {
                return method.invoke(real, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (Ops) Proxy.newProxyInstance(Ops.class.getClassLoader(), new Class<?>[] {Ops.class}, handler);
    }
}
