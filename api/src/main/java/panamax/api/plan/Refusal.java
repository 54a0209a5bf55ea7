package panamax.api.plan;

/**
 * An option the planner considered and refused.
 *
 * @param option what was refused, e.g. {@code backend mlx} or {@code layout rotating for codec turboquant}
 * @param reason the missing capability or failing check, in words
 */
public record Refusal(String option, String reason) {
}
