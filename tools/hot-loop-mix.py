#!/usr/bin/env python3
"""The instruction mix of a C2-compiled method's hottest loop, from a JVM's PrintAssembly output, without hsdis.

Without a disassembler plugin the JVM prints a compiled method as hex words; this cuts out the last C2 compile
of the method, disassembles it with binutils' objdump, takes the backward branch whose loop holds the most
vector FMAs and no call (the kernel's main loop) and counts its instructions by mnemonic. Use it to see what a kernel's
loop really costs per weight (docs/backend-java.md, "Instructions per weight, from the compiled loop").

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


def hottest_loop(rows):
    best = None
    for addr, ins in rows:
        j = re.match(r'j\w+\s+0x([0-9a-f]+)', ins)
        if j and int(j.group(1), 16) < addr:
            body = [i for a, i in rows if int(j.group(1), 16) <= a <= addr]
            if any(i.startswith(('call', 'ret')) for i in body):
                continue  # spans the method's slow paths, not a loop of the kernel
            fmas = sum(1 for i in body if i.startswith('vfmadd'))
            if fmas and (best is None or fmas > best[0] or fmas == best[0] and len(body) < len(best[1])):
                best = (fmas, body)
    if best is None:
        sys.exit('no loop found in the compiled code')
    return best[1]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    weights = None
    if '--weights' in sys.argv:
        weights = int(sys.argv[sys.argv.index('--weights') + 1])
    header, code = last_c2_code(open(sys.argv[1], errors='replace').read().split('\n'))
    body = hottest_loop(disassemble(code))
    mix = collections.Counter(i.split()[0] for i in body)
    vector = sum(n for op, n in mix.items() if op.startswith('v'))
    print(header)
    print(f'hottest loop: {len(body)} instructions, {vector} vector, {len(body) - vector} scalar')
    reg_copies = sum(1 for i in body if re.match(r'vmovdq[au]\d*\s+[xyz]mm\d+,\s*[xyz]mm\d+$', i))
    print(f'vector register copies: {reg_copies}')
    for op, n in mix.most_common():
        per = f'  ({n * 16 / weights:.2f} per 16 weights)' if weights else ''
        print(f'{n:6d}  {op}{per}')


if __name__ == '__main__':
    main()
