package panamax.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * A model directory that takes tools the way Qwen3 does: the real Qwen3 tokenizer and chat
 * template ({@code fixtures/tokenizer-qwen3}) over the {@code qwen3-tiny} fixture's weights, its
 * 512-row embedding grown to the tokenizer's 151,936 rows (new rows random, seeded) and its context
 * to 4096 positions so that tool prompts fit. The weights are random, so what it says is noise;
 * what a server makes of it is what the tests check.
 */
final class QwenToolModel implements AutoCloseable {
    static final int VOCAB = 151_936;
    /** Qwen3's {@code <|im_end|>}. */
    static final int IM_END = 151_645;
    private static final ObjectMapper JSON = new ObjectMapper();

    final Path directory;

    private QwenToolModel(Path directory) {
        this.directory = directory;
    }

    static QwenToolModel create() {
        Path fixtures = Path.of(System.getProperty("panamax.fixtures", "../shared/fixtures"));
        Path tiny = fixtures.resolve("qwen3-tiny");
        Path tokenizer = fixtures.resolve("tokenizer-qwen3");
        if (!Files.isDirectory(tiny) || !Files.isDirectory(tokenizer)) {
            throw new AssertionError("fixtures missing: " + tiny.toAbsolutePath() + " and " + tokenizer.toAbsolutePath() + " (set -Dpanamax.fixtures)");
        }
        try {
            Path dir = Files.createTempDirectory("qwen3-tools");
            Files.copy(tokenizer.resolve("tokenizer.json"), dir.resolve("tokenizer.json"));
            Files.copy(tokenizer.resolve("tokenizer_config.json"), dir.resolve("tokenizer_config.json"));
            ObjectNode config = (ObjectNode) JSON.readTree(tiny.resolve("config.json").toFile());
            config.put("vocab_size", VOCAB).put("eos_token_id", IM_END).put("max_position_embeddings", 4096);
            JSON.writeValue(dir.resolve("config.json").toFile(), config);
            JSON.writeValue(dir.resolve("generation_config.json").toFile(), Map.of("eos_token_id", IM_END));
            growEmbedding(tiny.resolve("model.safetensors"), dir.resolve("model.safetensors"));
            return new QwenToolModel(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Copies every tensor, the embedding with rows appended up to {@link #VOCAB}. */
    private static void growEmbedding(Path from, Path to) throws IOException {
        byte[] file = Files.readAllBytes(from);
        ByteBuffer in = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        int headerLength = (int) in.getLong(0);
        ObjectNode header = (ObjectNode) JSON.readTree(new String(file, 8, headerLength, java.nio.charset.StandardCharsets.UTF_8));
        int dataStart = 8 + headerLength;
        String embedding = "model.embed_tokens.weight";
        int rows = header.get(embedding).get("shape").get(0).asInt();
        int hidden = header.get(embedding).get("shape").get(1).asInt();
        ObjectNode out = JSON.createObjectNode();
        out.set("__metadata__", header.get("__metadata__"));
        long offset = 0;
        java.util.List<String> names = new java.util.ArrayList<>();
        for (Iterator<String> it = header.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!name.equals("__metadata__")) names.add(name);
        }
        for (String name : names) {
            ObjectNode entry = header.get(name).deepCopy();
            long size = entry.get("data_offsets").get(1).asLong() - entry.get("data_offsets").get(0).asLong();
            if (name.equals(embedding)) {
                entry.putArray("shape").add(VOCAB).add(hidden);
                size = 2L * VOCAB * hidden;
            }
            entry.putArray("data_offsets").add(offset).add(offset + size);
            out.set(name, entry);
            offset += size;
        }
        byte[] newHeader = JSON.writeValueAsBytes(out);
        int padded = (newHeader.length + 7) / 8 * 8;
        try (FileChannel ch = FileChannel.open(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer head = ByteBuffer.allocate(8 + padded).order(ByteOrder.LITTLE_ENDIAN);
            head.putLong(padded).put(newHeader);
            while (head.hasRemaining()) head.put((byte) ' ');
            ch.write(head.flip());
            SplittableRandom random = new SplittableRandom(20261202);
            for (String name : names) {
                long start = header.get(name).get("data_offsets").get(0).asLong(), end = header.get(name).get("data_offsets").get(1).asLong();
                ch.write(ByteBuffer.wrap(file, (int) (dataStart + start), (int) (end - start)));
                if (name.equals(embedding)) {
                    // appended rows: uniform with the standard deviation of the trained-from-scratch rows (0.02), as bf16
                    ByteBuffer extra = ByteBuffer.allocate(2 * (VOCAB - rows) * hidden).order(ByteOrder.LITTLE_ENDIAN);
                    double half = 0.02 * Math.sqrt(3);
                    while (extra.hasRemaining()) extra.putShort((short) (Float.floatToRawIntBits((float) random.nextDouble(-half, half)) >>> 16));
                    ch.write(extra.flip());
                }
            }
        }
    }

    @Override
    public void close() {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
