package panamax.models.tools;

import java.util.Set;
import panamax.api.model.ToolCallFormat;
import panamax.api.model.ToolCallParser;
import panamax.api.model.ToolCallSyntax;

/** Llama 3.1 / 3.2 / 3.3 JSON calls: {@code {"name": …, "parameters": …}}, possibly after {@code <|python_tag|>}. */
public final class Llama3JsonFormat implements ToolCallFormat {
    @Override
    public String id() {
        return "llama3_json";
    }

    @Override
    public ToolCallParser newParser() {
        return new Llama3JsonParser();
    }

    @Override
    public ToolCallSyntax syntax() {
        return new ToolCallSyntax("", "name", "parameters");
    }

    @Override
    public Set<String> markerTokens() {
        return Set.of(Llama3JsonParser.PYTHON_TAG);
    }
}
