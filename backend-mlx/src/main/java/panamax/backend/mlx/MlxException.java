package panamax.backend.mlx;

/** A failed mlx-c call, carrying MLX's own message (e.g. an MLX {@code std::invalid_argument}). */
public final class MlxException extends RuntimeException {
    MlxException(String message) {
        super(message);
    }
}
