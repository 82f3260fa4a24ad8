"""The report as one static page a browser opens: reports/index.html.

Everything the Markdown index shows (each plot, its paragraph and its table)
plus the capstone's own tables, the leave-one-row-out check, the --real
comparison when a run's JSON is given and the benchmark history when a
database is. Each plot is the report's own SVG, inlined: the page loads
nothing (no script, no font, no image file), so it works from a USB stick,
a static host or a projector's laptop without a network.

Inlined SVGs share one document, so each one's ids (clip paths, markers) are
prefixed with its slug; otherwise the second plot would clip to the first
plot's rectangle. Same inputs, same bytes: no date, no absolute path, dicts
only in insertion order.
"""

import html
import os
import re

from section import show

CSS = """
:root { --fg: #1a1a1a; --muted: #555; --rule: #d0d0d0; --accent: #0057a3; --bg: #fff; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 "DejaVu Sans", Verdana, sans-serif; color: var(--fg);
  background: var(--bg); }
a { color: var(--accent); }
a:focus-visible, [tabindex]:focus-visible { outline: 3px solid #e69f00; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5em; }
.skip:focus { left: .5em; }
header, main, nav { max-width: 1400px; margin: 0 auto; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin: 1rem 0 .5rem; }
h2 { font-size: 1.25rem; margin: 0 0 .5rem; }
h3 { font-size: 1.05rem; margin: 1rem 0 .25rem; }
nav ol { columns: 2 18rem; padding-left: 1.5rem; }
section { border-top: 1px solid var(--rule); padding: 1rem 0; }
.pair { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1.5rem;
  align-items: start; }
figure { margin: 0; }
figure svg { display: block; width: 100%; height: auto; }
.wrap { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: .85rem; margin: .25rem 0 .75rem; }
caption { text-align: left; font-weight: bold; padding: .25rem 0; }
th, td { border-bottom: 1px solid var(--rule); padding: .2rem .5rem; text-align: right;
  white-space: nowrap; }
th:first-child, td:first-child, td.t { text-align: left; }
thead th { border-bottom: 2px solid var(--fg); }
code, pre { font-family: "DejaVu Sans Mono", monospace; font-size: .85em; }
pre { background: #f4f4f4; padding: .5rem; overflow-x: auto; white-space: pre-wrap; }
.note { color: var(--muted); font-size: .9rem; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 1rem; }
.grid a { display: block; text-decoration: none; color: var(--fg); border: 1px solid var(--rule);
  padding: .5rem; }
.grid a:hover, .grid a:focus-visible { border-color: var(--accent); }
.spark svg { width: 100%; height: auto; }
@media (max-width: 900px) { .pair { grid-template-columns: minmax(0, 1fr); } body { font-size: 15px; } }
/* On a phone a plot keeps a width its labels can be read at and scrolls sideways. */
@media (max-width: 700px) { figure.plot { overflow-x: auto; } figure.plot svg { min-width: 640px; } }
@media print {
  .skip, nav { display: none; }
  body { font-size: 10pt; }
  .pair { grid-template-columns: minmax(0, 1fr); }
  section { break-inside: avoid-page; }
  figure { break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
  .wrap { overflow: visible; }
  table { font-size: 7.5pt; }
  th, td { white-space: normal; padding: .1rem .25rem; }
}
"""

_ID = re.compile(r'\bid="([^"]+)"')
_REF = re.compile(r'(\bid="|url\(#|href="#)([^")]+)')
_PROLOGUE = re.compile(r"\A.*?(?=<svg\b)", re.S)
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.S)


def esc(text):
    return html.escape(str(text), quote=True)


def inline_svg(svg, prefix, label):
    """An SVG file's text as an element of the page: no XML prologue or RDF
    metadata, every id (and every reference to one) prefixed, and a role and
    name so a screen reader announces the figure."""
    svg = _METADATA.sub("", _PROLOGUE.sub("", svg, count=1), count=1)
    ids = set(_ID.findall(svg))

    def rename(m):
        return m.group(1) + (f"{prefix}-{m.group(2)}" if m.group(2) in ids else m.group(2))
    svg = _REF.sub(rename, svg)
    return svg.replace("<svg ", f'<svg role="img" aria-label="{esc(label)}" ', 1).rstrip()


def prose(text):
    """A paragraph of the Markdown index as HTML: `code` spans, the rest escaped."""
    parts = esc(text).split("`")
    return "".join(f"<code>{p}</code>" if k % 2 else p for k, p in enumerate(parts))


def table(columns, rows, caption=None, digits=3, label=None):
    out = ['<div class="wrap" tabindex="0" role="region" aria-label="'
           + esc(label or caption or "table") + '"><table>']
    if caption:
        out.append(f"<caption>{esc(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f'<th scope="col">{esc(c)}</th>' for c in columns)
               + "</tr></thead><tbody>")
    for r in rows:
        out.append("<tr>" + "".join(
            f"<td>{esc(show(v, digits))}</td>" if isinstance(v, (int, float)) and
            not isinstance(v, bool) else f'<td class="t">{esc(show(v, digits))}</td>'
            for v in r) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


def anchor(slug):
    return re.sub(r"[^a-z0-9_-]", "-", slug.lower())


def figure(svg, label):
    """A plot; it takes focus so a keyboard can scroll it where it is wider
    than a phone's screen."""
    return (f'<figure class="plot" tabindex="0" aria-label="{esc(label)}">\n{svg}\n'
            "</figure>")


def section_html(s, folder):
    with open(os.path.join(folder, s.slug + ".svg"), encoding="utf-8") as f:
        svg = inline_svg(f.read(), anchor(s.slug), s.title)
    shown = s.shown if s.shown is not None else s.rows
    note = "" if shown is s.rows else f" (the table shows {len(shown)} of its {len(s.rows)} rows)"
    return "\n".join([
        f'<section id="{anchor(s.slug)}" aria-labelledby="h-{anchor(s.slug)}">',
        f'<h2 id="h-{anchor(s.slug)}">{esc(s.title)}</h2>',
        '<div class="pair">', figure(svg, s.title), "<div>",
        f"<p>{prose(s.paragraph)}</p>",
        table(s.shown_columns, shown, label=f"table: {s.title}"),
        f'<p class="note">Data: <a href="{esc(s.slug)}.csv">{esc(s.slug)}.csv</a>{esc(note)}. '
        "Run:</p>",
        "<pre>" + esc("\n".join(s.commands)) + "</pre>",
        "</div>", "</div>", "</section>"])


class Block:
    """A part of the page that is not a plot: a heading, paragraphs (plain
    text with `code` spans) and tables [(caption, columns, rows)]."""

    def __init__(self, slug, title, paragraphs, tables, extra_html=""):
        self.slug, self.title = slug, title
        self.paragraphs, self.tables, self.extra_html = paragraphs, tables, extra_html

    def html(self):
        out = [f'<section id="{anchor(self.slug)}" aria-labelledby="h-{anchor(self.slug)}">',
               f'<h2 id="h-{anchor(self.slug)}">{esc(self.title)}</h2>']
        out += [f"<p>{prose(p)}</p>" for p in self.paragraphs]
        out += [table(cols, rows, caption=cap) for cap, cols, rows in self.tables]
        if self.extra_html:
            out.append(self.extra_html)
        out.append("</section>")
        return "\n".join(out)


def page(title, body, head_note=""):
    """A whole HTML document around `body` (already HTML)."""
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title>", f"<style>{CSS}</style>", head_note, "</head>",
        "<body>", body, "</body>", "</html>", ""])


def render(sections, blocks, folder, intro, missing):
    """index.html's text: the contents, then each plot beside its table and
    paragraph, then the blocks (capstone tables, validation, history)."""
    entries = [(anchor(s.slug), s.title) for s in sections]
    entries += [(anchor(b.slug), b.title) for b in blocks]
    body = ['<a class="skip" href="#main">Skip to the report</a>',
            "<header>", "<h1>perflab report</h1>"]
    body += [f"<p>{prose(p)}</p>" for p in intro]
    body.append("</header>")
    body.append('<nav aria-label="Contents"><h2>Contents</h2><ol>')
    body += [f'<li><a href="#{a}">{esc(t)}</a></li>' for a, t in entries]
    body.append("</ol>")
    if missing:
        body.append("<p>Not in this report:</p><ul>")
        body += [f"<li>{prose(m)}</li>" for m in missing]
        body.append("</ul>")
    body.append("</nav>")
    body.append('<main id="main" tabindex="-1">')
    body += [section_html(s, folder) for s in sections]
    body += [b.html() for b in blocks]
    body.append("</main>")
    return page("perflab report", "\n".join(body))


def write_atomic(path, text):
    """Beside its destination, then renamed: a reader sees the old page or
    the new one, never half of one."""
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".part")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
