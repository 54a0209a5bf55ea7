package panamax.models.tools;

import java.util.Set;
import java.util.random.RandomGenerator;
import panamax.api.model.ToolCallFormat;
import panamax.api.model.ToolCallParser;
import panamax.api.model.ToolCallSyntax;

/**
 * Mistral calls after {@code [TOOL_CALLS]}: a JSON array of call objects, or {@code name[ARGS]{…}}.
 * Mistral's templates accept only call ids of nine letters and digits.
 */
public final class MistralFormat implements ToolCallFormat {
    @Override
    public String id() {
        return "mistral";
    }

    @Override
    public ToolCallParser newParser() {
        return new MistralParser();
    }

    @Override
    public ToolCallSyntax syntax() {
        return new ToolCallSyntax(MistralParser.TOOL_CALLS + "[", "name", "arguments");
    }

    @Override
    public Set<String> markerTokens() {
        return Set.of(MistralParser.TOOL_CALLS, MistralParser.ARGS, MistralParser.CALL_ID);
    }

    @Override
    public String newCallId(RandomGenerator random) {
        return ToolCallFormat.alphanumeric(random, 9);
    }
}
