/**
 * The error types panamax shows its users. Each message says what was expected and what was found.
 *
 * {@snippet :
 * throw new InvalidParameterException("bits", 7, "2, 3, 4, 5, 6, 8");
 * }
 */
package panamax.api.error;
