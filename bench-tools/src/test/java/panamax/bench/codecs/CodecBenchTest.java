package panamax.bench.codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.ServiceLoader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;

/** {@code panamax bench codecs} on tiny sizes: the JSON lines carry every quantity the benchmark reports. */
class CodecBenchTest {

    private static String run(List<String> args, int expectedStatus, ByteArrayOutputStream err) {
        var out = new ByteArrayOutputStream();
        int status = CodecBench.run(args, new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true),
                new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true));
        assertEquals(expectedStatus, status, err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    private static double number(String line, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":(-?[0-9.eE+-]+|null)").matcher(line);
        assertTrue(m.find(), key + " missing from " + line);
        return m.group(1).equals("null") ? Double.NaN : Double.parseDouble(m.group(1));
    }

    @Test
    void jsonLinesCarryEveryRequiredFieldForEveryCodecSetting() {
        String out = run(List.of("--json", "--in-process", "--head-dims", "64", "--tokens", "64", "--encode-tokens", "64", "--copy-mib", "4", "--warmup-ms", "0"), 0,
                new ByteArrayOutputStream());
        List<String> lines = out.lines().toList();
        assertEquals(BenchCase.defaults(64).size(), lines.size(), out);
        for (String line : lines) {
            for (String key : List.of("key_bits", "value_bits", "head_dim", "mse", "bits_per_element", "encode_gbps",
                    "decode_gbps", "copy_gbps", "attention_ms", "ip_distortion", "encode_gbps_best", "decode_gbps_best", "attention_ms_best")) {
                double v = number(line, key);
                assertTrue(v >= 0 && Double.isFinite(v), key + " = " + v + " in " + line);
            }
            assertTrue(line.contains("\"group_size\":"), line);
            assertEquals(64, number(line, "head_dim"));
            assertTrue(line.endsWith("\"jvm\":\"shared\"}"), line);
        }
        String affine4 = lines.stream().filter(l -> l.contains("\"codec\":\"affine\"") && l.contains("\"key_bits\":4,")).findFirst()
                .orElseThrow();
        assertEquals(4.5, number(affine4, "bits_per_element"));
        assertEquals(64, number(affine4, "group_size"));
        String tq4 = lines.stream().filter(l -> l.contains("\"codec\":\"turboquant\"") && l.contains("\"key_bits\":4,")
                && l.contains("\"qjl\":false")).findFirst().orElseThrow();
        assertTrue(Double.isNaN(number(tq4, "group_size")));
        assertTrue(Math.abs(number(tq4, "mse") - 0.0091) < 0.001, tq4);
    }

    @Test
    void oneCaseRunsAloneAsAForkedJvmRunsIt() {
        String out = run(List.of("--json", "--case", "64:3", "--tokens", "64", "--encode-tokens", "64", "--copy-mib", "1", "--reps", "1", "--warmup-ms", "0"), 0,
                new ByteArrayOutputStream());
        List<String> lines = out.lines().toList();
        assertEquals(1, lines.size(), out);
        BenchCase expected = BenchCase.defaults(64).get(3);
        assertTrue(lines.getFirst().startsWith("{\"codec\":\"" + expected.codec() + "\",\"key_bits\":" + expected.keyBits() + ","), out);
        assertTrue(lines.getFirst().endsWith("\"jvm\":\"own\"}"), out);
    }

    @Test
    void codecsSelectsTheCasesThatRun() {
        String out = run(List.of("--json", "--in-process", "--codecs", "turboquant", "--head-dims", "64", "--tokens", "64",
                "--encode-tokens", "64", "--copy-mib", "1", "--reps", "1", "--warmup-ms", "0"), 0, new ByteArrayOutputStream());
        List<String> lines = out.lines().toList();
        long expected = BenchCase.defaults(64).stream().filter(c -> c.codec().equals("turboquant")).count();
        assertEquals(expected, lines.size(), out);
        assertTrue(lines.stream().allMatch(l -> l.startsWith("{\"codec\":\"turboquant\"")), out);
    }

    @Test
    void theChildJvmIsThisCommandLineUpToItsMainModule() {
        var launcher = CaseProcesses.launcher("/jdk/bin/java", new String[] {"--module-path", "/d/mods", "-Xmx2g",
                "--add-modules", "ALL-MODULE-PATH", "-m", "panamax.app/panamax.app.Main", "bench", "codecs"});
        assertEquals(List.of("/jdk/bin/java", "--module-path", "/d/mods", "-Xmx2g", "--add-modules", "ALL-MODULE-PATH"),
                launcher.orElseThrow());
        assertEquals(List.of("java", "-Dx=1"), CaseProcesses.launcher("java", new String[] {"-Dx=1", "--module=app/app.Main"}).orElseThrow());
        // a class-path launch (a test runner) has no main module to replace: the bench then measures in process
        assertTrue(CaseProcesses.launcher("java", new String[] {"-cp", "a.jar", "org.example.Main"}).isEmpty());
    }

    @Test
    void unknownOptionsAndMissingBackendsAreRefusedWithUsage() {
        var err = new ByteArrayOutputStream();
        run(List.of("--head-dims", "sixty"), 2, err);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--head-dims: expected a positive integer, found sixty"), err.toString());
        var err2 = new ByteArrayOutputStream();
        run(List.of("--backend", "nope", "--in-process"), 2, err2);
        assertTrue(err2.toString(StandardCharsets.UTF_8).contains("--backend nope: no such backend; found [java"), err2.toString());
        var err3 = new ByteArrayOutputStream();
        run(List.of("--case", "64:99"), 2, err3);
        assertTrue(err3.toString(StandardCharsets.UTF_8).contains("--case: expected HEAD_DIM:INDEX with INDEX in 0.."), err3.toString());
        var err4 = new ByteArrayOutputStream();
        run(List.of("--codecs", "identity,fp8"), 2, err4);
        assertTrue(err4.toString(StandardCharsets.UTF_8).contains("--codecs: expected a list of [identity, affine, turboquant], found fp8"),
                err4.toString());
    }

    @Test
    void runsOnABackendTheCallerHolds() {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int status;
        try (Backend backend = javaBackend()) {
            status = CodecBench.run(List.of("--head-dims", "64", "--tokens", "32", "--encode-tokens", "64", "--copy-mib", "1", "--warmup-ms", "0"),
                    backend, new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true),
                    new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true));
        }
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        String table = out.toString(StandardCharsets.UTF_8);
        assertTrue(table.startsWith("backend java; every case in this JVM; copy bandwidth"), table);
        assertEquals(3 + BenchCase.defaults(64).size(), table.lines().count(), table); // bandwidth, timing rule, header
    }

    /** The Java backend, found through {@link ServiceLoader} as the engine finds it. */
    private static Backend javaBackend() {
        for (BackendProvider p : ServiceLoader.load(BackendProvider.class)) {
            if (p.id().equals("java")) return p.create(BackendOptions.defaults());
        }
        throw new AssertionError("backend 'java' not found through ServiceLoader");
    }
}
