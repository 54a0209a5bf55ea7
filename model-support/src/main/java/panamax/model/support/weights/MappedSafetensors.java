package panamax.model.support.weights;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongConsumer;
import panamax.api.error.BadModelFileException;
import panamax.api.memory.HugePageMemory;
import panamax.api.model.LoadOptions;

/**
 * A safetensors file in memory: memory-mapped read-only into an arena the caller owns (the model's),
 * or copied from a temporary mapping into huge-page-backed memory of that arena
 * ({@link LoadOptions.Weights#COPY}). Tensor data are slices of that memory, never copies. Valid
 * while that arena is open. Thread-safe.
 *
 * @param file    the file
 * @param header  its checked header
 * @param mapping the whole file (mapped or copied)
 */
public record MappedSafetensors(Path file, SafetensorsHeader header, MemorySegment mapping) {
    /** Bytes copied or touched between two progress reports. */
    private static final long BLOCK = 64L << 20;
    private static final long PAGE = 4096;
    private static final long CACHE_LINE = 64;
    /** Keeps the page-touching reads from being optimised away. */
    private static volatile long sink;

    /**
     * Maps {@code file} into {@code arena} (borrowed) and checks its header.
     *
     * @throws BadModelFileException when the file cannot be read or its header is malformed
     */
    public static MappedSafetensors map(Path file, Arena arena) {
        return open(file, arena, LoadOptions.Weights.MAP, null);
    }

    /**
     * Opens {@code file} into {@code arena} (borrowed) as {@code weights} says and checks its header.
     * With a {@code progress} consumer (told the bytes done since its last call, in blocks of at most
     * 64 MiB, summing to the file's size), a mapped file is also read once, one byte per page, so
     * that it is in memory when the load returns (the progress then measures real reads); without
     * one, a mapped file is paged in lazily by its first use.
     *
     * @throws BadModelFileException when the file cannot be read or its header is malformed
     */
    public static MappedSafetensors open(Path file, Arena arena, LoadOptions.Weights weights, LongConsumer progress) {
        MemorySegment memory;
        SafetensorsHeader header;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            if (WeightPlacement.resolve(weights, channel.size()) == LoadOptions.Weights.COPY) {
                try (Arena temporary = Arena.ofShared()) {
                    // mapped only for the copy: the page cache keeps nothing of the process afterwards. The
                    // header is checked first, so a malformed file fails before anything is copied
                    MemorySegment source = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), temporary);
                    header = SafetensorsHeader.parse(file, source);
                    // shifted so that the data section starts on a cache line: a header's length is a multiple
                    // of 8 at best, and vector loads that straddle cache lines cost the weight kernels ~10 %
                    long shift = (CACHE_LINE - header.dataStart() % CACHE_LINE) % CACHE_LINE;
                    memory = HugePageMemory.allocate(channel.size() + shift, arena).asSlice(shift, channel.size());
                    copy(source, memory, file, progress);
                }
            } else {
                memory = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
                header = SafetensorsHeader.parse(file, memory);
                if (progress != null) touch(memory, progress);
            }
        } catch (IOException | UnsupportedOperationException e) {
            throw new BadModelFileException(file, "cannot map it: " + e.getMessage(), e);
        }
        return new MappedSafetensors(file, header, memory);
    }

    /**
     * Copies {@code source} into {@code target} in blocks on virtual threads (as many run at once as
     * there are cores: faulting in and zeroing the huge pages is most of the cost, and it is per-core
     * work), reporting each block on this thread in file order.
     */
    private static void copy(MemorySegment source, MemorySegment target, Path file, LongConsumer progress) {
        List<Future<Long>> blocks = new ArrayList<>();
        try (ExecutorService copiers = Executors.newVirtualThreadPerTaskExecutor()) {
            for (long at = 0; at < source.byteSize(); at += BLOCK) {
                long from = at, n = Math.min(BLOCK, source.byteSize() - at);
                blocks.add(copiers.submit(() -> {
                    target.asSlice(from, n).copyFrom(source.asSlice(from, n));
                    return n;
                }));
            }
            for (Future<Long> block : blocks) {
                long n = block.get();
                if (progress != null) progress.accept(n);
            }
        } catch (ExecutionException e) {
            throw new BadModelFileException(file, "cannot copy it into memory: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BadModelFileException(file, "interrupted while copying it into memory", e);
        }
    }

    private static void touch(MemorySegment memory, LongConsumer progress) {
        long sum = 0;
        for (long at = 0; at < memory.byteSize(); at += BLOCK) {
            long end = Math.min(memory.byteSize(), at + BLOCK);
            for (long p = at; p < end; p += PAGE) sum += memory.get(ValueLayout.JAVA_BYTE, p);
            progress.accept(end - at);
        }
        sink = sum;
    }

    /** The bytes of {@code entry} (a slice of the mapping). */
    public MemorySegment data(TensorEntry entry) {
        return mapping.asSlice(header.dataStart() + entry.begin(), entry.byteSize());
    }
}
