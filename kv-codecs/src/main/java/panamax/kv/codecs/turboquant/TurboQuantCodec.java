package panamax.kv.codecs.turboquant;

import java.util.ArrayList;
import java.util.List;
import panamax.api.kv.CodecContext;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.BinaryOp;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;
import panamax.kv.codecs.internal.MaskedSoftmax;
import panamax.kv.codecs.internal.TensorScope;

/**
 * TurboQuant (Zandieh et al., 2025, arXiv 2504.19874) for one layer. Each vector is split into its
 * norm (plane {@code norm}) and direction; the direction is rotated by the head's randomized
 * Hadamard transform and every rotated coordinate is quantized to the Lloyd-Max codebook of the
 * padded dimension. With {@code qjl}, keys also keep the 1-bit QJL sketch of the codebook residual
 * and its norm, which makes inner products unbiased.
 *
 * <p>Attention never leaves the rotated domain for the cache: the query is rotated once per step
 * and scored against the rotated centroids, the probabilities weight the rotated value centroids,
 * and the output is un-rotated once ({@code Σ pᵢ·R vᵢ = R·Σ pᵢ·vᵢ}). Owns its rotation, codebook
 * and projection tensors; not thread-safe.
 */
final class TurboQuantCodec implements KvCodec {
    private final TurboQuantConfig config;
    private final CodecContext context;
    private final CodecShape shape;
    private final int n;
    private final RandomizedHadamard rotation;
    private final CodebookQuantizer keyCodes;   // null when QJL takes every key bit
    private final CodebookQuantizer valueCodes;
    private final QjlProjection qjl;            // null unless config.qjl()

    TurboQuantCodec(TurboQuantConfig config, CodecContext context) {
        this.config = config;
        this.context = context;
        this.shape = config.shape();
        this.n = config.paddedDim();
        long[] ids = {context.seed(), config.seed(), context.layer()};
        var backend = context.backend();
        this.rotation = new RandomizedHadamard(backend, context.kvHeads(), config.headDim(), n, ids);
        this.keyCodes = config.keyCodeBits() > 0 ? new CodebookQuantizer(backend, n, config.keyCodeBits()) : null;
        this.valueCodes = new CodebookQuantizer(backend, n, config.valueBits());
        this.qjl = config.qjl() ? new QjlProjection(backend, n, ids) : null;
    }

    @Override
    public CodecShape shape() {
        return shape;
    }

    @Override
    public List<Tensor> encode(KvRole role, Tensor x) {
        if (x.rank() != 4 || x.dim(-1) != config.headDim() || x.dim(1) != context.kvHeads()) {
            throw new IllegalArgumentException("expected [rows, " + context.kvHeads() + ", tokens, " + config.headDim()
                    + "], found " + x.shape());
        }
        Ops ops = x.backend().ops();
        List<Tensor> planes = new ArrayList<>();
        try (TensorScope s = new TensorScope()) {
            Tensor xf = s.add(ops.astype(x, DType.F32));
            Tensor norm = s.add(norm(ops, s, xf));
            Tensor unit = s.add(ops.div(xf, s.add(ops.binary(BinaryOp.MAXIMUM, norm, Float.MIN_NORMAL))));
            Tensor rotated = s.add(rotation.forward(ops, unit));          // [B, H, T, n]
            CodebookQuantizer quantizer = role == KvRole.KEY ? keyCodes : valueCodes;
            Tensor approx = null;
            if (quantizer != null) {
                Tensor codes = s.add(quantizer.codes(ops, rotated));
                planes.add(s.keep(s.add(quantizer.pack(ops, codes))));
                if (role == KvRole.KEY && qjl != null) approx = s.add(quantizer.centroids(ops, codes));
            }
            planes.add(s.keep(norm));
            if (role == KvRole.KEY && qjl != null) {
                Tensor residual = approx == null ? rotated : s.add(ops.sub(rotated, approx));
                planes.add(s.keep(s.add(qjl.encode(ops, residual))));
                planes.add(s.keep(s.add(norm(ops, s, residual))));
            }
            return List.copyOf(planes);
        } catch (RuntimeException e) {
            planes.forEach(Tensor::close);
            throw e;
        }
    }

    @Override
    public Tensor decode(KvRole role, List<Tensor> planes) {
        Planes p = Planes.of(role, planes, shape);
        Ops ops = p.norm().backend().ops();
        try (TensorScope s = new TensorScope()) {
            Tensor rotated = s.add(rotatedDirections(ops, s, role, p));
            Tensor unit = s.add(rotation.inverse(ops, rotated));
            Tensor x = s.add(ops.mul(unit, p.norm()));
            return s.keep(ops.astype(x, context.activationType()));
        }
    }

    /** The rotated unit directions {@code [..., n]} the planes encode (centroids, plus the QJL term for keys). */
    private Tensor rotatedDirections(Ops ops, TensorScope s, KvRole role, Planes p) {
        CodebookQuantizer quantizer = role == KvRole.KEY ? keyCodes : valueCodes;
        Tensor centroids = quantizer == null ? null : s.add(quantizer.unpackCentroids(ops, p.codes(), n));
        if (role == KvRole.VALUE || qjl == null) return s.keep(centroids);
        Tensor z = s.add(qjl.signs(ops, p.qjl()));
        Tensor correction = s.add(ops.mul(s.add(qjl.transposedProject(ops, z)), s.add(ops.mul(p.residualNorm(), qjl.scale()))));
        return centroids == null ? s.keep(correction) : ops.add(centroids, correction);
    }

    @Override
    public Tensor attend(Tensor queries, List<Tensor> keyPlanes, List<Tensor> valuePlanes, double scale,
                         AttentionMask mask) {
        Planes k = Planes.of(KvRole.KEY, keyPlanes, shape);
        Planes v = Planes.of(KvRole.VALUE, valuePlanes, shape);
        if (queries.rank() != 4) throw new IllegalArgumentException("queries: expected [B, Hq, Tq, D], found " + queries.shape());
        int b = queries.dim(0);
        int hq = queries.dim(1);
        int tq = queries.dim(2);
        int d = queries.dim(3);
        int hkv = k.norm().dim(1);
        int tk = k.norm().dim(2);
        if (d != config.headDim() || hkv != context.kvHeads() || hq % hkv != 0
                || k.norm().dim(0) != b || !v.norm().shape().equals(k.norm().shape())) {
            throw new IllegalArgumentException("queries " + queries.shape() + " do not fit key norms " + k.norm().shape()
                    + " and value norms " + v.norm().shape());
        }
        int groupRows = hq / hkv * tq;
        Ops ops = queries.backend().ops();
        try (TensorScope s = new TensorScope()) {
            Tensor q = s.add(ops.mul(s.add(ops.astype(queries, DType.F32)), scale));
            Tensor grouped = s.add(ops.reshape(q, Shape.of(b, hkv, groupRows, d)));
            Tensor qr = s.add(rotation.forward(ops, grouped));              // once per step
            Tensor keyNorms = s.add(ops.reshape(k.norm(), Shape.of(b, hkv, 1, tk)));
            Tensor scores = null;                                            // [B, Hkv, rep·Tq, Tk]
            if (keyCodes != null) {
                Tensor centroids = s.add(keyCodes.unpackCentroids(ops, k.codes(), n));
                // C·(Rq)ᵀ then a transpose of the small [Tk, rows] result, not of the cache-sized centroids
                scores = s.add(ops.transpose(s.add(ops.matmul(centroids, s.add(ops.transpose(qr, 0, 1, 3, 2)))), 0, 1, 3, 2));
            }
            if (qjl != null) {
                Tensor z = s.add(qjl.signs(ops, k.qjl()));
                Tensor projected = s.add(ops.transpose(s.add(qjl.project(ops, qr)), 0, 1, 3, 2));
                Tensor sketch = s.add(ops.transpose(s.add(ops.matmul(z, projected)), 0, 1, 3, 2));
                Tensor residualNorms = s.add(ops.reshape(k.residualNorm(), Shape.of(b, hkv, 1, tk)));
                Tensor term = s.add(ops.mul(sketch, s.add(ops.mul(residualNorms, qjl.scale()))));
                scores = scores == null ? term : s.add(ops.add(scores, term));
            }
            scores = s.add(ops.mul(scores, keyNorms));
            Tensor perHead = s.add(ops.reshape(scores, Shape.of(b, hq, tq, tk)));
            Tensor p = s.add(MaskedSoftmax.probabilities(ops, perHead, mask));
            Tensor pGrouped = s.add(ops.reshape(p, Shape.of(b, hkv, groupRows, tk)));
            Tensor weights = s.add(ops.mul(pGrouped, s.add(ops.reshape(v.norm(), Shape.of(b, hkv, 1, tk)))));
            Tensor valueCentroids = s.add(valueCodes.unpackCentroids(ops, v.codes(), n));
            Tensor rotatedOut = s.add(ops.matmul(weights, valueCentroids)); // [B, Hkv, rep·Tq, n]
            Tensor out = s.add(rotation.inverse(ops, rotatedOut));           // once per step
            Tensor perHeadOut = s.add(ops.reshape(out, Shape.of(b, hq, tq, d)));
            return s.keep(ops.astype(perHeadOut, queries.dtype()));
        }
    }

    /** {@code ‖x‖} along the last axis of borrowed f32 x, keeping it: a new {@code [..., 1]}. */
    private static Tensor norm(Ops ops, TensorScope s, Tensor x) {
        return ops.unary(UnaryOp.SQRT, s.add(ops.sum(s.add(ops.unary(UnaryOp.SQUARE, x)), -1, true)));
    }

    @Override
    public void close() {
        rotation.close();
        if (keyCodes != null) keyCodes.close();
        valueCodes.close();
        if (qjl != null) qjl.close();
    }
}
