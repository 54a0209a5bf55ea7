package panamax.app.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import panamax.api.draft.DrafterCapabilities;
import panamax.api.draft.DrafterProvider;
import panamax.api.kv.KvCodecCapabilities;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.LayoutCapabilities;
import panamax.api.kv.ParamSpec;
import panamax.api.model.ModelPlugin;
import panamax.api.tensor.BackendCapabilities;
import panamax.api.tensor.BackendProvider;
import panamax.engine.plan.PlanJson;
import panamax.engine.plugins.DiscoveredPlugin;
import panamax.engine.plugins.PluginFailure;
import panamax.engine.plugins.PluginKind;
import panamax.engine.plugins.PluginRegistry;

/** Text and JSON renderings of a {@link PluginRegistry} for {@code panamax plugins}. Stateless. */
final class PluginListing {
    private PluginListing() {
    }

    static String text(PluginRegistry registry) {
        StringBuilder out = new StringBuilder();
        for (PluginKind kind : PluginKind.values()) {
            List<DiscoveredPlugin<?>> found = registry.all().stream().filter(p -> p.kind() == kind).toList();
            out.append(kind.label()).append(kind == PluginKind.MODEL ? " plugins" : "s").append('\n');
            if (found.isEmpty()) out.append("  (none installed)\n");
            int idWidth = found.stream().mapToInt(p -> p.id().length()).max().orElse(0);
            int moduleWidth = found.stream().mapToInt(p -> p.moduleAndVersion().length()).max().orElse(0);
            for (DiscoveredPlugin<?> p : found) {
                out.append(String.format(Locale.ROOT, "  %-" + idWidth + "s  %-" + moduleWidth + "s  %s%n", p.id(), p.moduleAndVersion(), p.origin()));
                for (String line : details(p)) out.append("      ").append(line).append('\n');
            }
            out.append('\n');
        }
        List<String> conflicts = registry.duplicates();
        if (!conflicts.isEmpty()) {
            out.append("conflicts (plan refuses to run until one of each is removed)\n");
            conflicts.forEach(c -> out.append("  - ").append(c).append('\n'));
            out.append('\n');
        }
        out.append("load failures\n");
        if (registry.failures().isEmpty()) out.append("  (none)\n");
        for (PluginFailure f : registry.failures()) out.append("  - ").append(f).append('\n');
        return out.toString();
    }

    private static List<String> details(DiscoveredPlugin<?> p) {
        return switch (p.provider()) {
            case BackendProvider b -> {
                BackendCapabilities c = b.capabilities();
                yield List.of(availability(b).map(r -> "unavailable: " + r).orElse("available"),
                        "storage " + sorted(c.storageTypes()) + "; affine bits " + sorted(c.quantizedBits()) + ", groups "
                                + sorted(c.groupSizes()) + "; " + (c.lazy() ? "lazy" : "eager") + "; devices " + sorted(c.devices()));
            }
            case KvCodecProvider codec -> {
                KvCodecCapabilities c = codec.capabilities();
                yield List.of(c.description(), "params: " + params(c.params()),
                        "capabilities: attentionOnPlanes=" + c.attentionOnPlanes() + " rotatedValues=" + c.rotatedValues());
            }
            case KvLayoutProvider layout -> {
                LayoutCapabilities c = layout.capabilities();
                yield List.of(c.description(), "params: " + params(c.params()),
                        "capabilities: batchable=" + c.batchable() + " trimmable=" + c.trimmable() + " bounded=" + c.bounded()
                                + " hostsRotatedValues=" + c.hostsRotatedValues() + " convertsCodec=" + c.convertsCodec()
                                + " alignsRows=" + c.alignsRows() + " capturable=" + c.capturable());
            }
            case ModelPlugin model -> List.of("reads model_type " + sorted(model.modelTypes()));
            case DrafterProvider drafter -> {
                DrafterCapabilities c = drafter.capabilities();
                yield List.of(c.description(), "params: " + params(c.params()),
                        "capabilities: needsDraftModel=" + c.needsDraftModel() + " defaultDraftTokens=" + c.defaultDraftTokens());
            }
            default -> List.of();
        };
    }

    static ObjectNode json(PluginRegistry registry) {
        ObjectNode root = PlanJson.mapper().createObjectNode();
        ArrayNode plugins = root.putArray("plugins");
        for (DiscoveredPlugin<?> p : registry.all()) {
            ObjectNode o = plugins.addObject();
            o.put("kind", p.kind().label());
            o.put("id", p.id());
            o.put("module", p.module());
            o.put("version", p.version());
            o.put("origin", p.origin());
            switch (p.provider()) {
                case BackendProvider b -> {
                    Optional<String> reason = availability(b);
                    o.put("available", reason.isEmpty());
                    if (reason.isPresent()) o.put("unavailableReason", reason.get());
                    BackendCapabilities c = b.capabilities();
                    ObjectNode caps = o.putObject("capabilities");
                    sorted(c.storageTypes()).forEach(caps.putArray("storageTypes")::add);
                    c.quantizedBits().stream().sorted().forEach(caps.putArray("quantizedBits")::add);
                    c.groupSizes().stream().sorted().forEach(caps.putArray("groupSizes")::add);
                    caps.put("lazy", c.lazy());
                    sorted(c.devices()).forEach(caps.putArray("devices")::add);
                }
                case KvCodecProvider codec -> {
                    KvCodecCapabilities c = codec.capabilities();
                    o.put("description", c.description());
                    params(o.putArray("params"), c.params());
                    ObjectNode caps = o.putObject("capabilities");
                    caps.put("attentionOnPlanes", c.attentionOnPlanes());
                    caps.put("rotatedValues", c.rotatedValues());
                }
                case KvLayoutProvider layout -> {
                    LayoutCapabilities c = layout.capabilities();
                    o.put("description", c.description());
                    params(o.putArray("params"), c.params());
                    ObjectNode caps = o.putObject("capabilities");
                    caps.put("batchable", c.batchable());
                    caps.put("trimmable", c.trimmable());
                    caps.put("bounded", c.bounded());
                    caps.put("hostsRotatedValues", c.hostsRotatedValues());
                    caps.put("convertsCodec", c.convertsCodec());
                    caps.put("alignsRows", c.alignsRows());
                    caps.put("capturable", c.capturable());
                }
                case ModelPlugin model -> sorted(model.modelTypes()).forEach(o.putArray("modelTypes")::add);
                case DrafterProvider drafter -> {
                    DrafterCapabilities c = drafter.capabilities();
                    o.put("description", c.description());
                    params(o.putArray("params"), c.params());
                    ObjectNode caps = o.putObject("capabilities");
                    caps.put("needsDraftModel", c.needsDraftModel());
                    caps.put("defaultDraftTokens", c.defaultDraftTokens());
                }
                default -> { }
            }
        }
        registry.duplicates().forEach(root.putArray("conflicts")::add);
        ArrayNode failures = root.putArray("failures");
        for (PluginFailure f : registry.failures()) {
            ObjectNode o = failures.addObject();
            o.put("source", f.source());
            if (f.kind() == null) o.putNull("kind");
            else o.put("kind", f.kind().label());
            o.put("message", f.message());
        }
        return root;
    }

    private static void params(ArrayNode array, List<ParamSpec> specs) {
        for (ParamSpec s : specs) {
            ObjectNode o = array.addObject();
            o.put("name", s.name());
            o.put("description", s.description());
            s.allowed().forEach(o.putArray("allowed")::add);
            o.put("default", s.defaultValue());
        }
    }

    private static String params(List<ParamSpec> specs) {
        if (specs.isEmpty()) return "none";
        return specs.stream().map(s -> s.name() + " (" + s.allowedText() + "; default " + s.defaultValue() + ")")
                .collect(Collectors.joining(", "));
    }

    private static Optional<String> availability(BackendProvider b) {
        try {
            return b.unavailableReason();
        } catch (RuntimeException | LinkageError e) {
            return Optional.of("its availability check failed: " + e);
        }
    }

    /** Values in their natural order (numbers numerically, enums by declaration), as text. */
    private static <T extends Comparable<? super T>> List<String> sorted(java.util.Collection<T> values) {
        return values.stream().sorted().map(String::valueOf).toList();
    }
}
