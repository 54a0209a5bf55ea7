package panamax.models.template;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Global functions Hugging Face provides to chat templates. Public only because Jinjava calls
 * them reflectively; not part of any API.
 */
public final class TemplateFunctions {
    private TemplateFunctions() {
    }

    /** {@code raise_exception(message)}: the template rejects its input. */
    public static Object raiseException(String message) {
        throw new TemplateRejectionException(message);
    }

    /** {@code strftime_now(format)}: the current local time in a C {@code strftime} format. */
    public static String strftimeNow(String format) {
        ZonedDateTime now = ZonedDateTime.now();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < format.length(); i++) {
            char c = format.charAt(i);
            if (c != '%' || i + 1 == format.length()) {
                out.append(c);
                continue;
            }
            char f = format.charAt(++i);
            out.append(switch (f) {
                case 'd' -> String.format(Locale.ROOT, "%02d", now.getDayOfMonth());
                case 'm' -> String.format(Locale.ROOT, "%02d", now.getMonthValue());
                case 'Y' -> String.valueOf(now.getYear());
                case 'y' -> String.format(Locale.ROOT, "%02d", now.getYear() % 100);
                case 'H' -> String.format(Locale.ROOT, "%02d", now.getHour());
                case 'M' -> String.format(Locale.ROOT, "%02d", now.getMinute());
                case 'S' -> String.format(Locale.ROOT, "%02d", now.getSecond());
                case 'b' -> now.format(DateTimeFormatter.ofPattern("MMM", Locale.ENGLISH));
                case 'B' -> now.format(DateTimeFormatter.ofPattern("MMMM", Locale.ENGLISH));
                case 'a' -> now.format(DateTimeFormatter.ofPattern("EEE", Locale.ENGLISH));
                case 'A' -> now.format(DateTimeFormatter.ofPattern("EEEE", Locale.ENGLISH));
                case '%' -> "%";
                default -> "%" + f;
            });
        }
        return out.toString();
    }
}
