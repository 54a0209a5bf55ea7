package panamax.models.template;

import java.beans.FeatureDescriptor;
import java.util.Collections;
import java.util.Iterator;
import java.util.Optional;
import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELResolver;

/**
 * Resolves Python {@code str} method calls ({@code message.content.strip()}) before Jinjava's own
 * resolvers, which would otherwise look for Java methods of those names. Resolves nothing else:
 * property reads fall through to the next resolver. Stateless; thread-safe.
 */
final class PythonMethodResolver extends ELResolver {
    @Override
    public Object invoke(ELContext context, Object base, Object method, Class<?>[] paramTypes, Object[] params) {
        if (base == null || method == null) return null;
        if (base instanceof CharSequence text && !(base instanceof StringBuilder)) {
            Optional<Object> result = PythonStrings.invoke(text.toString(), method.toString(), params);
            if (result.isPresent()) {
                context.setPropertyResolved(true);
                return result.get();
            }
        }
        return null;
    }

    @Override
    public Object getValue(ELContext context, Object base, Object property) {
        return null;
    }

    @Override
    public Class<?> getType(ELContext context, Object base, Object property) {
        return null;
    }

    @Override
    public void setValue(ELContext context, Object base, Object property, Object value) {
        // Not resolved here: the next resolver in the chain handles assignments.
    }

    @Override
    public boolean isReadOnly(ELContext context, Object base, Object property) {
        return true;
    }

    @Override
    public Iterator<FeatureDescriptor> getFeatureDescriptors(ELContext context, Object base) {
        return Collections.emptyIterator();
    }

    @Override
    public Class<?> getCommonPropertyType(ELContext context, Object base) {
        return null;
    }
}
