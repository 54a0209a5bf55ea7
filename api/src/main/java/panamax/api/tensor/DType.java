package panamax.api.tensor;

/** Element types a tensor can store. Floating types compute in f32 on the Java backend. */
public enum DType {
    F32(4, true),
    BF16(2, true),
    F16(2, true),
    I32(4, false),
    U32(4, false),
    U8(1, false),
    BOOL(1, false);

    private final int byteSize;
    private final boolean floating;

    DType(int byteSize, boolean floating) {
        this.byteSize = byteSize;
        this.floating = floating;
    }

    /** Bytes per element in storage. */
    public int byteSize() {
        return byteSize;
    }

    /** True for F32, BF16 and F16. */
    public boolean isFloating() {
        return floating;
    }
}
