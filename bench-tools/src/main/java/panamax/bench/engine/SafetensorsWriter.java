package panamax.bench.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Writes a safetensors file tensor by tensor through a {@link FileChannel}, so a multi-gigabyte
 * checkpoint never sits on the heap: the header (names, dtypes, shapes, offsets) is declared up
 * front, then each tensor's bytes are streamed in declaration order. Owns the channel; closing
 * checks that every declared byte was written.
 *
 * <p>Bytes reach the file in {@link #STAGE}-sized writes at offsets that are multiples of it, so the
 * page cache holds the new file in large folios, as it holds a checkpoint read from disk: written
 * in the tensors' own pieces (a few hundred KiB at odd offsets) it stayed in 4 KiB pages, and the
 * benchmark's memory-mapped weights then streamed at the rate of 4 KiB pages where a downloaded
 * model's would be mapped in 2 MiB ones (Linux 6.18, ext4: {@code FilePmdMapped} in smaps).
 *
 * <p>A complete file is forced to the disk before {@link #close} returns. Otherwise the kernel writes its dirty pages
 * back while the benchmark times its steps (30 s after they were written, at the pace of its background flusher):
 * 1.7 GB of the MoE preset's 8-bit checkpoint were still dirty during its timed steps, whose tenths then swung from
 * 15.4 to 22.8 ms where a checkpoint already on disk gave 14.4–15.8.
 */
final class SafetensorsWriter implements AutoCloseable {
    /** One declared tensor: its safetensors dtype name ("BF16", "U32"), shape and byte length. */
    record Entry(String name, String dtype, long[] shape, long bytes) {
        Entry {
            long elements = 1;
            for (long d : shape) elements *= d;
            long expected = elements * switch (dtype) {
                case "BF16", "F16" -> 2;
                case "F32", "U32", "I32" -> 4;
                default -> throw new IllegalArgumentException("dtype: expected BF16, F16, F32, U32 or I32, found " + dtype);
            };
            if (expected != bytes) throw new IllegalArgumentException(name + ": expected " + expected + " bytes, found " + bytes);
        }
    }

    /** The size and alignment of the writes to the file. */
    static final int STAGE = 4 << 20;

    private final FileChannel channel;
    private final ByteBuffer stage = ByteBuffer.allocateDirect(STAGE);
    private final List<Entry> entries;
    private int next;
    private long writtenOfCurrent;

    /** Creates {@code file} and writes the header for {@code entries}; their data must follow in this order. */
    SafetensorsWriter(Path file, List<Entry> entries) throws IOException {
        this.entries = List.copyOf(entries);
        this.channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            writeHeader();
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private void writeHeader() throws IOException {
        StringBuilder json = new StringBuilder("{");
        long offset = 0;
        for (Entry e : entries) {
            if (json.length() > 1) json.append(',');
            json.append('"').append(e.name()).append("\":{\"dtype\":\"").append(e.dtype()).append("\",\"shape\":[");
            for (int i = 0; i < e.shape().length; i++) json.append(i == 0 ? "" : ",").append(e.shape()[i]);
            json.append("],\"data_offsets\":[").append(offset).append(',').append(offset + e.bytes()).append("]}");
            offset += e.bytes();
        }
        json.append('}');
        // The data section starts 8-aligned, as the format recommends; trailing spaces are valid JSON.
        while ((json.length() + 8) % 8 != 0) json.append(' ');
        byte[] header = json.toString().getBytes(StandardCharsets.UTF_8);
        ByteBuffer buf = ByteBuffer.allocate(8 + header.length).order(ByteOrder.LITTLE_ENDIAN);
        buf.putLong(header.length).put(header).flip();
        writeFully(buf);
    }

    /** Appends bytes of the current tensor; a tensor may arrive in several pieces. */
    void write(ByteBuffer data) throws IOException {
        if (next >= entries.size()) throw new IllegalStateException("all declared tensors are written");
        Entry e = entries.get(next);
        int n = data.remaining();
        if (writtenOfCurrent + n > e.bytes()) {
            throw new IllegalStateException(e.name() + ": expected " + e.bytes() + " bytes, found at least " + (writtenOfCurrent + n));
        }
        writeFully(data);
        writtenOfCurrent += n;
        if (writtenOfCurrent == e.bytes()) {
            next++;
            writtenOfCurrent = 0;
        }
    }

    /** The tensor whose bytes come next. */
    Entry current() {
        return entries.get(next);
    }

    private void writeFully(ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            int n = Math.min(buf.remaining(), stage.remaining());
            stage.put(stage.position(), buf, buf.position(), n).position(stage.position() + n);
            buf.position(buf.position() + n);
            if (!stage.hasRemaining()) flush();
        }
    }

    private void flush() throws IOException {
        stage.flip();
        while (stage.hasRemaining()) channel.write(stage);
        stage.clear();
    }

    @Override
    public void close() throws IOException {
        try (channel) {
            if (next != entries.size()) {
                throw new IllegalStateException("tensor " + entries.get(next).name() + " was not written");
            }
            flush();
            channel.force(false);
        }
    }
}
