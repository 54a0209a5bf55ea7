/**
 * The layout TCK. A layout plugin's test subclasses {@link panamax.layout.tck.LayoutTck}:
 *
 * {@snippet :
 * class MyLayoutTckTest extends LayoutTck {
 *     protected KvLayoutProvider provider() {
 *         return new MyLayoutProvider();
 *     }
 *
 *     protected Gen<LayoutCase> cases() {        // the parameters to run and the rule each follows
 *         return Generate.pick(List.of(3, 5, 8)).map(w -> LayoutCase.window(Map.of("window", "" + w), w, 0));
 *     }
 * }
 * }
 */
package panamax.layout.tck;
