package panamax.api.error;

/** The plan or an allocation needs more memory than the configured budget allows. */
public final class MemoryBudgetException extends PanamaxException {
    private final long neededBytes;
    private final long budgetBytes;

    public MemoryBudgetException(String what, long neededBytes, long budgetBytes) {
        super(what + " needs " + neededBytes + " bytes, budget is " + budgetBytes + " bytes");
        this.neededBytes = neededBytes;
        this.budgetBytes = budgetBytes;
    }

    public long neededBytes() {
        return neededBytes;
    }

    public long budgetBytes() {
        return budgetBytes;
    }
}
