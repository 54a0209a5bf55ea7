/**
 * The picocli commands of the {@code panamax} CLI.
 *
 * {@snippet :
 * int exit = Cli.run(new String[] {"plan", "--kv-bits", "4"}, System.out, System.err);
 * }
 */
package panamax.app.cli;
