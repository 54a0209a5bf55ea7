package panamax.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import panamax.api.model.ToolCall;
import panamax.api.model.ToolDefinition;

/**
 * Reads OpenAI's tool fields: a request's {@code tools} and {@code tool_choice}, an assistant
 * message's {@code tool_calls}. Each mistake is a 400 naming the field, e.g. {@code tools[1].function.name}.
 */
final class ToolRequestParser {
    /** OpenAI's rule for function names. */
    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");
    private static final Set<String> TOOL_FIELDS = Set.of("type", "function");
    private static final Set<String> FUNCTION_FIELDS = Set.of("name", "description", "parameters", "strict");
    private static final Set<String> CALL_FIELDS = Set.of("id", "type", "function");
    private static final Set<String> CALL_FUNCTION_FIELDS = Set.of("name", "arguments");

    private ToolRequestParser() {
    }

    /** {@code tools} and {@code tool_choice} of a chat request body. */
    static ToolRequest parse(JsonNode root) {
        JsonNode toolsNode = root.get("tools");
        List<ToolDefinition> tools = present(toolsNode) ? tools(toolsNode) : List.of();
        JsonNode choiceNode = root.get("tool_choice");
        if (!present(choiceNode)) return tools.isEmpty() ? ToolRequest.ABSENT : new ToolRequest(tools, ToolRequest.Choice.AUTO, null);
        if (choiceNode.isTextual()) {
            ToolRequest.Choice choice = switch (choiceNode.asText()) {
                case "auto" -> ToolRequest.Choice.AUTO;
                case "none" -> ToolRequest.Choice.NONE;
                case "required" -> ToolRequest.Choice.REQUIRED;
                default -> throw ApiException.invalid("tool_choice", "tool_choice: expected \"none\", \"auto\", \"required\" or "
                        + "{\"type\": \"function\", \"function\": {\"name\": ...}}, found '" + choiceNode.asText() + "'");
            };
            if (choice == ToolRequest.Choice.REQUIRED && tools.isEmpty()) {
                throw ApiException.invalid("tool_choice", "tool_choice: \"required\" needs \"tools\"");
            }
            return new ToolRequest(tools, choice, null);
        }
        if (!choiceNode.isObject()) {
            throw ApiException.invalid("tool_choice", "tool_choice: expected a string or an object, found " + RequestParser.kind(choiceNode));
        }
        known(choiceNode, TOOL_FIELDS, "tool_choice");
        if (!"function".equals(choiceNode.path("type").asText(null))) {
            throw ApiException.invalid("tool_choice.type", "tool_choice.type: expected \"function\", found " + choiceNode.get("type"));
        }
        JsonNode function = choiceNode.get("function");
        if (!present(function) || !function.isObject()) {
            throw ApiException.invalid("tool_choice.function", "tool_choice.function: required object {\"name\": ...}");
        }
        known(function, Set.of("name"), "tool_choice.function");
        JsonNode name = function.get("name");
        if (!present(name) || !name.isTextual()) {
            throw ApiException.invalid("tool_choice.function.name", "tool_choice.function.name: required string");
        }
        if (tools.stream().noneMatch(t -> t.name().equals(name.asText()))) {
            throw ApiException.invalid("tool_choice.function.name", "tool_choice.function.name: '" + name.asText()
                    + "' is not among the request's tools " + tools.stream().map(ToolDefinition::name).toList());
        }
        return new ToolRequest(tools, ToolRequest.Choice.NAMED, name.asText());
    }

    private static List<ToolDefinition> tools(JsonNode node) {
        if (!node.isArray()) throw ApiException.invalid("tools", "tools: expected an array, found " + RequestParser.kind(node));
        List<ToolDefinition> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < node.size(); i++) {
            String at = "tools[" + i + "]";
            JsonNode tool = node.get(i);
            if (!tool.isObject()) throw ApiException.invalid(at, at + ": expected an object, found " + RequestParser.kind(tool));
            known(tool, TOOL_FIELDS, at);
            JsonNode type = tool.get("type");
            if (!present(type) || !type.isTextual() || !type.asText().equals("function")) {
                throw ApiException.invalid(at + ".type", at + ".type: expected \"function\", found " + (present(type) ? type : "nothing"));
            }
            JsonNode function = tool.get("function");
            if (!present(function) || !function.isObject()) throw ApiException.invalid(at + ".function", at + ".function: required object");
            known(function, FUNCTION_FIELDS, at + ".function");
            String name = name(function.get("name"), at + ".function.name");
            if (!names.add(name)) throw ApiException.invalid(at + ".function.name", at + ".function.name: '" + name + "' is given twice");
            JsonNode description = function.get("description");
            if (present(description) && !description.isTextual()) {
                throw ApiException.invalid(at + ".function.description", at + ".function.description: expected a string, found "
                        + RequestParser.kind(description));
            }
            JsonNode parameters = function.get("parameters");
            if (present(parameters) && !parameters.isObject()) {
                throw ApiException.invalid(at + ".function.parameters", at + ".function.parameters: expected a JSON Schema object, found "
                        + RequestParser.kind(parameters));
            }
            JsonNode strict = function.get("strict");
            if (present(strict) && !strict.isBoolean()) {
                throw ApiException.invalid(at + ".function.strict", at + ".function.strict: expected true or false, found "
                        + RequestParser.kind(strict));
            }
            out.add(new ToolDefinition(name, present(description) ? description.asText() : null,
                    present(parameters) ? parameters.toString() : null));
        }
        return out;
    }

    /** An assistant message's {@code tool_calls} ({@code at} names the field). */
    static List<ToolCall> calls(JsonNode node, String at) {
        if (!node.isArray()) throw ApiException.invalid(at, at + ": expected an array, found " + RequestParser.kind(node));
        List<ToolCall> out = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            String c = at + "[" + i + "]";
            JsonNode call = node.get(i);
            if (!call.isObject()) throw ApiException.invalid(c, c + ": expected an object, found " + RequestParser.kind(call));
            known(call, CALL_FIELDS, c);
            JsonNode id = call.get("id");
            if (!present(id) || !id.isTextual() || id.asText().isEmpty()) throw ApiException.invalid(c + ".id", c + ".id: required string");
            JsonNode type = call.get("type");
            if (present(type) && !"function".equals(type.asText(null))) {
                throw ApiException.invalid(c + ".type", c + ".type: expected \"function\", found " + type);
            }
            JsonNode function = call.get("function");
            if (!present(function) || !function.isObject()) throw ApiException.invalid(c + ".function", c + ".function: required object");
            known(function, CALL_FUNCTION_FIELDS, c + ".function");
            String name = name(function.get("name"), c + ".function.name");
            JsonNode arguments = function.get("arguments");
            if (!present(arguments) || !arguments.isTextual()) {
                throw ApiException.invalid(c + ".function.arguments", c + ".function.arguments: required string (the arguments as JSON text)");
            }
            out.add(new ToolCall(id.asText(), name, arguments.asText()));
        }
        return out;
    }

    private static String name(JsonNode name, String at) {
        if (!present(name) || !name.isTextual()) throw ApiException.invalid(at, at + ": required string");
        if (!NAME.matcher(name.asText()).matches()) {
            throw ApiException.invalid(at, at + ": expected 1 to 64 letters, digits, '_' or '-', found '" + name.asText() + "'");
        }
        return name.asText();
    }

    private static void known(JsonNode object, Set<String> fields, String at) {
        for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!fields.contains(f)) throw ApiException.invalid(at + "." + f, at + "." + f + ": unrecognized");
        }
    }

    private static boolean present(JsonNode n) {
        return n != null && !n.isNull() && !n.isMissingNode();
    }
}
