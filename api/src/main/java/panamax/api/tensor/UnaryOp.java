package panamax.api.tensor;

/** Elementwise functions of one argument, computed in f32 for floating inputs. */
public enum UnaryOp {
    NEG, ABS, EXP, LOG, SQRT, RSQRT, SQUARE, TANH, SIGMOID,
    /** x·sigmoid(x). */
    SILU,
    /** x·Φ(x) with the exact error function. */
    GELU,
    /** 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), as GPT-2 and Gemma use. */
    GELU_TANH
}
