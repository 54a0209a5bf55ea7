package panamax.models.tools;

import java.nio.file.Path;
import java.util.Optional;
import panamax.api.model.ToolCallFormat;
import panamax.models.template.ChatTemplate;
import panamax.models.tokenizer.ChatTemplateFile;

/**
 * Picks the tool-call format of a model directory for its family plugin: none when the chat
 * template does not take tools; else the format the template itself writes in assistant turns
 * (a Hermes fine-tune of Llama writes {@code <tool_call>}), else the family's.
 */
public final class ToolCallFormats {
    private ToolCallFormats() {
    }

    /** Hermes-style {@code <tool_call>} tags (Qwen). */
    public static ToolCallFormat hermes() {
        return new HermesFormat();
    }

    /** Llama 3.1 JSON. */
    public static ToolCallFormat llama3Json() {
        return new Llama3JsonFormat();
    }

    /** Mistral {@code [TOOL_CALLS]}. */
    public static ToolCallFormat mistral() {
        return new MistralFormat();
    }

    /**
     * The format for {@code directory}: empty without a template that reads {@code tools}.
     *
     * @throws panamax.api.error.BadModelFileException when the tokenizer config names its template wrongly
     */
    public static Optional<ToolCallFormat> forDirectory(Path directory, ToolCallFormat familyDefault) {
        return ChatTemplateFile.read(directory).filter(ChatTemplate::readsTools).map(t -> written(t, familyDefault));
    }

    /** The format a template writes calls in, judged by the markers it writes; {@code otherwise} when it writes none. */
    static ToolCallFormat written(String template, ToolCallFormat otherwise) {
        if (template.contains(HermesFormat.OPEN)) return hermes();
        if (template.contains(MistralParser.TOOL_CALLS)) return mistral();
        if (template.contains("\"parameters\": ") && template.contains("tool_call")) return llama3Json();
        return otherwise;
    }
}
