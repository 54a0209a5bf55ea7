/**
 * The codec TCK. A codec plugin's test subclasses {@link panamax.codec.tck.CodecTck}:
 *
 * {@snippet :
 * class MyCodecTckTest extends CodecTck {
 *     protected KvCodecProvider provider() {
 *         return new MyCodecProvider();
 *     }
 *
 *     protected List<Map<String, String>> parameterSets() {    // optional: the defaults otherwise
 *         return List.of(Map.of("bits", "4"), Map.of("bits", "8"));
 *     }
 * }
 * }
 */
package panamax.codec.tck;
