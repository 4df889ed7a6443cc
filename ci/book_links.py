#!/usr/bin/env python3
"""Checks the links of a built mdBook (default docs/book), offline, with the standard library.

Every relative href (and src) in every HTML page must lead to a file or folder that exists,
and every #fragment to an id (or <a name>) of the page it names. A page with
<base href="/"> (mdBook's 404 page, written for the site's root) is resolved against the
book's root. Links out of the book (to the repository's files: the chapters link
../../ci/lint.sh the way GitHub shows them) must exist too. External links (http, https,
mailto) are counted, never fetched.

Usage: ci/book_links.py [BOOK_DIR]; exit 1 with one line per broken link.
"""

import html.parser
import os
import sys
import urllib.parse
from pathlib import Path


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []  # (attribute, value, line)
        self.base = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        if tag == "base" and attrs.get("href"):
            self.base = attrs["href"]
        for attr in ("href", "src"):
            if attrs.get(attr) is not None:
                self.links.append((attr, attrs[attr], self.getpos()[0]))

    handle_startendtag = handle_starttag


def parse(path):
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def main():
    book = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/book").resolve()
    if not (book / "index.html").is_file():
        sys.exit(f"{book}: no index.html (build the book first: mdbook build docs)")
    pages = {p: parse(p) for p in sorted(book.rglob("*.html"))}
    problems = []
    relative = outside = fragments = external = 0
    for path, page in pages.items():
        name = path.relative_to(book)
        base = path.parent
        if page.base is not None:
            if page.base.startswith("/"):
                base = book / page.base.lstrip("/")
            else:
                base = path.parent / page.base
        for attr, link, line in page.links:
            parts = urllib.parse.urlsplit(link)
            if parts.scheme or link.startswith("//"):
                if parts.scheme in ("http", "https", "mailto"):
                    external += 1
                    continue
                problems.append(f"{name}:{line}: {attr}={link!r}: a scheme the book should not use")
                continue
            if parts.path:
                target = Path(os.path.normpath(base / urllib.parse.unquote(parts.path)))
                relative += 1
                if not target.exists():
                    problems.append(f"{name}:{line}: {attr}={link!r}: no such file ({target})")
                    continue
                if book not in target.parents and target != book:
                    outside += 1
            else:
                target = path
            if parts.fragment:
                fragments += 1
                fragment = urllib.parse.unquote(parts.fragment)
                if target.suffix != ".html":
                    problems.append(f"{name}:{line}: {attr}={link!r}: a #fragment into a file that is not a page")
                    continue
                ids = pages[target].ids if target in pages else parse(target).ids
                if fragment not in ids:
                    problems.append(f"{name}:{line}: {attr}={link!r}: {target.name} has no id {fragment!r}")
    for problem in problems:
        print(f"BROKEN  {problem}")
    print(
        f"book links: {len(pages)} pages; {relative} relative links ({outside} of them to"
        f" repository files outside the book), {fragments} fragments"
        f" checked, {external} external links counted (not fetched); {len(problems)} broken"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
