package panamax.app.cli;

import java.io.PrintWriter;
import panamax.engine.plan.PlanJson;
import panamax.engine.plugins.PluginRegistry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code panamax plugins}: every discovered backend, codec, layout and model plugin, and every load failure. */
@Command(name = "plugins", mixinStandardHelpOptions = true,
        description = "List the discovered backend, codec, layout and model plugins with their module, origin, parameters and capabilities.")
public final class PluginsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    PluginsDirOption plugins;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    @Override
    public void run() {
        PluginRegistry registry = PluginRegistry.discover(plugins.resolve());
        PrintWriter out = spec.commandLine().getOut();
        out.print(json ? PlanJson.write(PluginListing.json(registry)) : PluginListing.text(registry));
        out.flush();
    }
}
