package panamax.backend.java.tck;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Set;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.Ops;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.CodebookTck;

/**
 * Runs the TCK's {@link CodebookTck} against the api's composed defaults of the codebook ops (what
 * a backend that does not override them computes), over the Java backend's primitive ops: a proxy
 * calls the interface's default methods for the codebook ops and forwards everything else.
 */
class ComposedCodebookOpsTckTest extends CodebookTck {
    private static final Set<String> COMPOSED = Set.of("codebookDequantize", "codebookMatmul", "codebookQuantize", "hadamardRotate",
            "codebookQuantizeRotated", "codebookDequantizeRotated");

    private Ops composed;

    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }

    @Override
    protected Ops codebookOps() {
        if (composed == null) {
            Ops real = ops();
            InvocationHandler handler = (proxy, method, args) -> {
                if (method.isDefault() && COMPOSED.contains(method.getName())) return InvocationHandler.invokeDefault(proxy, method, args);
                try {
                    return method.invoke(real, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            };
            composed = (Ops) Proxy.newProxyInstance(Ops.class.getClassLoader(), new Class<?>[] {Ops.class}, handler);
        }
        return composed;
    }
}
