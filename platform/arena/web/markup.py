"""Markdown written by players (a competition's description), rendered safely.

Raw HTML is never passed through (python-markdown's HTML block and inline
processors are removed, so ``<script>`` shows as text), and links and images keep
only http(s), mailto and relative addresses: no ``javascript:`` link. Images are
left to the strict CSP, which loads none from elsewhere.
"""

from __future__ import annotations

from xml.etree import ElementTree

import markdown
from django.utils.safestring import SafeString, mark_safe
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

SAFE_SCHEMES = ("http://", "https://", "mailto:")


def _safe_address(value: str) -> bool:
    address = value.strip().lower()
    if ":" not in address.split("/", 1)[0]:
        return True  # relative, or a fragment
    return address.startswith(SAFE_SCHEMES)


class _Addresses(Treeprocessor):
    def run(self, root: ElementTree.Element) -> None:
        for element in root.iter():
            for attribute in ("href", "src"):
                value = element.get(attribute)
                if value is not None and not _safe_address(value):
                    del element.attrib[attribute]
            if element.tag == "a" and element.get("href", "").startswith(("http:", "https:")):
                element.set("rel", "nofollow noopener")


class _NoRawHtml(Extension):
    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        md.treeprocessors.register(_Addresses(md), "safe_addresses", 0)


def render_markdown(text: str) -> SafeString:
    """``text`` as HTML safe to put in a page."""
    converter = markdown.Markdown(
        extensions=["sane_lists", "tables", "fenced_code", _NoRawHtml()], output_format="html"
    )
    return mark_safe(converter.convert(text))
