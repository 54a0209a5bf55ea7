package panamax.kv.codecs.turboquant;

import java.util.List;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvRole;
import panamax.api.kv.PlaneSpec;
import panamax.api.tensor.Tensor;

/**
 * Borrowed TurboQuant planes of one role, by name: {@code codes} (absent for keys when QJL takes
 * every bit), {@code norm}, and for QJL keys {@code qjl} and {@code residual_norm} (‖k‖·γ: the codes' residual
 * in the key's own scale).
 */
record Planes(Tensor codes, Tensor norm, Tensor qjl, Tensor residualNorm) {

    static Planes of(KvRole role, List<Tensor> planes, CodecShape shape) {
        List<PlaneSpec> specs = role == KvRole.KEY ? shape.keyPlanes() : shape.valuePlanes();
        if (planes.size() != specs.size()) {
            throw new IllegalArgumentException("turboquant " + role + " expects " + specs.size() + " planes "
                    + specs.stream().map(PlaneSpec::name).toList() + ", found " + planes.size());
        }
        Tensor codes = null;
        Tensor norm = null;
        Tensor qjl = null;
        Tensor residualNorm = null;
        for (int i = 0; i < specs.size(); i++) {
            PlaneSpec spec = specs.get(i);
            Tensor t = planes.get(i);
            if (t.rank() != 4 || t.dim(-1) != spec.width() || t.dtype() != spec.dtype()) {
                throw new IllegalArgumentException("turboquant " + role + " plane " + spec.name() + ": expected [rows, heads, tokens, "
                        + spec.width() + "] " + spec.dtype() + ", found " + t.shape() + " " + t.dtype());
            }
            switch (spec.name()) {
                case "codes" -> codes = t;
                case "norm" -> norm = t;
                case "qjl" -> qjl = t;
                case "residual_norm" -> residualNorm = t;
                default -> throw new IllegalStateException("unknown plane " + spec.name());
            }
        }
        return new Planes(codes, norm, qjl, residualNorm);
    }
}
