package panamax.app.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/** The {@code panamax} root command; it only dispatches to subcommands. */
@Command(name = "panamax", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "A Java 25 LLM inference framework whose heart is the KV cache.",
        subcommands = {PluginsCommand.class, PlanCommand.class, GenerateCommand.class, ChatCommand.class, ServeCommand.class, PerplexityCommand.class,
                ParityCommand.class, BenchCommand.class, DemoModelCommand.class})
public final class PanamaxCommand implements Runnable {
    @Spec
    CommandSpec spec;

    /** System property the mlx backend reads its default device from. */
    static final String MLX_DEVICE_PROPERTY = "panamax.mlx.device";

    /** {@code --mlx-device}, accepted by every subcommand: where the mlx backend runs when it is chosen. */
    @Option(names = "--mlx-device", paramLabel = "cpu|gpu", scope = ScopeType.INHERIT,
            description = "device of the mlx backend: cpu, or gpu where the MLX build has one (default cpu)")
    void mlxDevice(String device) {
        if (!device.equals("cpu") && !device.equals("gpu")) {
            throw new ParameterException(spec.commandLine(), "--mlx-device: expected cpu or gpu, found '" + device + "'");
        }
        System.setProperty(MLX_DEVICE_PROPERTY, device);
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "a subcommand is required: plugins or plan");
    }
}
