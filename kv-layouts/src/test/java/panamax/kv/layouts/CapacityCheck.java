package panamax.kv.layouts;

import static org.junit.jupiter.api.Assertions.assertEquals;

import panamax.api.kv.KvLayout;

/** What only kv-layouts can see: the planes hold exactly capacity × bytesPerToken, and that is all the layout holds. */
final class CapacityCheck {
    private CapacityCheck() {
    }

    static void check(KvLayout layout, long heldBytes) {
        BatchLayout impl = (BatchLayout) layout;
        assertEquals(impl.capacity * layout.bytesPerToken(), impl.storedBytes(), "plane bytes = capacity × bytes per token");
        assertEquals(impl.storedBytes(), heldBytes, "backend bytes held by the layout");
    }
}
