/**
 * Helpers shared by the codecs, built on {@code Ops} only: tensor scopes, masked softmax, MLX-layout
 * bit packing and code tables, seeded random streams, parameter checks. Not exported.
 *
 * {@snippet :
 * try (TensorScope s = new TensorScope(); BitPacker packer = new BitPacker(backend, 3)) {
 *     Tensor packed = s.add(packer.pack(ops, codes)); // U32 [..., n·3/32], LSB-first bit stream
 * }
 * }
 */
package panamax.kv.codecs.internal;
