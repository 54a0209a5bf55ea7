package panamax.models.template;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.filter.Filter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code x | py_slice(start, stop, step)}: Python's {@code x[start:stop:step]} for a positive step,
 * on lists and strings. {@link TemplateRewriter} turns stepped slices into this filter.
 */
final class SliceFilter implements Filter {
    @Override
    public String getName() {
        return "py_slice";
    }

    @Override
    public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
        List<Object> items = new ArrayList<>();
        if (var instanceof CharSequence s) s.chars().forEach(c -> items.add(String.valueOf((char) c)));
        else if (var instanceof Iterable<?> it) it.forEach(items::add);
        else throw new IllegalArgumentException("py_slice needs a list or string, found " + var);
        int n = items.size();
        int step = ((Number) args[2]).intValue();
        int start = bound(args[0], 0, n);
        int stop = bound(args[1], n, n);
        List<Object> out = new ArrayList<>();
        for (int i = start; i < stop; i += step) out.add(items.get(i));
        if (var instanceof CharSequence) return String.join("", out.stream().map(String::valueOf).toList());
        return out;
    }

    @Override
    public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
        throw new UnsupportedOperationException("py_slice is called with evaluated arguments");
    }

    private static int bound(Object value, int absent, int n) {
        if (value == null) return absent;
        int v = ((Number) value).intValue();
        return Math.clamp(v < 0 ? v + n : v, 0, n);
    }
}
