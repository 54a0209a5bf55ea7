package panamax.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A streamed token's chunk spliced from the answer's template is byte for byte the chunk serialized from its node
 * tree, whatever the text holds: quotes, backslashes, every control character, non-ASCII letters, emoji, and the
 * template's own marker.
 */
class TextChunksTest {
    private final OpenAiFormat format = new OpenAiFormat(new ObjectMapper(), null, "demo \"model\"");

    private static String randomText(Random random) {
        StringBuilder text = new StringBuilder();
        int length = random.nextInt(12);
        for (int i = 0; i < length; i++) {
            switch (random.nextInt(6)) {
                case 0 -> text.append((char) random.nextInt(0x20)); // control characters, \n \t \r \b \f among them
                case 1 -> text.append("\"\\/".charAt(random.nextInt(3)));
                case 2 -> text.append((char) (0x20 + random.nextInt(0x5f)));
                case 3 -> text.append("éßжあ€\u007f\u2028".charAt(random.nextInt(7)));
                case 4 -> text.appendCodePoint(0x1F600 + random.nextInt(64));
                default -> text.append(" panamax-text ");
            }
        }
        return text.toString();
    }

    /** The marker as a whole field value elsewhere makes the template ambiguous: none; inside a longer value it is not. */
    @Test
    void aModelIdThatIsTheMarkerGetsNoTemplate() throws Exception {
        String marker = "\u0001panamax-text\u0001";
        OpenAiFormat odd = new OpenAiFormat(new ObjectMapper(), null, marker);
        assertNull(odd.textChunks(odd.answer(true, 1), true));
        OpenAiFormat holding = new OpenAiFormat(new ObjectMapper(), null, "model " + marker);
        OpenAiFormat.Answer answer = holding.answer(true, 1);
        assertEquals(holding.mapper().writeValueAsString(holding.chunk(answer, "x", null, false, null, true)),
                holding.textChunks(answer, true).json("x"));
    }

    @Test
    void splicedChunksEqualTheSerializedTree() throws Exception {
        Random random = new Random(20);
        for (boolean chat : new boolean[] {true, false}) {
            for (boolean usage : new boolean[] {true, false}) {
                OpenAiFormat.Answer answer = format.answer(chat, 7);
                OpenAiFormat.TextChunks chunks = format.textChunks(answer, usage);
                for (int i = 0; i < 500; i++) {
                    String text = i == 0 ? "" : i == 1 ? "\u0001panamax-text\u0001" : randomText(random);
                    String tree = format.mapper().writeValueAsString(format.chunk(answer, text, null, false, null, usage));
                    assertEquals(tree, chunks.json(text), "chat=" + chat + " usage=" + usage + " text=" + text);
                    assertEquals("data: " + tree + "\n\n", chunks.event(text));
                }
            }
        }
    }
}
