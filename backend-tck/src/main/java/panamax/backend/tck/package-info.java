/**
 * The backend TCK. Each abstract {@code *Tck} class asks its subclass for a
 * {@link panamax.api.tensor.BackendProvider}, creates one backend for the class, and checks a group
 * of ops on shapes and values generated with QuickTheories against float64 references computed in
 * plain Java (never by the backend under test). After every test the backend's active bytes must
 * return to their baseline.
 *
 * {@snippet :
 * class JavaBackendMatmulTckTest extends MatmulTck {
 *     @Override
 *     protected BackendProvider provider() {
 *         return new JavaBackendProvider();
 *     }
 * }
 * }
 */
package panamax.backend.tck;
