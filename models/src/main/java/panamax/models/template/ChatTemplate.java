package panamax.models.template;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.el.JinjavaInterpreterResolver;
import com.hubspot.jinjava.interpret.RenderResult;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import jinjava.javax.el.CompositeELResolver;
import panamax.api.model.ChatMessage;
import panamax.api.model.ToolDefinition;

/**
 * A Hugging Face chat template ({@code tokenizer_config.json}'s {@code chat_template}) rendered
 * with Jinjava, extended with the Python-isms real templates use: {@code str} methods,
 * {@code namespace(a=…)}, slices with a step, {@code raise_exception}, {@code strftime_now} and
 * Python-formatted {@code tojson}. Jinja settings follow transformers ({@code trim_blocks},
 * {@code lstrip_blocks}, applied by {@link TemplateRewriter} with Jinja2's exact rules). Immutable and thread-safe: each render uses its own interpreter.
 *
 * {@snippet :
 * ChatTemplate template = new ChatTemplate(source, "<s>", "</s>");
 * String prompt = template.render(List.of(new ChatMessage("user", "Hi")), true);
 * }
 */
public final class ChatTemplate {
    private final String source;
    private final String rewritten;
    private final String bosToken;
    private final String eosToken;
    private final Jinjava jinjava;

    /**
     * @param source   the template text as the model ships it
     * @param bosToken the {@code bos_token} variable (empty when the model has none)
     * @param eosToken the {@code eos_token} variable (empty when the model has none)
     */
    public ChatTemplate(String source, String bosToken, String eosToken) {
        this.source = Objects.requireNonNull(source, "source");
        this.rewritten = TemplateRewriter.rewrite(source);
        this.bosToken = bosToken == null ? "" : bosToken;
        this.eosToken = eosToken == null ? "" : eosToken;
        this.jinjava = newJinjava();
    }

    private static Jinjava newJinjava() {
        CompositeELResolver resolver = new CompositeELResolver();
        resolver.add(new PythonMethodResolver());
        resolver.add(JinjavaInterpreterResolver.DEFAULT_RESOLVER_READ_ONLY);
        JinjavaConfig config = JinjavaConfig.newBuilder()
                .withElResolver(resolver)
                // Message text is data: Jinjava would otherwise render "{{ ... }}" found inside it.
                .withNestedInterpretationEnabled(false)
                .withLegacyOverrides(LegacyOverrides.newBuilder()
                        .withUseNaturalOperatorPrecedence(true)
                        .withParseWhitespaceControlStrictly(true)
                        .withIterateOverMapKeys(true)
                        .withKeepNullableLoopValues(true)
                        .withUseTrimmingForNotesAndExpressions(true)
                        .build())
                .build();
        Jinjava jinjava = new Jinjava(config);
        jinjava.getGlobalContext().registerFunction(new ELFunctionDefinition("", "raise_exception",
                TemplateFunctions.class, "raiseException", String.class));
        jinjava.getGlobalContext().registerFunction(new ELFunctionDefinition("", "strftime_now",
                TemplateFunctions.class, "strftimeNow", String.class));
        jinjava.getGlobalContext().registerFilter(new ToJsonFilter());
        jinjava.getGlobalContext().registerFilter(new SliceFilter());
        return jinjava;
    }

    /** The template text as the model ships it. */
    public String source() {
        return source;
    }

    /** Renders {@code messages} with no extra variables. */
    public String render(List<ChatMessage> messages, boolean addGenerationPrompt) {
        return render(messages, List.of(), addGenerationPrompt);
    }

    /**
     * Renders {@code messages} and, when not empty, {@code tools} as the template's {@code tools}
     * variable: OpenAI's message fields ({@code tool_calls}, {@code tool_call_id}) and tool
     * objects ({@code {"type": "function", "function": {...}}}) with JSON arguments and parameter
     * schemas turned into mappings, as transformers' callers (vLLM) pass them.
     *
     * @throws IllegalArgumentException when the template calls {@code raise_exception} or fails to render
     */
    public String render(List<ChatMessage> messages, List<ToolDefinition> tools, boolean addGenerationPrompt) {
        List<Map<String, Object>> turns = new ArrayList<>();
        for (ChatMessage m : messages) turns.add(TemplateValues.message(m));
        if (tools.isEmpty()) return render(turns, addGenerationPrompt, Map.of());
        List<Map<String, Object>> toolValues = new ArrayList<>();
        for (ToolDefinition t : tools) toolValues.add(TemplateValues.tool(t));
        return render(turns, addGenerationPrompt, Map.of("tools", toolValues));
    }

    /** Whether the template reads the {@code tools} variable, so that tools given to {@link #render} reach the model. */
    public boolean takesTools() {
        return readsTools(source);
    }

    /** Whether the template {@code source} reads a variable named {@code tools}. */
    public static boolean readsTools(String source) {
        return TemplateValues.readsTools(source);
    }

    /**
     * Renders messages given as maps (so tool calls and other fields reach the template), with
     * extra variables such as {@code tools} or {@code enable_thinking}.
     *
     * @throws IllegalArgumentException when the template calls {@code raise_exception} or fails to render
     */
    public String render(List<Map<String, Object>> messages, boolean addGenerationPrompt, Map<String, Object> variables) {
        Map<String, Object> bindings = new HashMap<>(variables);
        bindings.put("messages", messages);
        bindings.put("add_generation_prompt", addGenerationPrompt);
        bindings.put("bos_token", bosToken);
        bindings.put("eos_token", eosToken);
        // transformers' globals are defined names too: templates test "strftime_now is defined" before calling it
        bindings.putIfAbsent("strftime_now", "strftime_now");
        bindings.putIfAbsent("raise_exception", "raise_exception");
        RenderResult result = jinjava.renderForResult(rewritten, bindings);
        for (TemplateError error : result.getErrors()) {
            TemplateRejectionException rejection = rejection(error.getException());
            if (rejection != null) throw new IllegalArgumentException(rejection.getMessage(), rejection);
        }
        List<TemplateError> fatal = result.getErrors().stream()
                .filter(e -> e.getSeverity() == TemplateError.ErrorType.FATAL).toList();
        if (!fatal.isEmpty()) {
            TemplateError first = fatal.getFirst();
            throw new IllegalArgumentException("chat template failed at line " + first.getLineno() + ": "
                    + first.getMessage(), first.getException());
        }
        return result.getOutput();
    }

    private static TemplateRejectionException rejection(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof TemplateRejectionException r) return r;
            if (c.getCause() == c) break;
        }
        return null;
    }
}
