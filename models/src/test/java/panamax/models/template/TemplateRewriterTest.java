package panamax.models.template;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The text rewrites that let Jinjava parse Hugging Face templates. */
class TemplateRewriterTest {
    @Test
    void namedArgumentValuesAreParenthesized() {
        assertEquals("{% set ns = namespace(a=(x|length - 1), b=(f(1, 2))) %}",
                TemplateRewriter.rewrite("{% set ns = namespace(a=x|length - 1, b=f(1, 2)) %}"));
    }

    @Test
    void comparisonsAndAssignmentsAreLeftAlone() {
        String template = "{% set x = 1 %}{% if (a == b) or (c != d) or (e <= f) or (g >= h) %}{% endif %}";
        assertEquals(template, TemplateRewriter.rewrite(template));
    }

    @Test
    void literalTextAndStringsAreNeverRewritten() {
        String template = "keep x[::-1] and a=b - 1 {{ 'x[::-1] None' }}";
        assertEquals(template, TemplateRewriter.rewrite(template));
    }

    @Test
    void reversedSlicesBecomeReverseFilters() {
        assertEquals("{% for m in (messages|reverse|list) %}", TemplateRewriter.rewrite("{% for m in messages[::-1] %}"));
    }

    @Test
    void pythonLiteralsBecomeJinjaLiterals() {
        assertEquals("{{ none if true else false }}", TemplateRewriter.rewrite("{{ None if True else False }}"));
    }

    @Test
    void blockWhitespaceFollowsJinja2TrimAndLstripBlocks() {
        assertEquals("{% if a %}  x {% endif %}{# c #}y\n{%+ if b %}",
                TemplateRewriter.blockWhitespace("  {% if a %}\n  x {% endif %}\n  {# c #}\ny\n{%+ if b %}\n"));
    }
}
