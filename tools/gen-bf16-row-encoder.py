#!/usr/bin/env python3
"""Regenerates the written-out methods of backend-java's Bf16RowEncoder (one per row length and width).

The class head (fields, encodes, encode's dispatch) is kept as it is in the file; everything from the
1-bit method of rows of 128 on is replaced. Run from anywhere: python3 tools/gen-bf16-row-encoder.py
"""
import re
def gen(n, bits):
    C = n // 32
    names=[]
    for c in range(C): names += [f"e{c}", f"o{c}"]
    L=[]; a=L.append
    a(f"    private static float encode{bits}Of{n}(MemorySegment src, long srcByte, float[] factors, int[] table, MemorySegment packed, long at) {{")
    for c in range(C):
        a(f"        IntVector w{c} = IntVector.fromMemorySegment(I, src, srcByte + {64*c}L, ByteOrder.LITTLE_ENDIAN);")
    for c in range(C):
        a(f"        FloatVector x{c} = w{c}.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();")
        a(f"        FloatVector y{c} = w{c}.and(0xFFFF0000).reinterpretAsFloats();")
    a("        // the norm from the input (the rotation keeps it): the scale of the codes is ready before the butterflies end")
    for c in range(C):
        a(f"        FloatVector s{c} = x{c}.mul(x{c}).add(y{c}.mul(y{c}));")
    if C==4:
        a("        float norm = (float) Math.sqrt(s0.add(s1).add(s2.add(s3)).reduceLanes(VectorOperators.ADD));")
    else:
        a("        float norm = (float) Math.sqrt(s0.add(s1).reduceLanes(VectorOperators.ADD));")
    a("        float d = Math.max(norm, Float.MIN_NORMAL);")
    if bits >= 3:
        a("        float perCell = Float.intBitsToFloat(table[CELL_SCALE]) / d;")
        a("        if (!Float.isFinite(d) || !Float.isFinite(perCell)) return -1f; // a NaN or infinity in the row, or a norm that overflowed")
    else:
        a("        if (!Float.isFinite(d)) return -1f; // a NaN or infinity in the row, or a norm that overflowed")
    for c in range(C):
        a(f"        FloatVector e{c} = x{c}.mul(FloatVector.fromArray(F, factors, {32*c}));")
        a(f"        FloatVector o{c} = y{c}.mul(FloatVector.fromArray(F, factors, {32*c+16}));")
    a("        FloatVector t;")
    for c in range(C):
        a(f"        t = e{c}; e{c} = t.add(o{c}); o{c} = t.sub(o{c});" + (" // stride 1" if c==0 else ""))
    a("        // strides 2 .. 16")
    for k in "1248":
        for v in names:
            a(f"        {v} = {v}.fma(HadamardVectors.SIGN_{k}, {v}.rearrange(HadamardVectors.SWAP_{k}));")
    h=1
    while h < C:
        first=True
        for base in range(0, C, 2*h):
            for c in range(base, base+h):
                for p in "eo":
                    x=f"{p}{c}"; y=f"{p}{c+h}"
                    a(f"        t = {x}; {x} = t.add({y}); {y} = t.sub({y});" + (f" // stride {32*h}" if first else ""))
                    first=False
        h*=2
    if bits >= 3:
        a("        IntVector countLo = IntVector.fromArray(I, table, 16);")
        a("        IntVector countHi = IntVector.fromArray(I, table, 32);")
        a("        IntVector boundLo = IntVector.fromArray(I, table, 48).reinterpretAsFloats().mul(d).reinterpretAsInts();")
        a("        IntVector boundHi = IntVector.fromArray(I, table, 64).reinterpretAsFloats().mul(d).reinterpretAsInts();")
        a("        FloatVector scale = FloatVector.broadcast(F, perCell);")
        a("        FloatVector offset = FloatVector.broadcast(F, RINT + table[CELL_SCALE + 1]);")
        for v in names:
            a(f"        IntVector c{v} = {v}.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);")
            a(f"        c{v} = c{v}.selectFrom(countLo, countHi).add(1, {v}.compare(VectorOperators.GT, c{v}.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));")
    if bits == 4:
        a("        // a chunk's byte i holds codes 2i (low nibble) and 2i + 1: its even and odd codes")
        for c in range(C):
            a(f"        ce{c}.or(co{c}.lanewise(VectorOperators.LSHL, 4)).convertShape(VectorOperators.I2B, BYTES16, 0).intoMemorySegment(packed, at + {16*c}L, ByteOrder.LITTLE_ENDIAN);")
    elif bits == 3:
        a("        // a chunk's 32 codes in 96 bits: code 2i at bit 6i, 2i + 1 at 6i + 3 (six bits per lane); long lane k then")
        a("        // holds codes 4k .. 4k + 3 in its low 12 bits (lane 2k's six and lane 2k + 1's shifted down to bit 6),")
        a("        // narrowed to shorts and the two halves' 48 bits gathered by bit extraction")
        for c in range(C):
            a(f"        LongVector p{c} = co{c}.lanewise(VectorOperators.LSHL, 3).or(ce{c}).reinterpretAsLongs();")
            a(f"        LongVector q{c} = p{c}.or(p{c}.lanewise(VectorOperators.LSHR, 26)).convertShape(VectorOperators.L2S, SHORTS128, 0).reinterpretAsLongs();")
            a(f"        long lo{c} = Long.compress(q{c}.lane(0), TWELVE_OF_SIXTEEN), hi{c} = Long.compress(q{c}.lane(1), TWELVE_OF_SIXTEEN);")
            a(f"        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, at + {12*c}L, lo{c} | hi{c} << 48);")
            a(f"        packed.set(ValueLayout.JAVA_INT_UNALIGNED, at + {12*c+8}L, (int) (hi{c} >>> 16));")
    elif bits == 1:
        a("        FloatVector middle = FloatVector.broadcast(F, Float.intBitsToFloat(table[1]) * d);")
        a("        // a chunk's 32 codes: bit 2i from the even values' compare mask, bit 2i + 1 from the odd values'")
        for c in range(C):
            a(f"        packed.set(ValueLayout.JAVA_INT_UNALIGNED, at + {4*c}L, (int) (Long.expand(e{c}.compare(VectorOperators.GT, middle).toLong(), EVEN_BITS)")
            a(f"                | Long.expand(o{c}.compare(VectorOperators.GT, middle).toLong(), EVEN_BITS << 1)));")
    elif bits == 2:
        a("        FloatVector middle = FloatVector.broadcast(F, Float.intBitsToFloat(table[2]) * d);")
        a("        FloatVector low = FloatVector.broadcast(F, Float.intBitsToFloat(table[1]) * d);")
        a("        FloatVector high = FloatVector.broadcast(F, Float.intBitsToFloat(table[3]) * d);")
        a("        // a chunk's 32 codes in 64 bits: code 2i's low bit (above the boundary its half picked) at 4i, its high bit")
        a("        // (above the middle) at 4i + 1; code 2i + 1's at 4i + 2 and 4i + 3")
        for c in range(C):
            for p in "eo":
                a(f"        VectorMask<Float> u{p}{c} = {p}{c}.compare(VectorOperators.GT, middle);")
                a(f"        VectorMask<Float> n{p}{c} = {p}{c}.compare(VectorOperators.GT, low.blend(high, u{p}{c}));")
            a(f"        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, at + {8*c}L, Long.expand(ne{c}.toLong(), NIBBLE_BIT) | Long.expand(ue{c}.toLong(), NIBBLE_BIT << 1)")
            a(f"                | Long.expand(no{c}.toLong(), NIBBLE_BIT << 2) | Long.expand(uo{c}.toLong(), NIBBLE_BIT << 3));")
    a("        return norm;")
    a("    }")
    return "\n".join(L)+"\n"

def gen_pair(n, bits):
    one = gen(n, bits)
    lines = one.split('\n')
    body = lines[1:]  # after signature
    # strip final "return norm;" and closing
    out_a=[]; out_b=[]
    locals_ = {'w0','w1','x0','x1','y0','y1','s0','s1','norm','d','perCell','e0','o0','e1','o1','t','countLo','countHi','boundLo','boundHi','scale','offset','ce0','co0','ce1','co1','middle','low','high','p0','p1','q0','q1','lo0','lo1','hi0','hi1',
               'ue0','ne0','uo0','no0','ue1','ne1','uo1','no1'}
    def rename(line, suf):
        def rep(m):
            w=m.group(0)
            return w+suf if w in locals_ else w
        line = re.sub(r'\b[A-Za-z][A-Za-z0-9]*\b', rep, line)
        line = line.replace('srcByte', 'srcByte'+suf).replace('factors', 'factors'+suf).replace(' at +', ' at'+suf+' +')
        return line
    res=[]
    res.append(f"    private static boolean encode{bits}Of{n}Pair(MemorySegment src, long srcByteA, float[] factorsA, long srcByteB, float[] factorsB, int[] table,")
    res.append("            MemorySegment packed, long atA, long atB, float[] norms) {")
    stmts=[]
    cur=[]
    for l in body:
        if l.strip() in ('}', ''): continue
        if 'return norm;' in l: continue
        if l.strip().startswith('//'): continue
        if 'return -1f' in l:
            stmts.append([l]); continue
        cur.append(l)
        if l.rstrip().endswith(';'):
            stmts.append(cur); cur=[]
    for st in stmts:
        txt='\n'.join(st)
        if 'return -1f' in txt:
            # one check for both rows, where the one-row method checks its own
            cond = re.search(r'if \((.*)\) return -1f;', txt).group(1)
            res.append(f"        if ({rename(cond, 'A')} || {rename(cond, 'B')}) return false;")
            continue
        for suf in ('A','B'):
            res.append(rename(txt, suf))
    res.append("        norms[0] = normA;")
    res.append("        norms[1] = normB;")
    res.append("        return true;")
    res.append("    }")
    
    return '\n'.join(res) + '\n'

import os, sys, re
p=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'backend-java/src/main/java/panamax/backend/java/kernel/Bf16RowEncoder.java')
s=open(p).read()
head=s[:s.index("    /** {@link #encode} of 1-bit codes in a row of 128. */")]
WIDTHS=[1, 2, 3, 4]
body=""
for n in (128,64):
    for b in WIDTHS:
        body += f"    /** {{@link #encode}} of {b}-bit codes in a row of {n}. */\n" + gen(n,b) + "\n"
# two rows of 64 in one method: one row leaves the core waiting on its own chain (twice the bytecode of
# one row; at 128 it would pass C1's limit)
for b in WIDTHS:
    body += ("    /**\n     * Two rows of 64 at %d bits, interleaved ({@link #encode} of each: the same codes and norms), their norms\n"
             "     * into {@code norms[0..1]}; false, with nothing written, when either row is refused.\n     */\n") % b + gen_pair(64, b) + "\n"
open(p,'w').write(head+body.rstrip()+"\n}\n")
