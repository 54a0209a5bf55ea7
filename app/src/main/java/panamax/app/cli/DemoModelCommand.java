package panamax.app.cli;

import java.io.PrintWriter;
import panamax.demo.DemoModel;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code panamax demo-model}: prints the bundled demo model's directory (extracting it first when
 * panamax runs from jars), for commands and scripts that take {@code --model DIR}.
 */
@Command(name = "demo-model", mixinStandardHelpOptions = true,
        description = "Print the directory of the bundled demo model (what generate and chat use without --model).")
public final class DemoModelCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        PrintWriter out = spec.commandLine().getOut();
        out.println(DemoModel.directory());
        out.flush();
    }
}
