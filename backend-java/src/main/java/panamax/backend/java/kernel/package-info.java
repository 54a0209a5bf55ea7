/**
 * Array- and segment-level compute kernels of the java backend (Vector API): matrix-vector dot
 * products over bf16/f32/f16 rows, the blocked f32 GEMM, MLX affine code packing and the quantized
 * matrix-vector kernel, each with a scalar twin used as the test oracle. Not exported.
 *
 * {@snippet :
 * float[] a = {1, 2, 3, 4};
 * float[] b = {5, 6, 7, 8};
 * float fast = MatVec.dot(a, 0, b, 0, 4);        // Vector API
 * float slow = MatVec.dotScalar(a, 0, b, 0, 4);  // the oracle
 * }
 */
package panamax.backend.java.kernel;
