package panamax.app.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The {@code panamax} root command; it only dispatches to subcommands. */
@Command(name = "panamax", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "A Java 25 LLM inference framework whose heart is the KV cache.",
        subcommands = {PluginsCommand.class, PlanCommand.class, GenerateCommand.class, ChatCommand.class, ParityCommand.class, BenchCommand.class})
public final class PanamaxCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "a subcommand is required: plugins or plan");
    }
}
