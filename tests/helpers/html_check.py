#!/usr/bin/env python3
"""html_check.py - facts about an HTML document, as JSON, for the e2e tests.

    html_check.py FILE

Reads FILE (typically Chromium's --dump-dom of a memtrend HTML report, so
the facts are those of the page as the browser built it, after its
scripts ran) with Python's own HTML parser and prints one JSON object:

  html_attrs      attributes of <html> (data-js-ready, data-js-errors,
                  data-csp-violations, data-pwned ...)
  tags            {tag: count} of every element
  classes         {"tag.class": count} of every element with a class
  polylines       [{k, points}] per <polyline>: its data-k and point count
  texts           {"tag.class": [text, ...]} for code.*, h2, title, svg
                  text.lbl and li (the text content as the browser has it:
                  entities decoded)
  idle_rects      <rect class="idle"> per <svg> in document order

Only the standard library: nothing to install.
"""
import json
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
        "meta", "source", "track", "wbr"}
TEXT_OF = {"code", "h2", "title", "text", "li", "figcaption", "p"}


class Facts(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.html_attrs = {}
        self.tags = {}
        self.classes = {}
        self.polylines = []
        self.texts = {}
        self.idle_rects = []
        self.stack = []          # (tag, key or None, [text parts])

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "html":
            self.html_attrs = {k: (v if v is not None else "")
                               for k, v in attrs}
        for c in (a.get("class") or "").split():
            key = "%s.%s" % (tag, c)
            self.classes[key] = self.classes.get(key, 0) + 1
        if tag == "svg":
            self.idle_rects.append(0)
        if tag == "rect" and "idle" in (a.get("class") or "").split() \
                and self.idle_rects:
            self.idle_rects[-1] += 1
        if tag == "polyline":
            pts = (a.get("points") or "").replace(",", " ").split()
            self.polylines.append({"k": a.get("data-k"),
                                   "points": len(pts) // 2})
        if tag in VOID:
            return
        key = None
        if tag in TEXT_OF:
            cls = (a.get("class") or "").split()
            key = "%s.%s" % (tag, cls[0]) if cls else tag
        self.stack.append((tag, key, []))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.stack and self.stack[-1][0] == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        # Pop to the matching open element (the DOM dump is well formed).
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                t, key, parts = self.stack[i]
                del self.stack[i:]
                text = "".join(parts)
                if key:
                    self.texts.setdefault(key, []).append(text)
                if self.stack:
                    self.stack[-1][2].append(text)
                return

    def handle_data(self, data):
        if self.stack:
            self.stack[-1][2].append(data)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: html_check.py FILE")
    with open(sys.argv[1], encoding="utf-8", errors="strict") as f:
        doc = f.read()
    p = Facts()
    p.feed(doc)
    p.close()
    json.dump({"html_attrs": p.html_attrs, "tags": p.tags,
               "classes": p.classes, "polylines": p.polylines,
               "texts": p.texts, "idle_rects": p.idle_rects,
               "bytes": len(doc.encode("utf-8"))}, sys.stdout,
              ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
