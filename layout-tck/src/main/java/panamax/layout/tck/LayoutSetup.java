package panamax.layout.tck;

/**
 * One configuration a generated sequence runs against: the layout's case, the codec it stores,
 * the rows of the first batch and the head dimension of the tokens.
 *
 * @param layout  the layout's parameters and reference rule
 * @param codec   the codec it stores
 * @param rows    rows of the first batch
 * @param headDim features per head of the generated tokens
 */
public record LayoutSetup(LayoutCase layout, StoredCodec codec, int rows, int headDim) {
    public LayoutSetup {
        if (rows < 1 || headDim < 1) throw new IllegalArgumentException("rows and head dim must be positive, found " + rows + ", " + headDim);
    }

    int window() {
        return layout.window();
    }

    /** Offset at which rows leave identity; 0 when the layout stores the codec from the start. */
    int start() {
        return layout.convertAt();
    }

    boolean visible(int p, int q) {
        return layout.visible(p, q);
    }

    @Override
    public String toString() {
        return layout + " over " + codec + ", " + rows + " rows, head dim " + headDim;
    }
}
