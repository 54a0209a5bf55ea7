#!/usr/bin/env python3
"""The instruction mix of a C2-compiled method's hottest loop, from a JVM's PrintAssembly output, without hsdis.

Without a disassembler plugin the JVM prints a compiled method as hex words; this cuts out the last C2 compile
of the method, disassembles it with binutils' objdump, lists the backward-branch loops that hold vector FMAs and no
call, and counts by mnemonic the instructions of the innermost one with the most FMAs (the kernel's main loop; a
kernel's group loop around it, with its folds and its inner loops' pre and post copies, is listed but not counted).
Use it to see what a kernel's loop really costs per weight (docs/backend-java.md, "Instructions per weight, from the
compiled loop").

    java -XX:+UnlockDiagnosticVMOptions -XX:CompileCommand=print,*AffineDots.rows4x1b8c1 ... > asm.txt
    python3 tools/hot-loop-mix.py asm.txt [--weights N]   # N: weights one trip of the loop consumes

Needs objdump (binutils) on x86-64.
"""
import collections
import re
import subprocess
import sys
import tempfile


def last_c2_code(lines):
    starts = [i for i, line in enumerate(lines) if 'Compiled method (c2)' in line]
    if not starts:
        sys.exit('no C2-compiled method in the log: did the CompileCommand=print pattern match, and did C2 compile it?')
    start = starts[-1]
    end = next((i for i in range(start + 1, len(lines)) if 'Compiled method' in lines[i]), len(lines))
    code = bytearray()
    in_body = False
    for line in lines[start:end]:
        if 'Entry Point]' in line:
            in_body = True
        if line.startswith('[Stub Code]') or line.startswith('[Exception Handler]'):
            break
        m = re.match(r'\s+0x[0-9a-f]+:\s+(.*)', line)
        if m and in_body:
            for word in m.group(1).split('|'):
                word = word.strip().replace(' ', '')
                if re.fullmatch(r'[0-9a-f]+', word):
                    code += bytes.fromhex(word)
    return lines[start].strip(), bytes(code)


def disassemble(code):
    with tempfile.NamedTemporaryFile(suffix='.bin') as f:
        f.write(code)
        f.flush()
        out = subprocess.run(['objdump', '-D', '-b', 'binary', '-mi386:x86-64', '-M', 'intel', f.name],
                             capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.split('\n'):
        parts = line.split('\t')
        m = re.match(r'\s*([0-9a-f]+):', parts[0]) if parts else None
        if m and len(parts) >= 3 and parts[2].strip():
            rows.append((int(m.group(1), 16), parts[2].strip()))
    return rows


def loops(rows):
    """(start, end, body) of every backward branch's range that holds FMAs and no call."""
    found = []
    for addr, ins in rows:
        j = re.match(r'j\w+\s+0x([0-9a-f]+)', ins)
        if j and int(j.group(1), 16) < addr:
            start = int(j.group(1), 16)
            body = [i for a, i in rows if start <= a <= addr]
            if any(i.startswith(('call', 'ret')) for i in body):
                continue  # spans the method's slow paths, not a loop of the kernel
            if any(i.startswith('vfmadd') for i in body):
                found.append((start, addr, body))
    if not found:
        sys.exit('no loop found in the compiled code')
    return found


def innermost_loops(rows):
    """The loops with FMAs that hold no other such loop; C2's copies of one loop (pre, main, post) are each one."""
    found = loops(rows)
    return [l for l in found if not any(o is not l and l[0] <= o[0] and o[1] <= l[1] for o in found)]


def summary(loop):
    body = loop[2]
    fmas = sum(1 for i in body if i.startswith('vfmadd'))
    scalar = sum(1 for i in body if not i.startswith('v'))
    return f'{len(body)} instructions, {fmas} FMAs, {scalar} scalar'


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    weights = None
    if '--weights' in sys.argv:
        weights = int(sys.argv[sys.argv.index('--weights') + 1])
    header, code = last_c2_code(open(sys.argv[1], errors='replace').read().split('\n'))
    rows = disassemble(code)
    inner = innermost_loops(rows)
    # the one counted: most FMAs, then fewest instructions (C2's main loop, unrolled, beside its pre and post loops)
    body = max(inner, key=lambda l: (sum(1 for i in l[2] if i.startswith('vfmadd')), -len(l[2])))[2]
    mix = collections.Counter(i.split()[0] for i in body)
    vector = sum(n for op, n in mix.items() if op.startswith('v'))
    print(header)
    outer = [l for l in loops(rows) if l not in inner]
    for l in outer:
        print(f'enclosing loop 0x{l[0]:x}-0x{l[1]:x}: {summary(l)} (its inner loops once)')
    for l in inner:
        print(f'innermost loop 0x{l[0]:x}-0x{l[1]:x}: {summary(l)}')
    print(f'counted loop: {len(body)} instructions, {vector} vector, {len(body) - vector} scalar')
    reg_copies = sum(1 for i in body if re.match(r'vmovdq[au]\d*\s+[xyz]mm\d+,\s*[xyz]mm\d+$', i))
    print(f'vector register copies: {reg_copies}')
    for op, n in mix.most_common():
        per = f'  ({n * 16 / weights:.2f} per 16 weights)' if weights else ''
        print(f'{n:6d}  {op}{per}')


if __name__ == '__main__':
    main()
