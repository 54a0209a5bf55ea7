/**
 * An FP8 (E4M3) KV codec, written the way a third party would: against panamax.api only.
 *
 * {@snippet :
 * int code = E4M3.encode(0.3f);      // 0x2A: 1.25 * 2^-2 = 0.3125, the nearest E4M3 value
 * float back = E4M3.decode(code);    // 0.3125
 * }
 */
package panamax.example.fp8;
