package panamax.api.tensor;

/** Elementwise functions of two broadcast arguments (numpy broadcasting rules). */
public enum BinaryOp {
    ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM, POW
}
