package panamax.kv.codecs.turboquant;

import java.util.ArrayList;
import java.util.List;
import panamax.api.kv.CodecContext;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.kernel.CodebookKernels;
import panamax.api.tensor.kernel.CodebookMatrix;
import panamax.api.tensor.kernel.SketchedCodes;
import panamax.kv.codecs.internal.KvKernels;
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
    private final KvKernels kernels;

    TurboQuantCodec(TurboQuantConfig config, CodecContext context) {
        this.config = config;
        this.context = context;
        this.shape = config.shape();
        this.n = config.paddedDim();
        long[] ids = {context.seed(), config.seed(), context.layer()};
        var backend = context.backend();
        this.kernels = KvKernels.of(backend);
        this.rotation = new RandomizedHadamard(backend, context.kvHeads(), config.headDim(), n, ids);
        this.keyCodes = config.keyCodeBits() > 0 ? new CodebookQuantizer(backend, n, config.keyCodeBits()) : null;
        this.valueCodes = new CodebookQuantizer(backend, n, config.valueBits());
        this.qjl = config.qjl() ? new QjlProjection(backend, context.kvHeads(), n, ids) : null;
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
        Ops ops = kernels.ops();
        CodebookKernels codebook = kernels.codebook();
        CodebookQuantizer direct = role == KvRole.KEY ? (qjl == null ? keyCodes : null) : valueCodes;
        if (direct != null && !rotation.padded()) {
            // rotation, norm, codes and packing in one pass per row: the planes are the result's two new tensors
            CodebookMatrix q = direct.quantizeRotated(codebook, x, rotation.signs());
            return List.of(q.packed(), q.rowScales());
        }
        if (role == KvRole.KEY && qjl != null) {
            // codes, norm, the residual's sketch and its norm in one op per row
            try (TensorScope s = new TensorScope()) {
                Tensor input = rotation.padded() ? s.add(rotation.pad(ops, x)) : x;
                SketchedCodes q = CodebookQuantizer.quantizeRotatedSketched(codebook, keyCodes, input, rotation.signs(), qjl.blocks());
                List<Tensor> planes = new ArrayList<>();
                if (q.codes() != null) planes.add(q.codes());
                planes.addAll(List.of(q.norms(), q.sketch(), q.residualNorms()));
                return List.copyOf(planes);
            }
        }
        try (TensorScope s = new TensorScope()) {
            // R x/‖x‖ = (R x)/‖R x‖: the rotation is orthogonal, so codebookQuantize normalizes after rotating
            CodebookMatrix q = direct.quantize(codebook, s.add(rotation.forward(kernels, x)));
            return List.of(q.packed(), q.rowScales());
        }
    }

    @Override
    public Tensor decode(KvRole role, List<Tensor> planes) {
        Planes p = Planes.of(role, planes, shape);
        Ops ops = kernels.ops();
        CodebookKernels codebook = kernels.codebook();
        if ((role == KvRole.VALUE || qjl == null) && !rotation.padded()) {
            // look-up, un-rotation and the cast in one pass per row
            CodebookQuantizer quantizer = role == KvRole.KEY ? keyCodes : valueCodes;
            return codebook.codebookDequantizeRotated(quantizer.matrix(p.codes(), p.norm()), rotation.signs(), context.activationType());
        }
        try (TensorScope s = new TensorScope()) {
            Tensor x;
            if (role == KvRole.VALUE || qjl == null) {
                CodebookQuantizer quantizer = role == KvRole.KEY ? keyCodes : valueCodes;
                x = s.add(rotation.inverse(kernels, s.add(codebook.codebookDequantize(quantizer.matrix(p.codes(), p.norm())))));
            } else {
                // ‖k‖·R⁻¹(ĉ + γ·scale·Sᵀz): the sketch's row scales carry ‖k‖·γ·scale (the plane holds ‖k‖·γ)
                Tensor sketchScale = s.add(ops.mul(p.residualNorm(), qjl.scale()));
                CodebookMatrix codes = keyCodes == null ? null : keyCodes.matrix(p.codes(), p.norm());
                x = s.add(codebook.codebookDequantizeRotatedSketched(codes, qjl.signs(p.qjl(), sketchScale), qjl.blocks(), rotation.signs(),
                        rotation.padded() ? DType.F32 : context.activationType()));
                if (!rotation.padded()) return s.keep(x);
                x = s.add(ops.slice(x, -1, 0, config.headDim()));
            }
            return s.keep(ops.astype(x, context.activationType()));
        }
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
        Ops ops = kernels.ops();
        try (TensorScope s = new TensorScope()) {
            // the rotation reads the queries in their dtype and gives f32; the scale goes to the attention op
            Tensor grouped = s.add(ops.reshape(queries, Shape.of(b, hkv, groupRows, d)));
            Tensor qr = s.add(rotation.forward(kernels, grouped));              // once per step
            // scores, softmax and Σ pᵢ·‖vᵢ‖·ĉᵢ in one backend op on the codes (the rotated domain); un-rotated once
            int n = qr.dim(-1);
            Tensor perHeadQuery = s.add(ops.reshape(qr, Shape.of(b, hq, tq, n)));
            CodebookMatrix values = valueCodes.matrix(v.codes(), v.norm());
            Tensor attended;
            if (qjl == null) {
                attended = s.add(kernels.codebookAttention(perHeadQuery, keyCodes.matrix(k.codes(), k.norm()), values, scale, mask));
            } else {
                // QJL keys add ‖k‖·γ·scale·⟨S·Rq, z⟩ to the scores: the sign bits are a ±1 codebook whose row scale
                // is the stored ‖k‖·γ, scored in the same op as a second key matrix (the sketch); the estimator's
                // scale goes into the projected query, so no per-token product is made per step
                Tensor projected = s.add(ops.reshape(s.add(ops.mul(s.add(qjl.project(kernels, qr)), qjl.scale())), Shape.of(b, hq, tq, n)));
                CodebookMatrix signs = qjl.signs(k.qjl(), k.residualNorm());
                attended = keyCodes == null // QJL takes every key bit: the sketch is the only key term
                        ? s.add(kernels.codebookAttention(projected, signs, values, scale, mask))
                        : s.add(kernels.codebookAttention(perHeadQuery, keyCodes.matrix(k.codes(), k.norm()), projected, signs, values, scale, mask));
            }
            Tensor out = s.add(rotation.inverse(kernels, s.add(ops.reshape(attended, Shape.of(b, hkv, groupRows, n)))));
            return s.keep(ops.astype(s.add(ops.reshape(out, Shape.of(b, hq, tq, d))), queries.dtype()));
        }
    }

    @Override
    public void close() {
        rotation.close();
        if (keyCodes != null) keyCodes.close();
        valueCodes.close();
        if (qjl != null) qjl.close();
    }
}
