#!/usr/bin/env python3
"""Regenerates backend-java's AffineTileDots: x·Wᵀ kernels over MLX-affine weights (2, 4 and 8-bit codes) repacked
into tiles of V weight rows (AffineTiles), one weight row per vector lane; and DecodedTileDots: the same steps for one
group whose codes a prefill's pass decoded once into an f32 scratch (blocks of up to twelve x rows), with the decoders.

Every (weight row, x row) output is summed in one order whichever kernel runs it: per group g, one FMA chain
a = Σ_k (1 + q·2^-bits)·x_k over the group's k in order (the code at the top of 1.0's mantissa: a shift and one
ternary-logic op; scales and biases made for it by QuantMatVec.mantissaParameters), then o = fma(a, s'_g, o) and
o = fma(b'_g, Σ_g x, o). No lane crosses another, so nothing is folded across lanes, and a code decoded once feeds
every x row of the block: tTrR takes T tiles against R x rows (T·R chains, each in its own register pair; from
sixteen chains on, the totals o live in the output array, read and written once a group).

Why written out: constant shifts per code position, the x values broadcast straight from the array, no vector
merged from two branches (see tools/gen-affine-dot-kernels.py). For one x row, words go 4 codes at a time (8-bit
words in one straight block, 4- and 2-bit words shifted right between parts of 4); blocks of several x rows over 2-
and 4-bit codes, and the widest blocks, take one code at a time from the word's low bits, the word shifted on (see
kernel()). Every way is the same arithmetic.
Run from anywhere: python3 tools/gen-affine-tile-kernels.py [--check: only compare with the committed files]
"""
import os
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                   'backend-java/src/main/java/panamax/backend/java/kernel/AffineTileDots.java')
SHAPES = [(4, 1), (1, 1), (2, 2), (1, 2), (2, 4), (1, 4), (1, 8), (2, 8)]
# code positions per part where a kernel shifts its words on (see kernel)
IN_MEMORY_PART = 1
# whether the 8-bit kernels of one and two x rows load each word a word ahead of its use. A product of few rows streams its tiles from
# DRAM, and a word's loads are issued only when the out-of-order window reaches them, behind the previous word's decoding
# and FMAs; loaded a word earlier, more lines are in flight. BackendAb, two threads, weights from DRAM, 8-bit, against the
# kernels before (2026-12-06): one x row 0.90-0.98x the time on 2048 x 8192, 8192 x 2048, 2048 x 2048, 2048 x 768,
# 768 x 2048 and 2048 x 128256 (two or three words ahead read the same), two rows 0.79-0.91x. Four rows read 0.85-1.04x,
# but 2048 x 2048 at four rows 0.64-1.78x from one JVM to the next (and the 1B preset's batch 4 slower in two runs of
# five); eight rows (t2r8, its totals in memory) 0.94-1.08x; 4-bit kernels 0.95-1.09x: those stay as they were.
LOAD_AHEAD = True
BITS = [8, 4, 2]
ARGS = "MemorySegment c, long cw, long ts, int groups, int wpg, float[] x, int xo, " \
       "MemorySegment pm, long so, long bo, int pts, float[] xs, int xso, float[] out, int oo, int ldo"
CALL = "c, cw, ts, groups, wpg, x, xo, pm, so, bo, pts, xs, xso, out, oo, ldo"

AFFINE_DOC = '''x·Wᵀ blocks over affine weights repacked by {@link AffineTiles}: tile t holds V weight rows, word w of all of them
 * as one vector ({@code c} from int {@code cw + t·ts + w·V}), and per group a vector of V scales and one of V biases
 * (f32 in {@code pm}, scales from byte {@code so + (t·pts + g·V)·4} and biases from {@code bo + …} alike, made by
 * {@link QuantMatVec#mantissaParameters}), or, where they are packed ({@code p}: bf16 parameters, half the bytes), one
 * vector of V ints from byte {@code so + (t·pts + g·V)·4}, each the bf16 bias above the bf16 scale, from which the
 * kernel makes the same f32 values. The block's R
 * x rows lie interleaved from {@code xo} (element kk of row r at {@code xo + kk·R + r}, so each word's broadcasts read
 * one run at constant offsets), their group sums from {@code xso + r·groups}; results go
 * to {@code out[oo + r·ldo + t·V + lane]}. Per lane (weight row) and x row, group by group: one FMA chain over the
 * group's codes in k order (the code as {@code 1 + q·2^-bits}), then {@code o = fma(a, s', o)}, {@code o = fma(b',
 * Σx, o)}: the same steps in every kernel, so a row of x gets the same bits alone and in any batch.
 * {@code tTrR}: T tiles against R x rows; {@code bB}: B-bit codes; {@code p}: packed parameters.'''


def head(name, doc, decode_words=False):
    """The generated file's package, imports, class comment, the constants the kernels share, and its private constructor
    (with decode_words, the decoding vectors' DECODE_WORDS too)."""
    words = f'''    // 1.0's bits, then the {", ".join(f"{b}-bit" for b in BITS)} codes' masks, V lanes each, which the register kernels load as
    // vectors once a call: see decode_constants in tools/gen-affine-tile-kernels.py
    private static final int[] DECODE_WORDS = decodeWords();
''' if decode_words else ""
    build = f'''
    private static int[] decodeWords() {{
        int[] words = new int[{len(BITS) + 1} * V];
        int[] fill = {{ONE, {", ".join(f"0x{code_mask(b):x}" for b in BITS)}}};
        for (int i = 0; i < words.length; i++) words[i] = fill[i / V];
        return words;
    }}
''' if decode_words else ""
    return f'''package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

// Generated by tools/gen-affine-tile-kernels.py: edit the generator, not this file.

/**
 * {doc}
 */
final class {name} {{
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final int V = S.length();
    private static final int ONE = Float.floatToRawIntBits(1f);
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
{words}
    private {name}() {{
    }}
{build}'''


def group_parameters(ind, t, at, scale, packed):
    """Lines making s{t} and b{t} (f32 s', b') from the group parameters at byte offset expression `at` past so (and bo):
    packed, one int per lane (bf16 bias above bf16 scale) turned into QuantMatVec.mantissaParameters' values (s' = s·2^bits
    with `scale` = 2^bits, b' = b − s'); else the two f32 vectors as stored. `at` None: at so and bo themselves."""
    so, bo = ("so", "bo") if at is None else (f"so + {at}", f"bo + {at}")
    if packed:
        return [f"{ind}IntVector p{t} = IntVector.fromMemorySegment(IS, pm, {so}, LE);",
                f"{ind}FloatVector s{t} = ((FloatVector) p{t}.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats()).mul({scale}), "
                f"b{t} = ((FloatVector) p{t}.and(0xffff0000).reinterpretAsFloats()).sub(s{t});"]
    return [f"{ind}FloatVector s{t} = FloatVector.fromMemorySegment(S, pm, {so}, LE), "
            f"b{t} = FloatVector.fromMemorySegment(S, pm, {bo}, LE);"]


def zero_chains(T, R, name, ind="        "):
    """One line declaring every (tile, x row) chain of a block, named by name(t, r), as zero vectors."""
    return ind + "FloatVector " + ", ".join(f"{name(t, r)} = FloatVector.zero(S)" for t in range(T) for r in range(R)) + ";"


def broadcast_fmas(ind, j, r, T, R, acc):
    """Code position j of x row r broadcast once and multiplied into the T tiles' chains of that row."""
    return (f"{ind}{{ FloatVector xv = FloatVector.broadcast(S, x[kx + {j * R + r}]);"
            + "".join(f" {acc(t, r)} = d{t}.fma(xv, {acc(t, r)});" for t in range(T)) + " }")


def stores(T, R, total):
    """Each (tile, x row) total stored at its place in out."""
    return [f"        {total(t, r)}.intoArray(out, oo + {r} * ldo + {t} * V);" for t in range(T) for r in range(R)]


def code_mask(bits):
    """The bits of a code placed at the top of 1.0's mantissa."""
    return ((1 << bits) - 1) << (23 - bits)


def decode_constants(bits):
    """The vectors each code's ternary-logic op takes, 1.0's bits and the code's mask, loaded from DECODE_WORDS once a call.
    Written as scalar constants (.and(0x7f8000).or(ONE)), C2 compiled the same kernel one of two ways from one JVM to
    the next: the two vectors held in registers (a copy before each ternary-logic op, which overwrites its first
    input), or rematerialized at every use as two vpbroadcastd from its constant table, 32 more instructions a trip of
    t4r1b8p's loop (126 against 111; tools/hot-loop-mix.py). On the MoE preset's 8-bit checkpoint, batch 1 (2026-12-06,
    Intel VM), 17 JVMs: 5 got registers and stepped in 14.1-14.5 ms, 12 got broadcasts and took 14.6-16.5 ms (mean
    15.3). Loaded from an array C2 cannot treat them as constants, so it keeps them in registers in every JVM."""
    return (f"        IntVector one = IntVector.fromArray(IS, DECODE_WORDS, 0), "
            f"mask = IntVector.fromArray(IS, DECODE_WORDS, {BITS.index(bits) + 1} * V);")


def kernel(T, R, bits, packed):
    """tTrRbB, or tTrRbBp where the group parameters are packed: one int per lane and group, the bf16 bias in its high
    half and the bf16 scale in its low half, turned into the f32 s' and b' as QuantMatVec.mantissaParameters makes them
    (s' = s·2^bits, exact; b' = b − s', the same rounding), so both forms give the same bits."""
    cpw = 32 // bits
    # a block of sixteen (tile, x row) pairs or more keeps its totals in out itself, where the group chains' steps
    # reach them once a group: its chains take the registers
    in_memory = T * R >= 16
    # code positions per straight part. Blocks of several x rows over 2- and 4-bit codes, and the widest blocks at every
    # width, take IN_MEMORY_PART at a time instead, decoded from the word's low bits, the word shifted on between parts:
    # C1 compiles that at its profiling tier (a straight 8-bit two-tile block ran out of its virtual registers, leaving
    # the kernel uncompiled for good), and C2 ran it faster (one thread, 2048 x 2048: t2r8 at 8 bits 103-114 against
    # 87-98 GFLOP/s; four x rows at 4 bits 96-99 against 85-86, at 2 bits 101-104 against 50-59, where the straight
    # parts spilled). One x row keeps straight parts: the extra shift per code costs there (4-bit batch 1: 14.8 against
    # 16.5 Gw/s).
    shifted = in_memory or (R > 1 and bits < 8)
    P = IN_MEMORY_PART if shifted else 4 if cpw == 4 or R == 1 else 8
    straight = P == cpw
    top = 23 - bits
    a = lambda t, r: f"a{t}{r}"
    o = lambda t, r: f"o{t}{r}"
    L = [f"    static void t{T}r{R}b{bits}{'p' if packed else ''}({ARGS}) {{"]
    L.append(decode_constants(bits))
    if in_memory:
        L.append("        FloatVector zero = FloatVector.zero(S);")
        L.extend(f"        zero.intoArray(out, oo + {r} * ldo + {t} * V);" for t in range(T) for r in range(R))
    else:
        L.append(zero_chains(T, R, o))
    # one or two x rows stream their 8-bit words from memory: each loaded a word ahead of its use (see LOAD_AHEAD)
    ahead = LOAD_AHEAD and bits == 8 and R <= 2
    load = lambda t, word: f"IntVector.fromMemorySegment(IS, c, (cw + {t} * ts + {word} * V) * 4, LE)"
    if ahead:
        L.append("        long last = (long) groups * wpg - 1;")
        L.append("        IntVector " + ", ".join(f"n{t} = {load(t, '0L')}" for t in range(T)) + ";")
    L.append("        for (int g = 0; g < groups; g++) {")
    L.append(zero_chains(T, R, a, "            "))
    L.append("            int w1 = (g + 1) * wpg;")
    L.append("            for (int w = g * wpg; w < w1; w++) {")
    for t in range(T):
        L.append(f"                IntVector c{t} = {f'n{t}' if ahead else load(t, '(long) w')};")
    if ahead:  # the last word is loaded again at the end: a clamp, not a branch
        L.append("                long next = Math.min(w + 1L, last);")
        L.append("                " + " ".join(f"n{t} = {load(t, 'next')};" for t in range(T)))
    ind = "                "
    if straight:
        L.append(f"{ind}int kx = xo + w * {cpw * R};")
    else:
        L.append(f"{ind}for (int q = 0; q < {cpw // P}; q++) {{")
        ind = "                    "
        L.append(f"{ind}int kx = xo + w * {cpw * R} + q * {P * R};")
        for t in range(T):
            if shifted:
                L.append(f"{ind}IntVector e{t} = c{t};")
            else:
                L.append(f"{ind}IntVector e{t} = c{t}.lanewise(VectorOperators.LSHR, q * {P * bits});")
    for j in range(P):
        for t in range(T):
            s = top - j * bits
            w = f"c{t}" if straight else f"e{t}"
            sh = f"{w}.lanewise(VectorOperators.LSHL, {s})" if s > 0 else f"{w}.lanewise(VectorOperators.LSHR, {-s})"
            d = f"(FloatVector) {sh}.and(mask).or(one).reinterpretAsFloats()"
            L.append(f"{ind}{'FloatVector ' if j == 0 else ''}d{t} = {d};")
        for r in range(R):
            L.append(broadcast_fmas(ind, j, r, T, R, a))
    if not straight:
        if shifted:
            for t in range(T):
                L.append(f"{ind}c{t} = c{t}.lanewise(VectorOperators.LSHR, {P * bits});")
        L.append("                }")
    L.append("            }")
    for t in range(T):
        L.extend(group_parameters("            ", t, f"({t} * pts + g * V) * 4L", f"{1 << bits}f", packed))
    for r in range(R):
        if in_memory:
            L.append(f"            {{ FloatVector xsv = FloatVector.broadcast(S, xs[xso + {r} * groups + g]);"
                     + "".join(f" b{t}.fma(xsv, {a(t, r)}.fma(s{t}, FloatVector.fromArray(S, out, oo + {r} * ldo + {t} * V)))"
                               f".intoArray(out, oo + {r} * ldo + {t} * V);" for t in range(T)) + " }")
        else:
            L.append(f"            {{ FloatVector xsv = FloatVector.broadcast(S, xs[xso + {r} * groups + g]);"
                     + "".join(f" {o(t, r)} = {a(t, r)}.fma(s{t}, {o(t, r)}); {o(t, r)} = b{t}.fma(xsv, {o(t, r)});"
                               for t in range(T)) + " }")
    L.append("        }")
    if not in_memory:
        L.extend(stores(T, R, o))
    L.append("    }")
    return "\n".join(L)


HALF_ARGS = "MemorySegment c, long cw, long ts, int words, float[] x, int xo, float[] out, int oo, int ldo"
HALF_CALL = "c, cw, ts, words, x, xo, out, oo, ldo"
HALF_SHAPES = [(4, 1), (1, 1), (2, 2), (1, 2), (2, 4), (1, 4), (1, 8), (2, 8), (2, 12), (1, 12)]


def half_kernel(T, R):
    """bf16 weights: a word holds k positions 2w (low half) and 2w + 1 (high half) of a row; one chain per output."""
    a = lambda t, r: f"a{t}{r}" if R < 10 else f"a{t}_{r}"
    L = [f"    static void t{T}r{R}h({HALF_ARGS}) {{"]
    L.append(zero_chains(T, R, a))
    L.append("        for (int w = 0; w < words; w++) {")
    for t in range(T):
        L.append(f"            IntVector c{t} = IntVector.fromMemorySegment(IS, c, (cw + {t} * ts + (long) w * V) * 4, LE);")
    L.append(f"            int kx = xo + w * {2 * R};")
    for j in range(2):
        for t in range(T):
            d = f"(FloatVector) c{t}.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats()" if j == 0 \
                else f"(FloatVector) c{t}.and(0xffff0000).reinterpretAsFloats()"
            L.append(f"            {'FloatVector ' if j == 0 else ''}d{t} = {d};")
        for r in range(R):
            L.append(broadcast_fmas("            ", j, r, T, R, a))
    L.append("        }")
    L.extend(stores(T, R, a))
    L.append("    }")
    return "\n".join(L)


def generate():
    parts = [head("AffineTileDots", AFFINE_DOC, decode_words=True)]
    for T, R in SHAPES:
        parts.append(f"    /** {T} tile{'s' if T > 1 else ''} against {R} x row{'s' if R > 1 else ''}. */")
        parts.append(f"    static void t{T}r{R}(int bits, boolean packed, {ARGS}) {{")
        parts.append("        switch (bits) {")
        for bits in BITS:
            parts.append(f"            case {bits} -> {{ if (packed) t{T}r{R}b{bits}p({CALL}); else t{T}r{R}b{bits}({CALL}); }}")
        parts.append("            default -> throw new IllegalArgumentException(\"tile kernels take 2, 4 or 8-bit codes, not \" + bits);")
        parts.append("        }")
        parts.append("    }\n")
    for packed in (False, True):
        for bits in BITS:
            for T, R in SHAPES:
                parts.append(kernel(T, R, bits, packed))
                parts.append("")
    for T, R in HALF_SHAPES:
        parts.append(f"    /** bf16 rows: {T} tile{'s' if T > 1 else ''} against {R} x row{'s' if R > 1 else ''}, one FMA chain per output over k in order. */")
        parts.append(half_kernel(T, R))
        parts.append("")
    return "\n".join(parts).rstrip() + "\n}\n"


DECODED_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                           'backend-java/src/main/java/panamax/backend/java/kernel/DecodedTileDots.java')
DECODED_SHAPES = [(2, 12), (1, 12), (2, 8), (1, 8), (2, 4), (1, 4), (2, 2), (1, 2), (2, 1), (1, 1)]
DECODED_ARGS = "float[] d, float[] sb, int gk, float[] x, int xo, float[] xs, int xso, int groups, int g, float[] out, int oo, int ldo"
DECODED_CALL = "d, sb, gk, x, xo, xs, xso, groups, g, out, oo, ldo"

DECODED_DOC = """One group of x·Wᵀ over affine tiles whose codes were decoded into an f32 scratch ({@link AffineTiles}: the group's
 * codes of T tiles as {@code 1 + q·2^-bits}, k step kk of tile t at {@code d[(kk·T + t)·V]}, and its parameters s', b'
 * of tile t at {@code sb[2t·V]} and {@code sb[(2t + 1)·V]}), so a prefill decodes each code once per pass of x rows
 * instead of once per block. The block's R x rows lie as {@link AffineTileDots}' do (k step kk of the group, row r at
 * {@code xo + kk·R + r}, {@code xo} already at the group), their group sums at {@code xs[xso + r·groups + g]}. The
 * steps are {@link AffineTileDots}' to the bit: per lane and x row one FMA chain over the group's k in order, then
 * {@code o = fma(a, s', o)}, {@code o = fma(b', Σx, o)} with o read from and written to {@code out[oo + r·ldo + t·V]}
 * (which the caller zeroes before group 0), so a row gets the same bits from these kernels as from the register ones,
 * alone or in any batch. {@code dTrR}: T tiles against R x rows; {@code decodeB}: B-bit codes into the scratch;
 * {@code parameters}: a group's s' and b' into it, made as the register kernels make them."""


def decoded_kernel(T, R):
    a = lambda t, r: f"a{t}_{r}"
    L = [f"    static void d{T}r{R}({DECODED_ARGS}) {{"]
    L.append(zero_chains(T, R, a))
    L.append("        for (int kk = 0; kk < gk; kk++) {")
    for t in range(T):
        L.append(f"            FloatVector d{t} = FloatVector.fromArray(S, d, (kk * {T} + {t}) * V);")
    L.append(f"            int kx = xo + kk * {R};")
    for r in range(R):
        L.append(broadcast_fmas("            ", 0, r, T, R, a))
    L.append("        }")
    for t in range(T):
        L.append(f"        FloatVector s{t} = FloatVector.fromArray(S, sb, {2 * t} * V), b{t} = FloatVector.fromArray(S, sb, {2 * t + 1} * V);")
    for r in range(R):
        L.append(f"        {{ FloatVector xsv = FloatVector.broadcast(S, xs[xso + {r} * groups + g]);"
                 + "".join(f" b{t}.fma(xsv, {a(t, r)}.fma(s{t}, FloatVector.fromArray(S, out, oo + {r} * ldo + {t} * V)))"
                           f".intoArray(out, oo + {r} * ldo + {t} * V);" for t in range(T)) + " }")
    L.append("    }")
    return "\n".join(L)


def decoder(bits):
    """Words [w0, w0 + wpg) of one tile (from int cw of c) into the scratch as 1 + q·2^-bits, code j of word w at k step
    w·(32/bits) + j, tile i of T: constant shifts, as the register kernels' straight parts take them."""
    cpw = 32 // bits
    top = 23 - bits
    mask = code_mask(bits)
    L = [f"    static void decode{bits}(MemorySegment c, long cw, int w0, int wpg, float[] d, int T, int i) {{"]
    L.append("        for (int w = 0; w < wpg; w++) {")
    L.append("            IntVector cv = IntVector.fromMemorySegment(IS, c, (cw + (long) (w0 + w) * V) * 4, LE);")
    L.append(f"            int kk = w * {cpw};")
    for j in range(cpw):
        sh = top - j * bits
        op = f"cv.lanewise(VectorOperators.LSHL, {sh})" if sh > 0 else f"cv.lanewise(VectorOperators.LSHR, {-sh})"
        L.append(f"            ((FloatVector) {op}.and(0x{mask:x}).or(ONE).reinterpretAsFloats()).intoArray(d, ((kk + {j}) * T + i) * V);")
    L.append("        }")
    L.append("    }")
    return "\n".join(L)


def generate_decoded():
    parts = [head("DecodedTileDots", DECODED_DOC)]
    parts.append("    /** The group parameters from byte {@code so} (f32 biases from {@code bo}) as s' and b' into {@code sb[to]}, {@code sb[to + V]}. */")
    parts.append("    static void parameters(int bits, boolean packed, MemorySegment pm, long so, long bo, float[] sb, int to) {")
    parts.append("        if (packed) {")
    parts.extend(group_parameters("            ", 0, None, "1 << bits", True))
    parts.append("            s0.intoArray(sb, to);")
    parts.append("            b0.intoArray(sb, to + V);")
    parts.append("        } else {")
    parts.extend(group_parameters("            ", 0, None, "1 << bits", False))
    parts.append("            s0.intoArray(sb, to);")
    parts.append("            b0.intoArray(sb, to + V);")
    parts.append("        }")
    parts.append("    }\n")
    parts.append("    /** Words {@code [w0, w0 + wpg)} of the tile from int {@code cw} of {@code c} decoded into {@code d} as tile i of T. */")
    parts.append("    static void decode(int bits, MemorySegment c, long cw, int w0, int wpg, float[] d, int T, int i) {")
    parts.append("        switch (bits) {")
    for bits in BITS:
        parts.append(f"            case {bits} -> decode{bits}(c, cw, w0, wpg, d, T, i);")
    parts.append("            default -> throw new IllegalArgumentException(\"tile kernels take 2, 4 or 8-bit codes, not \" + bits);")
    parts.append("        }")
    parts.append("    }\n")
    for bits in BITS:
        parts.append(decoder(bits))
        parts.append("")
    parts.append("    /** T tiles (1 or 2) against R x rows (12, 8, 4, 2 or 1) of one group. */")
    parts.append(f"    static void run(int tiles, int rows, {DECODED_ARGS}) {{")
    parts.append("        switch (tiles * 100 + rows) {")
    for T, R in DECODED_SHAPES:
        parts.append(f"            case {T * 100 + R} -> d{T}r{R}({DECODED_CALL});")
    parts.append("            default -> throw new IllegalArgumentException(\"no decoded-group kernel for \" + tiles + \" tiles and \" + rows + \" rows\");")
    parts.append("        }")
    parts.append("    }\n")
    for T, R in DECODED_SHAPES:
        parts.append(f"    /** {T} tile{'s' if T > 1 else ''} against {R} x row{'s' if R > 1 else ''}. */")
        parts.append(decoded_kernel(T, R))
        parts.append("")
    return "\n".join(parts).rstrip() + "\n}\n"


if __name__ == '__main__':
    outputs = [(OUT, generate()), (DECODED_OUT, generate_decoded())]
    if '--check' in sys.argv:
        stale = []
        for path, text in outputs:
            with open(path) as f:
                if f.read() != text:
                    stale.append(os.path.basename(path))
        print(f"{len(outputs)} files match the generator's output" if not stale
              else ', '.join(stale) + ' stale: rerun tools/gen-affine-tile-kernels.py')
        sys.exit(1 if stale else 0)
    for path, text in outputs:
        with open(path, 'w') as f:
            f.write(text)
