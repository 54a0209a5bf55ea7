package panamax.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A Markdown pipe table with padded columns, readable in a terminal and pasteable into docs. */
final class MarkdownTable {
    private final String[] header;
    private final List<String[]> rows = new ArrayList<>();

    MarkdownTable(String... header) {
        this.header = header.clone();
    }

    void add(String... cells) {
        if (cells.length != header.length) {
            throw new IllegalArgumentException("row: expected " + header.length + " cells, found " + cells.length);
        }
        rows.add(cells.clone());
    }

    String render() {
        int[] widths = new int[header.length];
        for (int c = 0; c < header.length; c++) widths[c] = header[c].length();
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) widths[c] = Math.max(widths[c], row[c].length());
        }
        StringBuilder out = new StringBuilder();
        line(out, header, widths);
        String[] rule = new String[header.length];
        for (int c = 0; c < header.length; c++) rule[c] = "-".repeat(widths[c]);
        line(out, rule, widths);
        for (String[] row : rows) line(out, row, widths);
        return out.toString();
    }

    private static void line(StringBuilder out, String[] cells, int[] widths) {
        out.append('|');
        for (int c = 0; c < cells.length; c++) {
            char[] pad = new char[widths[c] - cells[c].length()];
            Arrays.fill(pad, ' ');
            out.append(' ').append(cells[c]).append(pad).append(" |");
        }
        out.append('\n');
    }
}
