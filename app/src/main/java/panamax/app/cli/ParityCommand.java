package panamax.app.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import panamax.api.plan.KvScheme;
import panamax.engine.parity.ParityReport;
import panamax.api.model.LoadOptions;
import panamax.engine.parity.ParityRun;
import panamax.engine.plugins.PluginRegistry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code panamax parity}: runs a model directory against reference logits (single prompt, KV-cached
 * greedy decode, left-padded batch) under the given KV flags and prints one JSON object.
 */
@Command(name = "parity", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Compare a model's logits with a reference.safetensors (single prompt, cached decode, left-padded batch); prints one JSON object.")
public final class ParityCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    PluginsDirOption plugins;

    @Option(names = "--model", paramLabel = "DIR", required = true, description = "a Hugging Face model directory")
    Path model;

    @Option(names = "--reference", paramLabel = "FILE", description = "reference logits (default: DIR/reference.safetensors)")
    Path reference;

    @Mixin
    KvFlags kv;

    @Option(names = "--backend", paramLabel = "ID", description = "backend id (default: the planner's choice)")
    String backend;

    /** How the reference's transformers model held its RoPE frequencies and embedding scale. */
    enum HfBuffers { float32, stored_dtype }

    @Option(names = "--hf-buffers", paramLabel = "P", description = "precision of the reference's RoPE frequencies and embedding scale: "
            + "float32 (transformers from_pretrained) or stored_dtype (a model cast in memory, as ../shared/fixtures were made); "
            + "default: what reference.json's hf_buffers says, else float32")
    HfBuffers hfBuffers;

    @Override
    public void run() {
        KvScheme scheme = kv.schemeFor(spec.commandLine());
        Path ref = reference != null ? reference : model.resolve("reference.safetensors");
        if (!Files.isRegularFile(ref)) {
            throw new ParameterException(spec.commandLine(), (reference != null ? "--reference " : "--model ") + (reference != null ? ref : model)
                    + ": expected a reference.safetensors file, found " + (Files.exists(ref) ? "a directory" : "nothing at " + ref));
        }
        LoadOptions.BufferPrecision buffers = hfBuffers == null ? ParityRun.declaredBuffers(ref)
                : hfBuffers == HfBuffers.float32 ? LoadOptions.BufferPrecision.FLOAT32 : LoadOptions.BufferPrecision.STORED_DTYPE;
        ParityReport report = ParityRun.run(PluginRegistry.discover(plugins.resolve()), model, ref, scheme, Optional.ofNullable(backend), buffers);
        PrintWriter out = spec.commandLine().getOut();
        out.println(report.toJson());
        out.flush();
    }
}
