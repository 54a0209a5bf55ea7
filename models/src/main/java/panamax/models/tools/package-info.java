/**
 * Tool-call formats of the families panamax runs, declared by their plugins: Hermes-style
 * {@code <tool_call>} tags (Qwen), Llama 3.1 JSON and Mistral {@code [TOOL_CALLS]}; each parses an
 * answer's text as it streams into text and calls, and says how a call is written so one can be forced.
 *
 * {@snippet :
 * ToolCallParser parser = ToolCallFormats.hermes().newParser();
 * List<ToolCallEvent> events = new ArrayList<>(parser.feed("<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>"));
 * events.addAll(parser.finish()); // [Call[name=f, arguments={}]]
 * }
 */
package panamax.models.tools;
