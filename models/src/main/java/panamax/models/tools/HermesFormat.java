package panamax.models.tools;

import panamax.api.model.ToolCallFormat;
import panamax.api.model.ToolCallParser;
import panamax.api.model.ToolCallSyntax;

/** Hermes-style calls, which Qwen 2, 2.5 and 3 write: {@code <tool_call>\n{"name": …, "arguments": …}\n</tool_call>}. */
public final class HermesFormat implements ToolCallFormat {
    static final String OPEN = "<tool_call>";
    static final String CLOSE = "</tool_call>";

    @Override
    public String id() {
        return "hermes";
    }

    @Override
    public ToolCallParser newParser() {
        return new TaggedCallParser(OPEN, CLOSE);
    }

    @Override
    public ToolCallSyntax syntax() {
        return new ToolCallSyntax(OPEN + "\n", "name", "arguments");
    }
}
