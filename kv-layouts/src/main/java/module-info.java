/** Row layouts (full, rotating, delayed) behind the KvLayout SPI. Filled by the row-layouts issue. */
module panamax.kv.layouts {
    requires panamax.api;
}
