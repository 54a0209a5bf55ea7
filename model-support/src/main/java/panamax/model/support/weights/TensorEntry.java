package panamax.model.support.weights;

import java.util.Arrays;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;

/**
 * One tensor listed in a safetensors header.
 *
 * @param name  the tensor's name, e.g. {@code model.norm.weight}
 * @param dtype its element type
 * @param shape its dimensions
 * @param begin first byte, relative to the start of the data section
 * @param end   one past the last byte, relative to the start of the data section
 */
public record TensorEntry(String name, DType dtype, Shape shape, long begin, long end) {
    public long byteSize() {
        return end - begin;
    }

    @Override
    public String toString() {
        return name + " " + dtype + Arrays.toString(shape.dims());
    }
}
