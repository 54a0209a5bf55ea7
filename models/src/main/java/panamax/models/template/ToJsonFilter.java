package panamax.models.template;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.filter.Filter;
import java.util.Map;

/** {@code x | tojson(indent=n)} with Python's {@code json.dumps} formatting (see {@link PythonJson}). */
final class ToJsonFilter implements Filter {
    @Override
    public String getName() {
        return "tojson";
    }

    @Override
    public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
        Object indent = kwargs.getOrDefault("indent", args.length > 0 ? args[0] : null);
        return PythonJson.dumps(var, indent instanceof Number n ? n.intValue() : 0);
    }

    @Override
    public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
        return PythonJson.dumps(var, args.length > 0 ? Integer.parseInt(args[0].trim()) : 0);
    }
}
