/**
 * Chat templates: Jinja2 templates from {@code tokenizer_config.json} rendered with Jinjava plus
 * the Python-isms Hugging Face templates rely on.
 *
 * {@snippet :
 * ChatTemplate template = new ChatTemplate(source, "", "<|im_end|>");
 * String text = template.render(List.of(new ChatMessage("user", "What is 2+2?")), true);
 * }
 */
package panamax.models.template;
