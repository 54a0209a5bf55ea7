package panamax.api.kv;

/** Whether a tensor holds attention keys or values; codecs may encode them differently. */
public enum KvRole {
    KEY, VALUE
}
