/**
 * The launcher entry point of the {@code panamax} command.
 *
 * {@snippet lang=bash :
 * java -p dist/mods --add-modules ALL-MODULE-PATH,jdk.incubator.vector -m panamax.app/panamax.app.Main plan --kv-bits 4
 * }
 */
package panamax.app;
