package panamax.engine.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.strings;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Streaming a byte-level tokenizer's ids yields whole characters whose concatenation is the text. */
class StreamDetokenizerProperties {
    @Test
    void deltasAreWholeCharactersAndConcatenateToTheText() {
        qt().forAll(strings().allPossible().ofLengthBetween(0, 40)).checkAssert(raw -> {
            // Unpaired surrogates have no UTF-8 form; round-trip them out as the encoder would.
            String text = new String(raw.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
            ByteTokenizer tokenizer = new ByteTokenizer();
            StreamDetokenizer detokenizer = new StreamDetokenizer(tokenizer);
            StringBuilder out = new StringBuilder();
            for (int id : tokenizer.encode(text, false)) {
                String delta = detokenizer.add(id);
                assertFalse(delta.contains("\uFFFD") && !text.contains("\uFFFD"), "delta with a broken character: " + delta);
                if (!delta.isEmpty()) assertFalse(Character.isHighSurrogate(delta.charAt(delta.length() - 1)), "split surrogate pair");
                out.append(delta);
            }
            out.append(detokenizer.flush());
            assertEquals(text, out.toString());
        });
    }

    @Test
    void anIncompleteCharacterIsHeldUntilItCompletes() {
        ByteTokenizer tokenizer = new ByteTokenizer();
        StreamDetokenizer detokenizer = new StreamDetokenizer(tokenizer);
        int[] ids = tokenizer.encode("é!", false);
        assertEquals("", detokenizer.add(ids[0]));
        assertEquals("é", detokenizer.add(ids[1]));
        assertEquals("!", detokenizer.add(ids[2]));
    }

    @Test
    void flushGivesTheReplacementCharacterForATruncatedSequence() {
        ByteTokenizer tokenizer = new ByteTokenizer();
        StreamDetokenizer detokenizer = new StreamDetokenizer(tokenizer);
        int[] ids = tokenizer.encode("a🤖", false);
        for (int i = 0; i < 3; i++) detokenizer.add(ids[i]);
        assertEquals("\uFFFD", detokenizer.flush());
    }

    @Test
    void specialTokensAreSkipped() {
        ByteTokenizer tokenizer = new ByteTokenizer();
        StreamDetokenizer detokenizer = new StreamDetokenizer(tokenizer);
        assertEquals("h", detokenizer.add('h'));
        assertEquals("", detokenizer.add(ByteTokenizer.EOS));
        assertEquals("i", detokenizer.add('i'));
    }
}
