package panamax.api.tensor;

import java.util.Arrays;

/**
 * The dimensions of a tensor, outermost first. Immutable; dims are non-negative (0 is an empty
 * axis). A rank-0 shape is a scalar with one element.
 */
public record Shape(int... dims) {
    public Shape {
        dims = dims.clone();
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] < 0) {
                throw new IllegalArgumentException("dimension " + i + " of " + Arrays.toString(dims) + " is negative");
            }
        }
    }

    public static Shape of(int... dims) {
        return new Shape(dims);
    }

    @Override
    public int[] dims() {
        return dims.clone();
    }

    public int rank() {
        return dims.length;
    }

    /** Dimension {@code axis}; negative axes count from the end. */
    public int dim(int axis) {
        return dims[normalizeAxis(axis)];
    }

    /** Number of elements (product of dims; 1 for a scalar). */
    public long size() {
        long n = 1;
        for (int d : dims) n *= d;
        return n;
    }

    /** Maps a possibly negative axis into [0, rank), or throws naming the shape. */
    public int normalizeAxis(int axis) {
        int a = axis < 0 ? axis + dims.length : axis;
        if (a < 0 || a >= dims.length) {
            throw new IllegalArgumentException("axis " + axis + " out of range for shape " + this);
        }
        return a;
    }

    /** This shape with dimension {@code axis} replaced by {@code size}. */
    public Shape with(int axis, int size) {
        int[] d = dims.clone();
        d[normalizeAxis(axis)] = size;
        return new Shape(d);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Shape s && Arrays.equals(dims, s.dims);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(dims);
    }

    @Override
    public String toString() {
        return Arrays.toString(dims);
    }
}
