package panamax.engine.generate;

/** Why a row stopped generating. */
public enum FinishReason {
    /** It produced an end-of-sequence id (not part of its text). */
    EOS,
    /** Its text reached a stop string (trimmed from its text). */
    STOP_STRING,
    /** It produced its maximum number of tokens. */
    LENGTH
}
