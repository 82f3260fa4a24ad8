"""A Section is one plot of the report: its SVG, the table behind it (written
as CSV, shown in the index) and the paragraph the index prints under it."""

import csv
import io
import os


class Section:
    def __init__(self, slug, title, columns, rows, paragraph, commands, shown=None,
                 shown_columns=None):
        self.slug = slug            # file stem: slug.svg, slug.csv
        self.title = title          # the figure's title, also the index heading
        self.columns = columns      # CSV header (names with units)
        self.rows = rows            # the data drawn, as printed by perflab
        self.paragraph = paragraph  # what it shows and which knob to turn next
        self.commands = commands    # the perflab commands that produced it
        self.shown = shown          # rows for the index table (default: all)
        self.shown_columns = shown_columns or columns  # header of the index table

    def write_csv(self, folder):
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        for r in self.rows:
            w.writerow([cell(v) for v in r])
        with open(os.path.join(folder, self.slug + ".csv"), "w", encoding="utf-8") as f:
            f.write(buf.getvalue())


def cell(v):
    """A value as text: perflab's JSON numbers keep their shortest form."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return str(v)


def fmt(v, digits=1):
    """A number for prose: fixed decimals, thousands separated."""
    return f"{v:,.{digits}f}"


def show(v, digits=3):
    """A table cell for a reader: thousands separated, at most `digits` decimals
    (the index page and the HTML page print the same text)."""
    if isinstance(v, float):
        return f"{v:,.{digits}f}".rstrip("0").rstrip(".") if not v.is_integer() else f"{int(v):,}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    return cell(v)


def markdown_table(columns, rows, digits=3):
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for r in rows:
        lines.append("| " + " | ".join(show(v, digits) for v in r) + " |")
    return "\n".join(lines)
