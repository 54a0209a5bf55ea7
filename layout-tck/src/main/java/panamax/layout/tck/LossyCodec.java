package panamax.layout.tck;

import java.util.List;
import panamax.api.kv.CodecContext;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.kv.ReconstructionBound;
import panamax.api.tensor.BinaryOp;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Reduction;
import panamax.api.tensor.Tensor;

/**
 * Each vector as its mean and its differences from the mean truncated to sixteenths: decoding
 * loses less than 1/16 per element (plus f32 rounding), a bound the layout's decoded tokens must meet.
 */
final class LossyCodec implements KvCodec {
    static final double STEPS = 16;
    static final ReconstructionBound BOUND = new ReconstructionBound(1e-6, 1e-6, 1 / STEPS);

    private final CodecShape shape;
    private final CodecContext context;

    LossyCodec(CodecShape shape, CodecContext context) {
        this.shape = shape;
        this.context = context;
    }

    @Override
    public CodecShape shape() {
        return shape;
    }

    @Override
    public List<Tensor> encode(KvRole role, Tensor x) {
        Ops ops = context.backend().ops();
        try (Tensor f = ExactCodec.converted(ops, x, DType.F32);
             Tensor mean = ops.reduce(Reduction.MEAN, f, 3, true);
             Tensor centred = ops.binary(BinaryOp.SUB, f, mean);
             Tensor scaled = ops.binary(BinaryOp.MUL, centred, STEPS)) {
            Tensor codes = ops.astype(scaled, DType.I32); // truncates toward zero
            return List.of(codes, ExactCodec.converted(ops, mean, DType.F32));
        }
    }

    @Override
    public Tensor decode(KvRole role, List<Tensor> planes) {
        Ops ops = context.backend().ops();
        try (Tensor codes = ops.astype(planes.get(0), DType.F32);
             Tensor steps = ops.binary(BinaryOp.DIV, codes, STEPS);
             Tensor x = ops.binary(BinaryOp.ADD, steps, planes.get(1))) {
            return ExactCodec.converted(ops, x, context.activationType());
        }
    }

    @Override
    public void close() {
    }
}
