#!/usr/bin/env python3
"""Regenerates Bf16RowDecoder.decodeOf64Pair from decodeOf64 in the same file: each statement written twice,
for rows A and B (the table, row and vectors per row; mask, half and k shared). Edit decodeOf64, then run
python3 tools/gen-bf16-row-decoder-pair.py.
"""
import re
import os
p=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'backend-java/src/main/java/panamax/backend/java/kernel/Bf16RowDecoder.java')
s=open(p).read()
m=s[s.index("    private static void decodeOf64("):]
m=m[:m.index("\n    }\n")+7]
lines=m.split('\n')
body=lines[2:]  # skip 2-line signature
stmts=[];cur=[]
for l in body:
    if l.strip() in ('}',''): continue
    if l.strip().startswith('//'): continue
    cur.append(l)
    if l.rstrip().endswith(';') or re.search(r';\s*//.*$', l):
        stmts.append(cur); cur=[]
shared={'mask','half','k'}
locals_={'table','row','e0','o0','e1','o1','t0','e0i','o0i','e1i','o1i'}
def ren(txt,suf):
    def rep(mm):
        w=mm.group(0)
        return w+suf if w in locals_ else w
    txt=re.sub(r'\b[A-Za-z_][A-Za-z0-9_]*\b', rep, txt)
    for a in ('scale','signWords','rowByte','dstByte'):
        txt=re.sub(r'\b'+a+r'\b', a+suf, txt)
    return txt
out=["    public static void decodeOf64Pair(Table t, MemorySegment packed, int bits, long rowByteA, float scaleA, int[] signWordsA, long dstByteA,",
     "            long rowByteB, float scaleB, int[] signWordsB, long dstByteB, MemorySegment dst) {"]
for st in stmts:
    txt='\n'.join(st)
    first=txt.strip().split()[1] if txt.strip().startswith(('IntVector','int ')) else None
    if re.match(r'\s*(IntVector (mask|half)|int k)\b', txt):
        out.append(txt); continue
    out.append(ren(txt,'A')); out.append(ren(txt,'B'))
out.append("    }")
pair='\n'.join(out)+'\n'
a=s.index('    public static void decodeOf64Pair(')
b=s.index('\n    }\n', a)+7
open(p,'w').write(s[:a]+pair+s[b:])
