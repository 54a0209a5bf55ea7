package panamax.engine.plan;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import panamax.api.error.InvalidParameterException;

/** Byte counts as users write and read them: {@code 8GiB}, {@code 512MiB}, {@code 1.5GB}, {@code 4096}. */
public final class ByteSize {
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([kmgt]i?b?|b)?", Pattern.CASE_INSENSITIVE);
    private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB"};

    private ByteSize() {
    }

    /**
     * Parses a size: a number of bytes, or a number with a unit, binary ({@code KiB MiB GiB TiB},
     * also {@code K M G T}) or decimal ({@code KB MB GB TB}).
     *
     * @param parameter the flag the text came from, named in the error
     * @throws InvalidParameterException when the text is not such a size or overflows
     */
    public static long parse(String parameter, String text) {
        Matcher m = SIZE.matcher(text.strip());
        String allowed = "a byte count such as 8GiB, 512MiB, 2GB or 1073741824";
        if (!m.matches()) throw new InvalidParameterException(parameter, text, allowed);
        String unit = m.group(2) == null ? "b" : m.group(2).toLowerCase(Locale.ROOT);
        int power = "bkmgt".indexOf(unit.charAt(0));
        boolean decimal = unit.length() == 2 && unit.charAt(1) == 'b';
        double value = Double.parseDouble(m.group(1)) * Math.pow(decimal ? 1000 : 1024, power);
        if (value >= 0x1p63) throw new InvalidParameterException(parameter, text, allowed + " below 8 EiB");
        if (power == 0 && m.group(1).contains(".")) throw new InvalidParameterException(parameter, text, "a whole number of bytes");
        return (long) Math.floor(value);
    }

    /** {@code 1.13 GiB}-style text for people, exact bytes below 1 KiB. */
    public static String human(long bytes) {
        if (bytes < 1024) return bytes + " B";
        double v = bytes;
        int unit = 0;
        while (v >= 1024 && unit < UNITS.length - 1) {
            v /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.2f %s", v, UNITS[unit]);
    }

    /** {@code 1,207,959,552}: digits grouped for reading. */
    public static String grouped(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** {@code 30.53 B (30,532,122,624)}-style parameter counts: thousands, millions or billions, then exact. */
    public static String count(long n) {
        if (n < 1000) return Long.toString(n);
        String[] units = {"K", "M", "B", "T"};
        double v = n;
        int unit = -1;
        while (v >= 1000 && unit < units.length - 1) {
            v /= 1000;
            unit++;
        }
        return String.format(Locale.ROOT, "%.2f %s (%,d)", v, units[unit], n);
    }
}
