package panamax.models.template;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import panamax.api.model.ChatMessage;

/** The Python-isms of Hugging Face chat templates, each rendered as Jinja2 in Python would. */
class ChatTemplateTest {
    private static final List<ChatMessage> CHAT = List.of(new ChatMessage("system", "  Be brief.\n"),
            new ChatMessage("user", "Hello world"), new ChatMessage("assistant", "<think>x</think>\n\nHi"));

    private static String render(String template) {
        return new ChatTemplate(template, "<s>", "</s>").render(CHAT, true);
    }

    @Test
    void stringMethodsFollowPython() {
        assertEquals("[Be brief.|Be brief.\n|  Be brief.]", render("[{{ messages[0].content.strip() }}|"
                + "{{ messages[0].content.lstrip() }}|{{ messages[0].content.rstrip() }}]"));
        assertEquals("True False HELLO WORLD hello world Hello World", render("{{ messages[1].content.startswith('Hello') }} "
                + "{{ messages[1].content.endswith('x') }} {{ messages[1].content.upper() }} "
                + "{{ messages[1].content.lower() }} {{ messages[1].content.lower().title() }}").replace("true", "True").replace("false", "False"));
        assertEquals("Hi|x", render("{{ messages[2].content.split('</think>')[-1].lstrip('\\n') }}|"
                + "{{ messages[2].content.split('</think>')[0].split('<think>')[-1] }}"));
        assertEquals("Hello_world 2", render("{{ messages[1].content.replace(' ', '_') }} {{ messages[1].content.split() | length }}"));
    }

    @Test
    void slicesWithAndWithoutSteps() {
        assertEquals("assistant user system ", render("{% for m in messages[::-1] %}{{ m.role }} {% endfor %}"));
        assertEquals("user assistant ", render("{% for m in messages[1:] %}{{ m.role }} {% endfor %}"));
        assertEquals("system assistant ", render("{% for m in messages[::2] %}{{ m.role }} {% endfor %}"));
    }

    @Test
    void namespaceWithNamedArgumentsAndArithmetic() {
        assertEquals("2 1", render("{% set ns = namespace(last=messages|length - 1, found=false) %}"
                + "{% for m in messages %}{% if m.role == 'user' %}{% set ns.found = loop.index0 %}{% endif %}{% endfor %}"
                + "{{ ns.last }} {{ ns.found }}"));
    }

    @Test
    void loopVariablesIndexingAndTests() {
        assertEquals("system|assistant|yes|no|<s>|</s>|True", render("{{ messages[0]['role'] }}|"
                + "{% for m in messages %}{% if loop.last %}{{ m.role }}{% endif %}{% endfor %}|"
                + "{{ 'yes' if add_generation_prompt is defined else 'no' }}|{{ 'yes' if tools is defined else 'no' }}|"
                + "{{ bos_token }}|{{ eos_token }}|{{ True }}").replace("true", "True"));
    }

    @Test
    void messageTextIsNeverInterpretedAsTemplateCode() {
        String content = "{{ 7 * 7 }} {% if true %}x{% endif %} {{ raise_exception('no') }}";
        assertEquals("<|im_start|>user\n" + content + "<|im_end|>\n", new ChatTemplate(
                "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}", "", "")
                .render(List.of(new ChatMessage("user", content)), false));
    }

    @Test
    void tojsonFormatsLikePythonJsonDumps() {
        Map<String, Object> tool = new LinkedHashMap<>();
        tool.put("name", "get_weather");
        tool.put("parameters", Map.of("city", "Zürich"));
        tool.put("required", List.of("city", 1));
        String out = new ChatTemplate("{% for t in tools %}{{ t | tojson }}{% endfor %}", "", "")
                .render(List.of(), false, Map.of("tools", List.of(tool)));
        assertEquals("{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Zürich\"}, \"required\": [\"city\", 1]}", out);
    }

    @Test
    void raiseExceptionRejectsTheConversationWithItsMessage() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> render(
                "{% if messages[1].role != 'assistant' %}{{ raise_exception('Conversation roles must alternate') }}{% endif %}"));
        assertEquals("Conversation roles must alternate", e.getMessage());
    }

    @Test
    void blocksTrimAndStripLikeTransformers() {
        assertEquals("  a\n\nb\n", new ChatTemplate("{% if true %}\n  a\n  {% endif %}\n{{- '\\n' }}b\n", "", "")
                .render(List.of(), false));
        assertEquals("x y ", new ChatTemplate("{% for r in ['x', 'y'] %}{{ r }} {% endfor %}", "", "").render(List.of(), false));
    }

    /** Gemma's template: slices, role alternation check, {@code | trim}, conditional expressions. */
    private static final String GEMMA = "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{% set first_user_prefix = "
            + "messages[0]['content'] + '\\n\\n' %}{% set loop_messages = messages[1:] %}{% else %}{% set first_user_prefix = \"\" %}"
            + "{% set loop_messages = messages %}{% endif %}{% for message in loop_messages %}{% if (message['role'] == 'user') != "
            + "(loop.index0 % 2 == 0) %}{{ raise_exception(\"Conversation roles must alternate user/assistant/user/assistant/...\") }}"
            + "{% endif %}{% if (message['role'] == 'assistant') %}{% set role = \"model\" %}{% else %}{% set role = message['role'] %}"
            + "{% endif %}{{ '<start_of_turn>' + role + '\\n' + (first_user_prefix if loop.first else \"\") }}"
            + "{{ message['content'] | trim }}{{ '<end_of_turn>\\n' }}{% endfor %}{% if add_generation_prompt %}"
            + "{{'<start_of_turn>model\\n'}}{% endif %}\n";

    @Test
    void gemmaStyleTemplateRendersAndRejectsNonAlternatingRoles() {
        ChatTemplate gemma = new ChatTemplate(GEMMA, "<bos>", "<eos>");
        assertEquals("<bos><start_of_turn>user\nS\n\nHi<end_of_turn>\n<start_of_turn>model\nYo<end_of_turn>\n"
                + "<start_of_turn>user\nQ<end_of_turn>\n<start_of_turn>model\n", gemma.render(List.of(new ChatMessage("system", "S"),
                new ChatMessage("user", " Hi "), new ChatMessage("assistant", "Yo"), new ChatMessage("user", "Q")), true));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> gemma.render(List.of(
                new ChatMessage("user", "a"), new ChatMessage("user", "b")), true));
        assertEquals("Conversation roles must alternate user/assistant/user/assistant/...", e.getMessage());
    }

    /** Llama 3's header layout with {@code strftime_now} and {@code is not defined} defaults. */
    @Test
    void llama3StyleHeadersAndDefaults() {
        String template = "{{- bos_token }}\n{%- if not date_string is defined %}\n    {%- set date_string = strftime_now(\"%d %b %Y\") %}\n"
                + "{%- endif %}\n{%- for message in messages %}\n    {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'"
                + " + message['content'] | trim + '<|eot_id|>' }}\n{%- endfor %}\n{%- if add_generation_prompt %}\n"
                + "    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n{%- endif %}\n";
        String out = new ChatTemplate(template, "<|begin_of_text|>", "<|eot_id|>").render(List.of(new ChatMessage("user", "Hi ")), true);
        assertEquals("<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
                + "<|start_header_id|>assistant<|end_header_id|>\n\n", out);
    }
}
